#!/usr/bin/env python
"""Seconds of `bootstrap_support` (chapter support): the default GRCI fitted once, then --n-boot refits with --n-jobs
workers, on a data set of the paper's HNM family per size. The machine's load average is recorded before and after
each measurement (other processes share its cores). One row per size is appended to --out/support_cost.csv; the run
is recorded in --out/provenance.json.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/support_cost.py --sizes 10x1000 20x10000 --out results/support
"""
import argparse, os, time, warnings
from pathlib import Path

import pandas as pd
from provenance import record_run

from grci_lit.grci import GRCI
from grci_lit.scale import package_commit
from grci_lit.simulate import sample_zoo
from grci_lit.support import bootstrap_support

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["10x1000", "20x10000"], help="variables x patients")
    ap.add_argument("--n-boot", type=int, default=50)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=100, help="seed of the data set")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out, settings=dict(sizes=a.sizes, n_boot=a.n_boot, n_jobs=a.n_jobs, seed=a.seed, family="hnm"))
    commit, path = package_commit(), out / "support_cost.csv"
    for size in a.sizes:
        p, n = map(int, size.split("x"))
        s = sample_zoo("hnm", p + 1, n, seed=a.seed)
        X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(p)])
        t = time.perf_counter()
        g = GRCI(seed=0, verbose=False).fit(X, s.D)
        fit_s = time.perf_counter() - t
        load_before = os.getloadavg()[0]
        t = time.perf_counter()
        bootstrap_support(g, X, s.D, n_boot=a.n_boot, seed=0, n_jobs=a.n_jobs)
        seconds = time.perf_counter() - t
        row = dict(p=p, n=n, n_boot=a.n_boot, n_jobs=a.n_jobs, cores=os.cpu_count(), fit_seconds=round(fit_s, 1),
                   seconds=round(seconds, 1), load_before=round(load_before, 1), load_after=round(os.getloadavg()[0], 1),
                   commit=commit)
        pd.DataFrame([row]).to_csv(path, mode="a", header=not path.exists(), index=False)
        print(row, flush=True)
