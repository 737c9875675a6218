#!/usr/bin/env python
"""GRCI's default beside the paper's algorithm on the PBC and Pima bootstraps of the paper's Section 5.2.2 (chapter Beyond the paper).

Each bootstrap is one job of `grci_lit.bench.runner.real_jobs` (the same draws as `grci-lit bench real`), fitted under
each variant and scored by the modified RBO against the paper's ground truth; one JSON file per (bootstrap, variant)
in --out, so a run resumes where it stopped. `provenance.json` there names the code and machine of every run.

    python tools/real_bootstraps.py --bootstraps 100 --out results/beyond_the_paper/real_bootstraps
"""
import argparse
from pathlib import Path

from provenance import record_run
from grci_lit.bench.runner import real_jobs, run_experiment

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["pbc", "pima"], choices=["pbc", "pima"])
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--variants", nargs="+", default=["paper", "default"], choices=["paper", "default"])
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out)
    jobs = [j for b in range(a.bootstraps) for v in a.variants for j in real_jobs(tuple(a.datasets), 1, ("grci",), start=b, variant=v)]
    res = run_experiment(jobs, out, n_jobs=a.n_jobs, progress=False)
    res["variant"] = res.get("variant", "paper").fillna("paper") if "variant" in res else "paper"   # the paper's rows carry no variant field
    print(res.groupby(["dataset", "variant"]).rbo.agg(["count", "mean"]).round(3))
