#!/usr/bin/env python
"""How well the support of GRCI's top root cause predicts that it is right (chapter support, section Calibration).

For every family of the zoo and every seed: the data set with its ground truth (`grci_lit.beyond.zoo_data`), the
default `GRCI(seed=0)` fitted to it, `bootstrap_support` with --n-boot refits (seeded with the data set's seed), and
for each diseased patient the support of the fit's top root cause and whether it is the true one (the top variable of
the ground-truth Shapley values). Written to --out, data set by data set (a run resumes where it stopped):

- support_calibration.csv: one row per data set and value of support: family, p, n, seed, n_boot, resample,
  support, patients, right, commit;
- support_calibration_sets.csv: one row per data set: its patients, how many are right, CPU seconds of the fit and
  of the refits;
- provenance.json: the command, the code (commit), the machine and the settings of every run.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/support_calibration.py --seeds 100 108 --out results/support
"""
import argparse, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd
from provenance import record_run

from grci_lit.beyond import REPORT_SEEDS, zoo_data
from grci_lit.grci import GRCI
from grci_lit.scale import package_commit
from grci_lit.simulate import ZOO_FAMILIES
from grci_lit.support import calibration_records, bootstrap_support


def one_data_set(family, p, n, seed, n_boot, resample):
    "The records of one data set, and its summary row."
    sample, truth, X = zoo_data(family, p, n, seed)
    t = time.process_time()
    g = GRCI(seed=0, verbose=False).fit(X, sample.D)
    fit_s = time.process_time() - t
    t = time.process_time()
    sup = bootstrap_support(g, X, sample.D, n_boot=n_boot, seed=seed, resample=resample)
    support_s = time.process_time() - t
    rec = calibration_records(sup, truth, patients=sample.D == 1)
    key = dict(family=family, p=p, n=n, seed=seed, n_boot=n_boot, resample=resample)
    summary = dict(key, patients=int(rec.patients.sum()), right=int(rec.right.sum()), fit_seconds=round(fit_s, 2),
                   support_seconds=round(support_s, 2))
    return rec.assign(**key)[[*key, "support", "patients", "right"]], summary


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", nargs="+", default=list(ZOO_FAMILIES), choices=list(ZOO_FAMILIES))
    ap.add_argument("--seeds", nargs=2, type=int, default=[REPORT_SEEDS[0], REPORT_SEEDS[0] + 8],
                    help="first and one-past-last seed (default: the first 8 of the zoo's report seeds)")
    ap.add_argument("--p", type=int, default=10, help="variables (default 10)")
    ap.add_argument("--n", type=int, default=1000, help="patients (default 1000)")
    ap.add_argument("--n-boot", type=int, default=20, help="refits per data set (default 20)")
    ap.add_argument("--resample", default="distinct", choices=["distinct", "bootstrap", "half"])
    ap.add_argument("--out", required=True, help="folder of the CSV files and provenance.json")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out, settings=dict(families=a.families, seeds=list(range(*a.seeds)), p=a.p, n=a.n, n_boot=a.n_boot,
                                  resample=a.resample, fit="GRCI(seed=0)", truth="zoo_data (50 000 rows)"))
    records, sets = out / "support_calibration.csv", out / "support_calibration_sets.csv"
    done = set()
    if sets.exists():
        done = {tuple(r) for r in pd.read_csv(sets)[["family", "p", "n", "seed", "n_boot", "resample"]].itertuples(index=False)}
    commit = package_commit()
    for seed in range(*a.seeds):
        for family in a.families:
            if (family, a.p, a.n, seed, a.n_boot, a.resample) in done: continue
            t = time.perf_counter()
            rec, summary = one_data_set(family, a.p, a.n, seed, a.n_boot, a.resample)
            rec.assign(commit=commit).to_csv(records, mode="a", header=not records.exists(), index=False)
            pd.DataFrame([dict(summary, commit=commit)]).to_csv(sets, mode="a", header=not sets.exists(), index=False)
            print(f"{family} seed {seed}: {summary['right']} of {summary['patients']} right; refits "
                  f"{summary['support_seconds']:.0f} s CPU ({time.perf_counter() - t:.0f} s)", flush=True)
