"""One helper for the measurement tools: append this run to `provenance.json` in the folder it writes.

    from provenance import record_run     # tools/ is on sys.path when a tool runs as `python tools/<name>.py`
    record_run(out, dowhy=dowhy.__version__)
"""
import datetime, json, os, platform, sys
from pathlib import Path

import grci_lit
from grci_lit.scale import package_commit


def record_run(out, **extra)->dict:
    "Append the command line, the code (commit, '+modified' when the package differs from it), the machine and `extra` to out/provenance.json."
    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), cpu)
    run = dict(command=" ".join(sys.argv), commit=package_commit(), version=grci_lit.__version__, **extra,
               started=datetime.datetime.now().isoformat(timespec="seconds"),
               machine=dict(cpu=cpu, python=platform.python_version(), blas_threads=os.environ.get("OPENBLAS_NUM_THREADS"),
                            blas_kernel=os.environ.get("OPENBLAS_CORETYPE", "auto")))
    log = Path(out) / "provenance.json"
    runs = json.loads(log.read_text()) if log.exists() else []
    tmp = log.with_name(f".{log.name}.{os.getpid()}")
    tmp.write_text(json.dumps(runs + [run], indent=1)); os.replace(tmp, log)   # whole, for a second process reading it
    return run
