#!/usr/bin/env python
"""Seconds of one `GRCI().fit` on `sample_dag(p + 1, n, seed)`, this checkout against another copy of the package,
measured in one run (before and after interleaved, so both see the same machine load).

    git archive main grci_lit | tar -x -C /tmp/before        # the "before" package, e.g. from the main branch
    python tools/bench_fit_speed.py --before /tmp/before     # p = 50 and p = 20 at n = 2000, median of 3 runs each
    python tools/bench_fit_speed.py --points 50:2000 --repeats 5 --stage skeleton
    python tools/bench_fit_speed.py --points 50:2000 --repeats 5 --variant paper  # GRCI(variant="paper")

Each fit runs in a fresh one-thread subprocess (OMP/OpenBLAS threads = 1); the script prints, per point and version,
the median CPU seconds (time.process_time of the fit) and wall seconds of `--repeats` runs, the 1-minute load
average, and the ratio before / after. Without `--before` only this checkout is timed. A benchmark, not a test:
the figures depend on the machine and its load.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
import grci_lit
from grci_lit.simulate import sample_dag
p, n, seed, stage, ci_test, variant = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
kw = {k: v for k, v in (("ci_test", ci_test), ("variant", variant)) if v != "default"}   # "default": the package's own default
d = sample_dag(p + 1, n, seed=seed)
c0, w0 = time.process_time(), time.perf_counter()
if stage == "fit":
    from grci_lit.grci import GRCI
    g = GRCI(verbose=False, **kw).fit(d.X, d.D)
    out = dict(edges=int(g.skeleton_.n_edges), stages={k: round(float(v), 2) for k, v in getattr(g, "timings_", {}).items()})
else:
    from grci_lit.skeleton import skeleton_stable
    s = skeleton_stable(d.X, ci_test=kw.get("ci_test", "mars")); out = dict(edges=s.n_edges, tests=s.n_tests)
c1, w1 = time.process_time(), time.perf_counter()
print(json.dumps(dict(cpu=c1 - c0, wall=w1 - w0, package=grci_lit.__file__, **out)))
"""

def run_once(package_dir, p, n, seed, stage, ci_test, variant):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg",
               PYTHONPATH=str(package_dir))
    out = subprocess.run([sys.executable, "-c", CHILD, str(p), str(n), str(seed), stage, ci_test, variant], env=env, cwd="/",
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, default=None, help="a directory holding the grci_lit package to compare against")
    ap.add_argument("--points", nargs="+", default=["50:2000", "20:2000"], help="p:n points (default 50:2000 20:2000)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per point and version (default 3; medians are printed)")
    ap.add_argument("--seed", type=int, default=0, help="seed of sample_dag (default 0)")
    ap.add_argument("--stage", choices=("fit", "skeleton"), default="fit", help="time GRCI().fit or skeleton_stable only")
    ap.add_argument("--ci-test", default="default", help="the CI test of the skeleton (default: GRCI's own, mars for --stage skeleton)")
    ap.add_argument("--variant", default="default", help="GRCI's variant, paper or default (default: GRCI's own)")
    a = ap.parse_args(argv)
    if a.before is not None and not (a.before / "grci_lit" / "__init__.py").exists():
        ap.error(f"--before {a.before} does not contain grci_lit/__init__.py")
    versions = {"after": ROOT} | ({"before": a.before.resolve()} if a.before is not None else {})
    for point in a.points:
        p, n = (int(v) for v in point.split(":"))
        runs = {k: [] for k in versions}
        for _ in range(a.repeats):
            for name, path in versions.items(): runs[name].append(run_once(path, p, n, a.seed, a.stage, a.ci_test, a.variant))
        med = {k: (statistics.median(r["cpu"] for r in v), statistics.median(r["wall"] for r in v)) for k, v in runs.items()}
        for name in versions:
            cpus = ", ".join(f"{r['cpu']:.2f}" for r in runs[name])
            stages = f"; stages of the first run (wall s) {runs[name][0]['stages']}" if runs[name][0].get("stages") else ""
            print(f"p = {p}, n = {n}, {a.stage} (ci_test {a.ci_test}, variant {a.variant}), {name:>6}: median CPU {med[name][0]:6.2f} s, median wall {med[name][1]:6.2f} s "
                  f"(runs CPU {cpus}; {runs[name][0]['package']}{stages})", flush=True)
        if "before" in med:
            print(f"p = {p}, n = {n}: before / after = {med['before'][0] / med['after'][0]:.2f} (CPU), "
                  f"{med['before'][1] / med['after'][1]:.2f} (wall); load average {os.getloadavg()[0]:.1f}")

if __name__ == "__main__": main()
