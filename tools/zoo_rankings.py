#!/usr/bin/env python
"""`GRCI()`'s fit ranked with other windows of its Shapley curves, on the zoo (chapter Beyond the paper).

For every family, size and seed: `zoo_rankings` draws the data set with its truth, fits `GRCI()` once (seed 0) and
scores every rule of `RANKING_RULES` on that one fit (one JSON file per data set, resumable). `--cache` keeps each
fit's truth, Shapley values, errors, seconds and skeleton scores (an .npz per data set) so that a new rule costs no refit.

    python tools/zoo_rankings.py --seeds 0 10 --sizes 12x1000 --out results/beyond_the_paper/zoo_rankings/tuning
    python tools/zoo_rankings.py --out results/beyond_the_paper/zoo_rankings/report    # the report seeds and sizes
"""
import argparse, time, warnings
from pathlib import Path

from provenance import record_run

from grci_lit.beyond import RANKING_RULES, REPORT_SEEDS, ZOO_SIZES, zoo_file, zoo_rankings
from grci_lit.simulate import ZOO_FAMILIES

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", nargs="+", default=list(ZOO_FAMILIES), choices=list(ZOO_FAMILIES))
    ap.add_argument("--sizes", nargs="+", default=[f"{p}x{n}" for p, n in ZOO_SIZES], help="variables x rows, e.g. 30x2000")
    ap.add_argument("--seeds", nargs=2, type=int, default=[REPORT_SEEDS[0], REPORT_SEEDS[-1] + 1], help="first and one-past-last seed")
    ap.add_argument("--part", nargs=2, type=int, default=[0, 1], metavar=("K", "OF"), help="run the K-th of OF interleaved shares of the data sets")
    ap.add_argument("--cache", help="folder of the fits' .npz files (read when present, written otherwise)")
    ap.add_argument("--out", required=True, help="folder of the per-data-set JSON files")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out)
    jobs = [(f, *map(int, size.split("x")), s) for f in a.families for size in a.sizes for s in range(*a.seeds)]
    for family, p, n, seed in jobs[a.part[0]::a.part[1]]:
        t = time.perf_counter()
        name = zoo_file(family, p, n, seed)
        cache = Path(a.cache) / name.replace(".json", ".npz") if a.cache else None
        res = zoo_rankings(family, p, n, seed, RANKING_RULES, path=out / name, cache=cache)
        print(f"{name}: " + ", ".join(f"{k} {v['rbo']:.3f}" for k, v in res.items()) + f" ({time.perf_counter() - t:.0f} s)", flush=True)
