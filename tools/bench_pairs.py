#!/usr/bin/env python
"""Pairwise causal-direction benchmarks of GRCI (grci_reference.md section 5.2; the paper's "Causal Direction" experiments).

    python tools/bench_pairs.py pairs [--n-pairs 200] [--n 1000] [--seed 0] [--n-jobs 1]
    python tools/bench_pairs.py tuebingen [--seed 0] [--n-jobs 1]

`pairs`: synthetic pairs X -> Y per scenario (LiNGAM; ANM and HNM with non-Gaussian and Gaussian noise; PNL), the
fraction of pairs with direction >= 0 (i.e. +1, the truth) and its 95 % CI m +- 1.96 sd / sqrt(n_pairs).
`tuebingen`: the 97 univariate Tübingen pairs shipped by cdt (original ids 47 and 70 excluded), a seeded random half
swapped, weighted accuracy and seconds per pair. Per-pair seconds are CPU seconds of the worker process
(`time.process_time`, single-threaded BLAS), which a shared machine inflates far less than wall time; quote medians.
"""
from __future__ import annotations
import argparse, os, sys, time, warnings

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")

import numpy as np
import pandas as pd

SCENARIOS = (  # (label, model, gaussian) in the paper's order; PNL is reported, not averaged in the headline
    ("LiNGAM", "lingam", False),
    ("ANM non-Gaussian", "anm", False),
    ("HNM non-Gaussian", "hnm", False),
    ("ANM Gaussian", "anm", True),
    ("HNM Gaussian", "hnm", True),
    ("PNL non-Gaussian", "pnl", False),
    ("PNL Gaussian", "pnl", True),
)

_SCENARIO_ID = {(m, g): j for j, (_, m, g) in enumerate(SCENARIOS)}


def _method(method):
    if method is not None: return method
    from grci_lit.extract import causal_direction
    return causal_direction


def _direction(d): return int(getattr(d, "direction", d))


def _one_pair(model, gaussian, n, seed, method):
    from grci_lit.simulate import sample_pair
    rng = np.random.default_rng(seed)
    x, y = sample_pair(model, n, gaussian=gaussian, seed=rng)
    t = time.process_time()
    d = _direction(_method(method)(x, y, seed=rng))
    return d, time.process_time() - t


def _map(fn, args, n_jobs):
    if n_jobs == 1: return [fn(*a) for a in args]
    from joblib import Parallel, delayed
    return Parallel(n_jobs=n_jobs)(delayed(fn)(*a) for a in args)


def bench_pairs(n_pairs=200, # pairs per scenario (the paper: 200)
                n=1000, # rows per pair (the paper: 1000)
                seed=0, # master seed; pair i of scenario j (its place in SCENARIOS) uses the stream [seed, j, i]
                n_jobs=1, # joblib workers
                method=None, # callable (x, y, seed) -> +1/-1 or an object with `.direction`; None: GRCI's causal_direction
                scenarios=SCENARIOS, # (label, model, gaussian) triples
                verbose=True, # print the table
               )->pd.DataFrame:
    "Accuracy of a pairwise direction method on synthetic pairs, one row per scenario, with 95 % CIs."
    rows, outcomes = [], {}
    for j, (label, model, gaussian) in enumerate(scenarios):
        t0 = time.perf_counter()
        jj = _SCENARIO_ID.get((model, gaussian), 100 + j)   # the stream depends on the scenario, not on its position
        out = _map(_one_pair, [(model, gaussian, n, [seed, jj, i], method) for i in range(n_pairs)], n_jobs)
        d = np.array([o[0] for o in out]); secs = np.array([o[1] for o in out])
        ok = (d >= 0).astype(float)   # the truth is always X -> Y
        outcomes[label] = ok
        m, sd = ok.mean(), ok.std(ddof=1) if n_pairs > 1 else 0.0
        half = 1.96 * sd / np.sqrt(n_pairs)
        rows.append(dict(scenario=label, model=model, gaussian=gaussian, pairs=n_pairs, n=n, accuracy=m,
                         ci_low=m - half, ci_high=m + half, median_s=np.median(secs),
                         wall_s=time.perf_counter() - t0))
    res = pd.DataFrame(rows).set_index("scenario")
    if verbose:
        print(f"Synthetic pairs: {n_pairs} pairs per scenario, n = {n}, seed = {seed}")
        print(res.drop(columns=["model", "gaussian"]).round(3).to_string())
        pooled = np.concatenate([outcomes[s[0]] for s in scenarios if s[1] != "pnl"] or [np.zeros(0)])
        if pooled.size > 1:
            half = 1.96 * pooled.std(ddof=1) / np.sqrt(pooled.size)   # the R summary's overall CI (sqrt(1000) at 200 pairs)
            print(f"non-PNL scenarios pooled: accuracy {pooled.mean():.3f} +- {half:.3f} ({pooled.size} pairs); "
                  f"seconds per pair: median {res['median_s'].median():.3f}")
    return res


def bench_tuebingen(seed=0, # seed of the swapped half and of the method
                    n_jobs=1, # joblib workers
                    method=None, # as in `bench_pairs`
                    verbose=True, # print the summary
                   )->pd.DataFrame:
    "Weighted accuracy on the 97 Tübingen pairs with a seeded random half swapped; one row per pair."
    from grci_lit.datasets import load_tuebingen, swap_half
    pairs, truth = swap_half(load_tuebingen(), seed=seed)
    out = _map(_one_tuebingen, [(p.x, p.y, [seed, p.pair_id], method) for p in pairs], n_jobs)
    res = pd.DataFrame(dict(pair_id=[p.pair_id for p in pairs], n=[len(p.x) for p in pairs],
                            weight=[p.weight for p in pairs], swapped=truth < 0, truth=truth,
                            direction=[o[0] for o in out], seconds=[o[1] for o in out],
                            duplicates_warning=[o[2] for o in out])).set_index("pair_id")
    res["correct"] = (res["direction"] == res["truth"]).astype(float)
    if verbose:
        w, c = res["weight"], res["correct"]
        print(f"Tübingen: {len(res)} pairs, seed = {seed}, {int(res['swapped'].sum())} swapped")
        print(f"weighted accuracy {float((w * c).sum() / w.sum()):.3f}   unweighted {c.mean():.3f}   "
              f"always +1 would score {float((w * (res['truth'] > 0)).sum() / w.sum()):.3f}")
        dup = res["duplicates_warning"]
        print(f"{int(dup.sum())} pairs have more than k = 10 duplicate points (KSG warning); weighted accuracy on them "
              f"{weighted_accuracy(res[dup]) if dup.any() else float('nan'):.3f}, on the others {weighted_accuracy(res[~dup]):.3f}")
        print(f"seconds per pair: median {res['seconds'].median():.3f}, max {res['seconds'].max():.2f} "
              f"(n = {int(res.loc[res['seconds'].idxmax(), 'n'])}), total {res['seconds'].sum():.1f}")
    return res


def _one_tuebingen(x, y, seed, method):
    with warnings.catch_warnings(record=True) as caught:   # the KSG estimator warns on > k duplicate points
        warnings.simplefilter("always", RuntimeWarning)
        t = time.process_time()
        d = _direction(_method(method)(x, y, seed=seed))
        secs = time.process_time() - t
    return d, secs, any(issubclass(w.category, RuntimeWarning) for w in caught)


def weighted_accuracy(res:pd.DataFrame)->float:
    "Weighted accuracy of a `bench_tuebingen` table."
    return float((res["weight"] * res["correct"]).sum() / res["weight"].sum())


def main(argv=None):
    "Command line: `bench_pairs.py pairs|tuebingen [options]`."
    ap = argparse.ArgumentParser(prog="bench_pairs", description=__doc__.split("\n\n")[0])
    ap.add_argument("which", choices=["pairs", "tuebingen", "all"])
    ap.add_argument("--n-pairs", type=int, default=200, help="pairs per synthetic scenario (default 200)")
    ap.add_argument("--n", type=int, default=1000, help="rows per synthetic pair (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=1, help="joblib workers (the machine is shared: default 1)")
    a = ap.parse_args(argv)
    out = {}
    if a.which in ("pairs", "all"): out["pairs"] = bench_pairs(a.n_pairs, a.n, a.seed, a.n_jobs)
    if a.which in ("tuebingen", "all"): out["tuebingen"] = bench_tuebingen(a.seed, a.n_jobs)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
