#!/usr/bin/env python
"""Pairwise causal-direction benchmarks; the logic lives in `grci_lit.experiments` (`grci-lit bench pairs|tuebingen`).

    python tools/bench_pairs.py pairs|tuebingen|all [options of grci-lit bench pairs / tuebingen]
"""
import sys

from grci_lit.cli import main


def run(argv):
    which, rest = (argv[0], argv[1:]) if argv else ("all", [])
    if which == "all":
        return main(["bench", "pairs", *rest]) or main(["bench", "tuebingen", *_drop_sizes(rest)])   # no pair sizes
    return main(["bench", which, *rest])


def _drop_sizes(args):
    out, skip = [], False
    for a in args:
        if skip: skip = False; continue
        if a in ("--n-pairs", "--n"): skip = True; continue
        out.append(a)
    return out


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
