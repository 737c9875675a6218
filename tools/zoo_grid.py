#!/usr/bin/env python
"""GRCI's variants on the zoo of generators (chapter Beyond the paper): one JSON file of results per data set.

For every family of `ZOO_FAMILIES`, size (variables x rows) and seed: `zoo_seed` draws the data set with its truth,
fits each variant of `ZOO_VARIANTS` once (seed 0) and stores its RBO, seconds and skeleton recall/precision. A data
set already stored with the same settings is read back, so an interrupted run resumes where it stopped.

    python tools/zoo_grid.py --sizes 10x1000 50x2000 --seeds 100 120 --out results/beyond_the_paper/zoo
    python tools/zoo_grid.py --seeds 0 10 --sizes 12x1000 --variants paper smoothed fast "one window" "one Shapley model" \
        "mean projection" "MARS on every row" "ranked by Shapley value" "ranked by importance" --ladder \
        --out results/beyond_the_paper/zoo_tuning                                   # the tuning seeds and their choices
    python tools/zoo_grid.py --seeds 0 10 --sizes 50x1000 50x2000 --variants "one window" "mean projection" "one Shapley model" \
        fast --out results/beyond_the_paper/zoo_tuning_p50                          # fast's two settings, each alone and together, at 50 variables
    python tools/zoo_grid.py --seeds 0 10 --sizes 50x1000 --variants "one window" --ladder \
        --out results/beyond_the_paper/zoo_tuning_p50                               # the ladder at 50 variables (the stored fits read back)
    python tools/zoo_grid.py --families pnl --seeds 120 140 --variants paper default \
        --out results/beyond_the_paper/zoo_replicate                                # pnl on a second draw of fresh seeds, every size
"""
import argparse, json, time, warnings
from pathlib import Path

from provenance import record_run

from grci_lit.beyond import REPORT_SEEDS, TUNING_VARIANTS, ZOO_SIZES, ZOO_VARIANTS, zoo_file, zoo_ladder, zoo_seed
from grci_lit.simulate import ZOO_FAMILIES

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", nargs="+", default=list(ZOO_FAMILIES), choices=list(ZOO_FAMILIES))
    ap.add_argument("--sizes", nargs="+", default=[f"{p}x{n}" for p, n in ZOO_SIZES], help="variables x rows, e.g. 30x2000")
    ap.add_argument("--seeds", nargs=2, type=int, default=[REPORT_SEEDS[0], REPORT_SEEDS[-1] + 1], help="first and one-past-last seed")
    ap.add_argument("--step", type=int, default=1, help="every step-th seed from the first (to split a run between processes)")
    ap.add_argument("--reverse", action="store_true", help="seeds from the last down (a second process meets the first in the middle)")
    known = dict(TUNING_VARIANTS, **ZOO_VARIANTS)
    ap.add_argument("--variants", nargs="+", default=list(ZOO_VARIANTS), choices=list(known),
                    help="labels of ZOO_VARIANTS or TUNING_VARIANTS (default: those of ZOO_VARIANTS)")
    ap.add_argument("--ladder", action="store_true", help="also store the ladder of GRCI()'s errors (zoo_ladder) under the label 'ladder'")
    ap.add_argument("--out", required=True, help="folder of the per-data-set JSON files")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    variants = {k: known[k] for k in a.variants}
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out)                                                        # every run that wrote here: which code, where
    for size in a.sizes:
        p, n = map(int, size.split("x"))
        seeds = range(a.seeds[0], a.seeds[1], a.step)
        for seed in (reversed(seeds) if a.reverse else seeds):
            for family in a.families:
                t = time.perf_counter()
                path = out / zoo_file(family, p, n, seed)
                if a.reverse and path.exists() and set(variants) <= set(json.loads(path.read_text())): continue
                res = zoo_seed(family, p, n, seed, variants, path=path)
                if a.ladder:
                    stored = json.loads(path.read_text())
                    if "ladder" not in stored:
                        stored["ladder"] = zoo_ladder(family, p, n, seed); path.write_text(json.dumps(stored, indent=1))
                print(f"{family} {size} seed {seed}: " + ", ".join(f"{k} {v['rbo']:.3f}" for k, v in res.items())
                      + f" ({time.perf_counter() - t:.0f} s)", flush=True)
