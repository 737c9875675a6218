#!/usr/bin/env python
"""Run (or resume) the paper's experiments into results/cache/, then rebuild the tables and figures of results/ and
the report page (nbs/bench/06_report.ipynb, whose stored outputs the docs show).

    python tools/make_results.py                    # run every stage still missing, then rebuild the report
    python tools/make_results.py --stages synth10 real
    python tools/make_results.py --report           # rebuild tables, figures and the report page, run nothing
    python tools/make_results.py --budget 60        # stop starting new stages after 60 minutes

Each (data set, method) result is a JSON file under results/cache/ (the runner of grci_lit.bench.runner), so an
interrupted run loses nothing; rerunning the same command continues where it stopped. results/cache/ is
git-ignored: what is committed is results/*.csv, results/*.png and the report notebook's outputs.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from grci_lit.bench import pairs, runner  # noqa: E402

RESULTS = ROOT / "results"
CACHE = RESULTS / "cache"
RUNLOG = CACHE / "runlog.jsonl"

# ---------------------------------------------------------------- stages: (name, description, callable)
SYNTH_NS = (500, 1000, 2000)
REAL_BOOTSTRAPS = 100
SEED_SPREAD = 50          # PBC without resampling: GRCI and RCI with seeds 0..SEED_SPREAD-1
EXTRA_REAL_SEEDS = (1, 2)  # PBC bootstraps drawn from other master seeds (GRCI, RCI only)
EXTRA_REAL_BOOTSTRAPS = 50


def synth_stage(p, reps, pnl=False):
    return lambda n_jobs: runner.run_experiment(runner.synth_jobs((p,), SYNTH_NS, reps, pnl=pnl), CACHE, n_jobs=n_jobs)


def real_stage(n_jobs):
    return runner.run_experiment(runner.real_jobs(("pbc", "pima"), REAL_BOOTSTRAPS), CACHE, n_jobs=n_jobs)


def real_stable_stage(n_jobs):
    "GRCI's default on the same bootstraps as the stage real (the paper's GRCI is read back from the cache)."
    jobs = [j for v in ("paper", "default") for j in runner.real_jobs(("pbc", "pima"), REAL_BOOTSTRAPS, ("grci",), variant=v)]
    return runner.run_experiment(jobs, CACHE, n_jobs=n_jobs)


def real_seeds_stage(n_jobs):
    jobs = [j for s in EXTRA_REAL_SEEDS for j in runner.real_jobs(("pbc",), EXTRA_REAL_BOOTSTRAPS, ("grci", "rci"), seed=s)]
    return runner.run_experiment(jobs, CACHE, n_jobs=n_jobs)


def _pbc_full_seed(seed):
    "GRCI and RCI on the whole PBC sample (no resampling): only the methods' seed varies."
    import warnings
    from grci_lit.baselines import run_methods
    from grci_lit.datasets import load_pbc, pbc_truth
    from grci_lit.metrics import rbo_ranking
    X, D = load_pbc()
    X, D = X.reset_index(drop=True), D.reset_index(drop=True)
    cols = list(X.columns)
    Z = (X - X.mean()) / X.std(ddof=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_methods(["grci", "rci"], Z, D, seed=seed)
    sick = D.to_numpy() == 1
    truth = pbc_truth(X)
    def top(r):   # the variable ranked first for the most deceased patients, and for how many
        first = np.array([cols[r.order[j]] for j in np.argmax(r.scores[sick][:, r.order], axis=1)])
        u, c = np.unique(first, return_counts=True)
        return str(u[np.argmax(c)]), int(c.max())
    return [dict(kind="pbc_seed", seed=seed, method=m, seconds=res[m].seconds, top=top(res[m])[0],
                 top_patients=top(res[m])[1], patients=int(sick.sum()),
                 rbo=rbo_ranking(truth, res[m].scores[:, res[m].order], depth=2, variables=cols,
                                 order=[cols[j] for j in res[m].order], patients=sick)) for m in ("grci", "rci")]


def pbc_seed_stage(n_jobs):
    from joblib import Parallel, delayed
    folder = CACHE / "pbc_seed"; folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in range(SEED_SPREAD) if not (folder / f"{s}.json").exists()]
    for rows in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(_pbc_full_seed)(s) for s in todo):
        (folder / f"{rows[0]['seed']}.json").write_text(json.dumps(rows, default=float))


def tuebingen_stage(n_jobs):
    path = CACHE / "tuebingen_seed0.csv"
    if path.exists() and set(pd.read_csv(path)["method"]) >= set(pairs.DIRECTION_METHODS): return   # a cache without a newer method is redone
    res = pairs.bench_tuebingen(seed=0, methods=pairs.DIRECTION_METHODS, n_jobs=n_jobs, verbose=False)
    res.to_csv(path)


STAGES = {
    "synth10": ("synthetic HNM grid, p = 10, 20 reps per n", synth_stage(10, 20)),
    "real": (f"PBC and Pima, {REAL_BOOTSTRAPS} bootstraps, 7 methods", real_stage),
    "real_stable": (f"PBC and Pima, {REAL_BOOTSTRAPS} bootstraps, GRCI's default beside the paper's", real_stable_stage),
    "tuebingen": ("Tübingen pairs: GRCI (the paper's test and the default's), LiNGAM, RESIT", tuebingen_stage),
    "pbc_seed": (f"PBC without resampling, GRCI and RCI, seeds 0-{SEED_SPREAD - 1}", pbc_seed_stage),
    "real_seeds": (f"PBC, {EXTRA_REAL_BOOTSTRAPS} bootstraps for master seeds {EXTRA_REAL_SEEDS}, GRCI and RCI",
                   real_seeds_stage),
    "synth30": ("synthetic HNM grid, p = 30, 20 reps per n", synth_stage(30, 20)),
    "synth10_50": ("synthetic HNM grid, p = 10, extended to 50 reps per n", synth_stage(10, 50)),
    "synth50": ("synthetic HNM grid, p = 50, 20 reps per n", synth_stage(50, 20)),
    "synth30_40": ("synthetic HNM grid, p = 30, extended to 40 reps per n", synth_stage(30, 40)),
    "synth50_40": ("synthetic HNM grid, p = 50, extended to 40 reps per n", synth_stage(50, 40)),
    "pnl10": ("synthetic PNL grid (Table 2), p = 10, 20 reps per n", synth_stage(10, 20, pnl=True)),
    "pnl30": ("synthetic PNL grid (Table 2), p = 30, 20 reps per n", synth_stage(30, 20, pnl=True)),
    "pnl50": ("synthetic PNL grid (Table 2), p = 50, 20 reps per n", synth_stage(50, 20, pnl=True)),
}


def run_stage(name, n_jobs):
    CACHE.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    print(f"== stage {name}: {STAGES[name][0]}", flush=True)
    STAGES[name][1](n_jobs)
    t1 = time.time()
    with open(RUNLOG, "a") as f:
        f.write(json.dumps(dict(stage=name, start=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t0)),
                                wall_s=round(t1 - t0, 1), n_jobs=n_jobs, host_cpus=os.cpu_count())) + "\n")
    print(f"== stage {name} finished in {t1 - t0:.0f} s", flush=True)


# ---------------------------------------------------------------- statistics
















# ---------------------------------------------------------------- figures










# ---------------------------------------------------------------- report






def report(page=True):
    "Write the report's tables and figures into results/ from the cache; with `page`, refresh the stored outputs of its page."
    from grci_lit.bench.report import write_results
    parts = write_results(CACHE, RESULTS)
    print(f"wrote the tables and figures of {', '.join(k for k, v in parts.items() if v) or 'nothing (empty cache)'} into {RESULTS}/")
    if not page: return
    subprocess.run(["nbdev-test", str(ROOT / "nbs" / "bench" / "06_report.ipynb"), "--save"], cwd=ROOT, check=True)
    subprocess.run(["nbdev-clean"], cwd=ROOT, check=True)
    print("refreshed the report page, nbs/bench/06_report.ipynb (page bench_report.html)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stages", nargs="*", default=list(STAGES), choices=list(STAGES))
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=None, help="minutes; no new stage starts after this")
    ap.add_argument("--report", action="store_true", help="only rebuild the report")
    a = ap.parse_args()
    t0 = time.time()
    if not a.report:
        for s in a.stages:
            if a.budget is not None and time.time() - t0 > 60 * a.budget:
                print(f"budget reached; not starting {s}"); break
            run_stage(s, a.n_jobs)
            report(page=False)
    report()


if __name__ == "__main__":
    main()
