"""Measure the run folder's contract under kills at random moments (not collected by pytest: run it by hand).

    python tests/_run_folder_kills.py [--trials 10] [--seed 0] [--package-root ROOT]

A tiny table (80 patients, 3 variables) and a finished run in `out/`; then, per trial, a run with a new seed is
started, and SIGTERM (odd trials) or SIGKILL (even trials) is sent at a moment drawn uniformly between the moment
its private folder appears and the moment a pilot run ended. After each kill the script records whether `out/` is
there and holds a whole run (`previous_run`: every file listed in run.json, sizes and SHA-256 matching), which run
(old or new, by its seed), and what is left beside `out/`; then it runs once more into the same `out/` and records
what is left beside it after that run. One markdown table on stdout."""
import argparse, json, os, signal, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--trials", type=int, default=10)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--package-root", default=str(Path(__file__).resolve().parents[1]))
a = ap.parse_args()
ENV = dict(os.environ, PYTHONPATH=a.package_root, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
sys.path.insert(0, a.package_root)
if (Path(a.package_root) / "grci_lit" / "run_folder.py").exists():
    from grci_lit.run_folder import previous_run      # noqa: E402
else: from grci_lit.cli import previous_run           # noqa: E402  (an earlier version: run.json without a manifest)
from grci_lit.simulate import sample_dag              # noqa: E402

work = Path(tempfile.mkdtemp(prefix="kills_"))
s = sample_dag(p=4, n=80, seed=1)
pd.DataFrame(s.X, columns=["v0", "v1", "v2"]).assign(dx=s.D, pid=np.arange(1000, 1080)).to_csv(work / "t.csv",
                                                                                                index=False)
ARGS = ["run", "t.csv", "--target", "dx", "--index-col", "pid", "--out", "out", "--quiet"]
SLOW = ["--plots", "1", "--waterfalls", "3"]
FAST = ["--plots", "0", "--no-report"]


def start(seed, extra):
    return subprocess.Popen([sys.executable, "-m", "grci_lit.cli", *ARGS, "--seed", str(seed), *extra], cwd=work,
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def beside():
    return sorted(p.name for p in work.iterdir() if p.name not in ("t.csv", "out"))


def wait_for_folder(p, there=()):
    "Wait until the run `p` has made its private folder (one not among `there`)."
    while p.poll() is None and not [n for n in beside() if n.endswith(".grci-lit-partial") and n not in there]:
        time.sleep(0.005)
    return time.perf_counter()


def holds():
    "What out/ holds: 'missing', 'not whole', or the seed of the whole run in it."
    if not (work / "out").exists(): return "missing"
    record = previous_run(work / "out")
    return "not whole" if record is None else int(record["command"][record["command"].index("--seed") + 1])


assert subprocess.run([sys.executable, "-m", "grci_lit.cli", *ARGS, "--seed", "100", *FAST], cwd=work, env=ENV,
                      capture_output=True, timeout=600).returncode == 0
pilot = start(101, SLOW)
t0 = wait_for_folder(pilot)
pilot.communicate(timeout=600)
span = time.perf_counter() - t0
rng = np.random.default_rng(a.seed)
rows = []
for k in range(a.trials):
    sig = signal.SIGTERM if k % 2 == 0 else signal.SIGKILL
    old, new = holds(), 200 + k
    there = beside()
    p = start(new, SLOW)
    t = wait_for_folder(p, there)
    at = rng.uniform(0, span)
    while time.perf_counter() - t < at and p.poll() is None: time.sleep(0.002)
    finished_first = p.poll() is not None
    p.send_signal(sig)
    _, err = p.communicate(timeout=600)
    left, now = beside(), holds()
    r = subprocess.run([sys.executable, "-m", "grci_lit.cli", *ARGS[:-1], "--seed", str(300 + k), *FAST], cwd=work,
                       env=ENV, capture_output=True, text=True, timeout=600)
    notes = [l for l in r.stderr.splitlines() if l.startswith("grci-lit: note:")]
    rows.append({"trial": k + 1, "signal": signal.Signals(sig).name, "at (s after the folder)": round(at, 2),
                 "exit": "finished first" if finished_first else p.returncode,
                 "message": (err.strip().splitlines() or [""])[-1][:60],
                 "out/ after the kill": "old run, whole" if now == old else "new run, whole" if now == new else now,
                 "left beside out/": len(left), "next run": r.returncode, "its notes": len(notes),
                 "left after the next run": len(beside()), "out/ after it": "whole" if holds() == 300 + k else holds()})
print(f"pilot: {span:.1f} s from the private folder's appearance to the run's end")
table = pd.DataFrame(rows)
print("| " + " | ".join(table.columns) + " |\n|" + "---|" * table.shape[1])
for row in table.itertuples(index=False): print("| " + " | ".join(map(str, row)) + " |")
