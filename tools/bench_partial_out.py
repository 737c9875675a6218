#!/usr/bin/env python
"""Benchmark `grci_lit.partial_out.partial_out` with one parent.

For each sample size a fresh subprocess (single-threaded BLAS) draws a toy HNM pair, runs Partial-Out once to warm up,
then `--reps` more times, and reports the median wall-clock and CPU seconds, the peak memory traced by `tracemalloc`
during one call, and the subprocess's maximum resident set size (interpreter and libraries included).

    python tools/bench_partial_out.py                 # n = 1e3, 1e4, 1e5, 5 runs each
    python tools/bench_partial_out.py --sizes 2000 50000 --reps 3 --parents 3

Bar (one parent, n = 1e5): median wall time < 1 s and traced peak < 500 MB. Timings on a shared machine are noisy; the
CPU-time column is the steadier one.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(n, reps, parents, seed):
    "Runs inside the subprocess: time `reps` calls of partial_out and print one JSON line."
    import resource
    import time
    import tracemalloc

    import numpy as np
    from grci_lit.hnm import sample_hnm
    from grci_lit.partial_out import partial_out

    rng = np.random.default_rng(seed)
    x, y = sample_hnm(n, mean="sin(3x)", sigma="x", seed=rng)
    V = x if parents == 1 else np.c_[x, rng.uniform(size=(n, parents - 1))]
    errors, model = partial_out(V, y, seed=0)                     # warm-up (imports, page faults)
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        partial_out(V, y, seed=0)
        wall.append(time.perf_counter() - t0); cpu.append(time.process_time() - c0)
    tracemalloc.start()
    partial_out(V, y, seed=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    maxrss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # kilobytes on Linux
    print(json.dumps(dict(n=n, parents=parents, wall=float(np.median(wall)), cpu=float(np.median(cpu)),
                          wall_all=wall, peak_mb=peak / 2**20, maxrss_mb=maxrss_kb / 1024,
                          knots=[model.mean_.n_knots_, model.mad_.n_knots_])))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=float, nargs="+", default=[1e3, 1e4, 1e5], help="sample sizes")
    p.add_argument("--reps", type=int, default=5, help="timed runs per size (after one warm-up)")
    p.add_argument("--parents", type=int, default=1, help="number of inputs (extra ones are uniform noise)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child is not None:
        child(a.child, a.reps, a.parents, a.seed)
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg",
               PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    rows = []
    for n in a.sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(int(n)), "--reps", str(a.reps),
                              "--parents", str(a.parents), "--seed", str(a.seed)],
                             env=env, capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"Partial-Out, {a.parents} parent(s), median of {a.reps} runs (1 BLAS thread)")
    print(f"{'n':>8} {'wall s':>8} {'cpu s':>8} {'traced peak MB':>15} {'max RSS MB':>11} {'knots (mean, MAD)':>18}")
    for r in rows:
        print(f"{r['n']:>8} {r['wall']:>8.3f} {r['cpu']:>8.3f} {r['peak_mb']:>15.1f} {r['maxrss_mb']:>11.1f} "
              f"{str(tuple(r['knots'])):>18}")
    big = [r for r in rows if r["n"] == 100_000]
    if big and a.parents == 1:
        r = big[0]
        ok = r["wall"] < 1.0 and r["peak_mb"] < 500
        print(f"bar (n = 1e5: median < 1 s, peak < 500 MB): {'met' if ok else 'NOT met'} "
              f"(wall {r['wall']:.3f} s, cpu {r['cpu']:.3f} s, traced peak {r['peak_mb']:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
