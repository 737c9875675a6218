"""Provenance for the measurement tools: which code (commit, and the hash of each package file a run imports, here or at
a commit), which machine; and `record_run`, which appends a run to `provenance.json` in the folder it writes.

    from provenance import record_run     # tools/ is on sys.path when a tool runs as `python tools/<name>.py`
    record_run(out, dowhy=dowhy.__version__)
"""
import datetime, hashlib, json, os, platform, subprocess, sys
from pathlib import Path

import grci_lit
from grci_lit.bench.report import file_hash, source_hash
from grci_lit.scale import package_commit


# The modules an experiment imports decide its numbers, except the published constants it prints beside them.
MEASURING = ("grci_lit.bench.runner", "grci_lit.bench.pairs")
NOT_NUMERIC = ("bench/paper.py",)


def code_files(modules=MEASURING, root=None)->dict:
    "The package's source files that importing `modules` loads (relative path -> `file_hash`), read under `root`."
    pkg = Path(grci_lit.__file__).resolve().parent
    out = subprocess.run([sys.executable, "-c", "import sys, importlib\n"
                          f"for m in {list(modules)!r}: importlib.import_module(m)\n"
                          "print('\\n'.join(sorted(getattr(m, '__file__', '') or '' for k, m in sys.modules.items() if k.split('.')[0] == 'grci_lit')))"],
                         capture_output=True, text=True, check=True, cwd=pkg.parent)
    rel = [str(Path(f).resolve().relative_to(pkg)) for f in out.stdout.split() if f]
    root = Path(root or pkg)
    return {f: file_hash(root / f) for f in sorted(rel) if f not in NOT_NUMERIC}


def code_files_at(commit, files, repo)->dict:
    "The `file_hash` of each package file (relative path) as it was at `commit` of the git repository `repo` ('' when absent there)."
    out = {}
    for f in files:
        r = subprocess.run(["git", "show", f"{commit}:grci_lit/{f}"], cwd=repo, capture_output=True, text=True)
        out[f] = source_hash(r.stdout) if r.returncode == 0 else ""
    return out


def code_fingerprint(files:dict=None)->str:
    "One SHA-256 (16 hex digits) over `code_files()`: equal fingerprints, the same numeric code."
    files = code_files() if files is None else files
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]


def machine()->dict:
    "CPU model, cores, Python, BLAS threads and kernel of this machine."
    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), cpu)
    return dict(cpu=cpu, cores=os.cpu_count(), python=platform.python_version(),
                blas_threads=os.environ.get("OPENBLAS_NUM_THREADS"), blas_kernel=os.environ.get("OPENBLAS_CORETYPE", "auto"))


def record_run(out, **extra)->dict:
    "Append the command line, the code (commit, '+modified' when the package differs from it), the machine and `extra` to out/provenance.json."
    run = dict(command=" ".join(sys.argv), commit=package_commit(), version=grci_lit.__version__, code=code_fingerprint(),
               **extra, started=datetime.datetime.now().isoformat(timespec="seconds"), machine=machine())
    log = Path(out) / "provenance.json"
    runs = json.loads(log.read_text()) if log.exists() else []
    tmp = log.with_name(f".{log.name}.{os.getpid()}")
    tmp.write_text(json.dumps(runs + [run], indent=1)); os.replace(tmp, log)   # whole, for a second process reading it
    return run
