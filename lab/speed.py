"""Seconds of one `GRCI().fit` on `sample_dag(p + 1, n, seed)`, this checkout against another copy of the package,
measured in one run (before and after interleaved, so both see the same machine load). Each fit runs in a fresh
one-thread subprocess; the medians of `repeats` runs are printed with the load average. A benchmark, not a test.

    git archive main grci_lit | tar -x -C /tmp/before        # the "before" package, e.g. from the main branch
    python -m lab fit-speed --before /tmp/before --points 50:2000 --repeats 5

And the seconds of `bootstrap_support` (`support_cost`): the default fitted once on a data set of the paper's HNM
family, then refitted on resamples of its patients with a few joblib workers, stored with the machine's load."""
import json, os, statistics, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import grci_lit
from grci_lit.simulate import sample_dag
p, n, seed, stage, ci_test, variant = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
kw = {k: v for k, v in (("ci_test", ci_test), ("variant", variant)) if v != "default"}   # "default": the package's own default
import grci_lit.grci as grci
if hasattr(grci, "GRCISettings"):       # a package with one settings object: the variant's preset, its CI test changed
    s = grci.resolve_settings(kw.get("variant"))
    grci_kw = {"variant": s.replace(ci_test=kw["ci_test"]) if "ci_test" in kw else s}
else: grci_kw = kw                      # an earlier package took ci_test= beside variant=
d = sample_dag(p + 1, n, seed=seed)
c0, w0 = time.process_time(), time.perf_counter()
if stage == "fit":
    g = grci.GRCI(verbose=False, **grci_kw).fit(d.X, d.D)
    out = dict(edges=int(g.skeleton_.n_edges), stages={k: round(float(v), 2) for k, v in getattr(g, "timings_", {}).items()})
else:
    from grci_lit.skeleton import skeleton_stable
    s = skeleton_stable(d.X, ci_test=kw.get("ci_test", "mars")); out = dict(edges=s.n_edges, tests=s.n_tests)
c1, w1 = time.process_time(), time.perf_counter()
print(json.dumps(dict(cpu=c1 - c0, wall=w1 - w0, package=grci_lit.__file__, **out)))
"""


def run_once(package_dir, p, n, seed, stage="fit", ci_test="default", variant="default")->dict:
    "One fit (or skeleton) in a fresh one-thread process, importing grci_lit from `package_dir`: cpu, wall seconds and what it found."
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg",
               PYTHONPATH=str(package_dir))
    out = subprocess.run([sys.executable, "-c", CHILD, str(p), str(n), str(seed), stage, ci_test, variant], env=env, cwd="/",
                         capture_output=True, text=True)
    if out.returncode: raise RuntimeError(f"the timed fit failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fit_speed(
    points=((50, 2000), (20, 2000)), # (p, n) points
    repeats:int=3, # runs per point and version; medians are printed
    before=None, # a folder holding another grci_lit package to compare against (None: this checkout only)
    seed:int=0, # seed of sample_dag
    stage:str="fit", # "fit" (GRCI().fit) or "skeleton" (skeleton_stable only)
    ci_test:str="default", # the skeleton's CI test ("default": GRCI's own)
    variant:str="default", # GRCI's variant ("default": GRCI's own)
    verbose:bool=True,
)->list: # one dict per (point, version): p, n, version, median cpu and wall seconds, runs
    "Median CPU and wall seconds per point, this checkout (and `before`), interleaved."
    if before is not None and not (Path(before) / "grci_lit" / "__init__.py").exists():
        raise ValueError(f"before: {before} does not contain grci_lit/__init__.py")
    versions = {"after": ROOT} | ({"before": Path(before).resolve()} if before is not None else {})
    out = []
    for p, n in points:
        runs = {k: [] for k in versions}
        for _ in range(repeats):
            for name, path in versions.items(): runs[name].append(run_once(path, p, n, seed, stage, ci_test, variant))
        for name, r in runs.items():
            row = dict(p=p, n=n, version=name, cpu=statistics.median(x["cpu"] for x in r), wall=statistics.median(x["wall"] for x in r), runs=r)
            out.append(row)
            if verbose: print(f"p = {p}, n = {n}, {stage} ({variant}), {name:>6}: median CPU {row['cpu']:6.2f} s, wall {row['wall']:6.2f} s "
                              f"({r[0]['package']}); load {os.getloadavg()[0]:.1f}", flush=True)
    return out


def support_cost(
    sizes=((10, 1000), (20, 10_000)), # (variables, patients) of each data set
    n_boot:int=50, # refits
    n_jobs:int=2, # joblib workers of the refits
    seed:int=100, # seed of the data set (`sample_zoo("hnm", ...)`) and of the resamples
    store=None, # a `Store`: one record per size, n_boot and n_jobs (a new run replaces it)
    verbose:bool=True,
)->list: # one dict per size: p, n, n_boot, n_jobs, cores, fit_seconds, seconds (wall), load before and after
    "Wall seconds of `bootstrap_support(GRCI(seed=0).fit(X, D), X, D, n_boot)` with `n_jobs` workers, per size."
    import time, warnings
    import pandas as pd
    from grci_lit.bench.measure import package_commit
    from grci_lit.grci import TiedValuesWarning
    from grci_lit.simulate import sample_zoo
    from grci_lit.support import bootstrap_support
    from .settings import make_grci
    out = []
    for p, n in sizes:
        s = sample_zoo("hnm", p + 1, n, seed=seed)
        X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(p)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TiedValuesWarning)
            t = time.perf_counter(); g = make_grci("default", seed=0).fit(X, s.D); fit_s = time.perf_counter() - t
            load = os.getloadavg()[0]
            t = time.perf_counter(); bootstrap_support(g, X, s.D, n_boot=n_boot, seed=seed, n_jobs=n_jobs)
            seconds = time.perf_counter() - t
        row = dict(family="hnm", p=p, n=n, seed=seed, n_boot=n_boot, n_jobs=n_jobs, cores=os.cpu_count(),
                   fit_seconds=round(fit_s, 1), seconds=round(seconds, 1), load_before=round(load, 2),
                   load_after=round(os.getloadavg()[0], 2), commit=package_commit())
        if store is not None: store.put(f"hnm_p{p}_n{n}_s{seed}_b{n_boot}_j{n_jobs}", row)
        if verbose: print(row, flush=True)
        out.append(row)
    return out
