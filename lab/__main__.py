"""The lab's one command: `python -m lab STAGE ...` runs (or resumes) one stage of the research beyond the paper into
its store under lab/records, or writes the lab's tables into results/. `python -m lab --help` lists the stages,
`python -m lab STAGE --help` their options. Every stage reads back what its store already holds."""
import argparse, sys, time, warnings
from pathlib import Path

from .settings import REMEDIES, REPORT_SEEDS, TUNING_VARIANTS, ZOO_SIZES, ZOO_VARIANTS
from .store import CACHE, RECORDS, Store


def _sizes(sizes): return [tuple(map(int, s.split("x"))) for s in sizes]


def _families():
    from grci_lit.simulate import ZOO_FAMILIES
    return list(ZOO_FAMILIES)


def stage_zoo(a):
    "Each variant on zoo data sets (`zoo_seed`), and with --ladder the ladder of GRCI()'s errors (`zoo_ladder`)."
    from .zoo import zoo_ladder, zoo_name, zoo_seed
    known = dict(TUNING_VARIANTS, **ZOO_VARIANTS)
    bad = [v for v in a.variants if v not in known]
    if bad: raise SystemExit(f"lab zoo: unknown variant(s) {bad}; known: {list(known)}")
    variants, store = {k: known[k] for k in a.variants}, Store(a.store, a.records)
    store.record_run(modules=["lab.zoo"])
    for p, n in _sizes(a.sizes):
        seeds = range(a.seeds[0], a.seeds[1], a.step)
        for seed in (reversed(seeds) if a.reverse else seeds):
            for family in a.families:
                t = time.perf_counter()
                if a.reverse and set(variants) <= set(store.get(zoo_name(family, p, n, seed), {})): continue
                res = zoo_seed(family, p, n, seed, variants, n_truth=a.n_truth, store=store)
                if a.ladder:
                    name, stored = zoo_name(family, p, n, seed), store.get(zoo_name(family, p, n, seed))
                    if "ladder" not in stored: store.put(name, dict(stored, ladder=zoo_ladder(family, p, n, seed, n_truth=a.n_truth)))
                print(f"{family} {p}x{n} seed {seed}: " + ", ".join(f"{k} {v['rbo']:.3f}" for k, v in res.items())
                      + f" ({time.perf_counter() - t:.0f} s)", flush=True)


def stage_lofo(a):
    "Leave one family out: the default per held-out family (from the stores zoo, zoo_tuning) and each sink rule's ladder (`sink_rule_ladder`)."
    import pandas as pd
    from .lofo import lofo_table, sink_rule_ladder, sink_rule_rows, sink_rule_table
    from .zoo import zoo_results
    store = Store(a.store, a.records)
    store.record_run(modules=["lab.lofo", "lab.zoo"])
    for p, n in _sizes(a.sizes):
        for seed in range(*a.seeds):
            for family in a.families:
                t = time.perf_counter()
                res = sink_rule_ladder(family, p, n, seed, a.rules, n_truth=a.n_truth, store=store)
                print(f"{family} {p}x{n} seed {seed}: " + ", ".join(f"{k} {v['recovered']:.3f}" for k, v in res.items()
                      if isinstance(v, dict)) + f", true errors {res['true_errors']:.3f} ({time.perf_counter() - t:.0f} s)", flush=True)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        report, tuning = zoo_results(Store("zoo", a.records)), zoo_results(Store("zoo_tuning", a.records))
        rankings = zoo_results(Store("zoo_rankings_tuning", a.records))
        if len(report) and len(tuning): print(lofo_table(report, tuning, rankings if len(rankings) else None).to_string(index=False))
        print(sink_rule_table(sink_rule_rows(store)).to_string(index=False))


def stage_undo(a):
    "Each of the default's changes undone alone, on the zoo's report seeds and the held-out families (`undo_seed`, `undo_table`)."
    import pandas as pd
    from grci_lit.simulate import HELD_OUT_FAMILIES
    from .undo import undo_decisions, undo_seed, undo_table
    from .zoo import zoo_results
    store, reuse = Store(a.store, a.records), Store("zoo", a.records)
    store.record_run(modules=["lab.undo", "lab.zoo"])
    for p, n in _sizes(a.sizes):
        for seed in range(*a.seeds):
            for family in a.families:
                t = time.perf_counter()
                res = undo_seed(family, p, n, seed, store, reuse=reuse, n_truth=a.n_truth)
                print(f"{family} {p}x{n} seed {seed}: default {res['default']['rbo']:.3f}, paper {res['paper']['rbo']:.3f}, "
                      + ", ".join(f"{k} {v['rbo'] - res['default']['rbo']:+.3f}" for k, v in res.items() if k not in ("paper", "default"))
                      + f" ({time.perf_counter() - t:.0f} s)", flush=True)
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 60):
        table = undo_table(zoo_results(store), held_out=list(HELD_OUT_FAMILIES))
        print(table[["change", "family", "paired", "seconds_ratio"]].to_string(index=False))
        print(undo_decisions(table).to_string(index=False))


def stage_rankings(a):
    "GRCI()'s fit of each zoo data set ranked under every rule of `RANKING_RULES` (`zoo_rankings`)."
    from .zoo import RANKING_RULES, zoo_rankings
    store = Store(a.store, a.records)
    store.record_run(modules=["lab.zoo"])
    jobs = [(f, p, n, s) for f in a.families for p, n in _sizes(a.sizes) for s in range(*a.seeds)]
    for family, p, n, seed in jobs[a.part[0]::a.part[1]]:
        t = time.perf_counter()
        res = zoo_rankings(family, p, n, seed, RANKING_RULES, n_truth=a.n_truth, store=store, cache=Path(a.cache) / a.store)
        print(f"{family} {p}x{n} seed {seed}: " + ", ".join(f"{k} {v['rbo']:.3f}" for k, v in res.items())
              + f" ({time.perf_counter() - t:.0f} s)", flush=True)


def stage_dowhy(a):
    "DoWhy given the true graph beside GRCI() on zoo data sets (`dowhy_seed`; DoWhy in an environment of its own)."
    from .zoo import dowhy_seed
    store = Store(a.store, a.records)
    store.record_run(modules=["lab.zoo"])
    for seed in range(*a.seeds):
        for family in a.families:
            r = dowhy_seed(family, a.p, a.n, seed, patients=a.patients, n_truth=a.n_truth, store=store)
            print(f"{family} {a.p}x{a.n} seed {seed}: " + ", ".join(f"{k} {v['rbo']:.3f}" for k, v in r.items() if isinstance(v, dict)), flush=True)


def stage_remedies(a):
    "Remedies of `REMEDIES` on PBC or on the paper's simulator, seed by seed (`measure`)."
    from .remedies import measure, paired_summary, stability_summary
    store = Store(a.store, a.records)
    store.record_run(modules=["lab.remedies"])
    seeds = list(range(*a.seeds))
    if a.kind == "pbc":
        from grci_lit.datasets import load_pbc
        X, D = load_pbc()
        print(stability_summary(measure("pbc", seeds, tuple(a.remedies), store, X=X, D=D)).round(3).to_string())
    else:
        res = measure("simulated", seeds, tuple(a.remedies), store, p=a.p, n=a.n, pnl=a.pnl, n_truth=a.n_truth)
        print(paired_summary(res, baseline=a.remedies[0]).round(3).to_string())


def stage_grid(a):
    "One experiment of `EXPERIMENT_ROWS` on cells of the paper's grid, one record per (cell, seed) (`run_rows`)."
    from .grid import EXPERIMENT_ROWS, run_rows
    one_dag, cells, seeds, describe = EXPERIMENT_ROWS[a.experiment]
    store = Store(a.store or a.experiment, a.records)
    store.record_run(modules=["lab.grid"])
    run_rows(one_dag, a.cells or cells, a.seeds or seeds, store, describe, n_truth=a.n_truth)


def stage_real_bootstraps(a):
    "The paper's algorithm and the default on the bootstraps of PBC and Pima (the harness's `real_jobs`), one record per job."
    import pandas as pd
    from grci_lit.bench.runner import real_jobs, run_experiment
    store = Store(a.store, a.records)
    store.record_run(modules=["grci_lit.bench.runner"])
    jobs = [j for b in range(a.bootstraps) for v in a.variants for j in real_jobs(tuple(a.datasets), 1, ("grci",), start=b, variant=v)]
    cache = Path(a.cache) / a.store
    res = run_experiment(jobs, cache, n_jobs=a.n_jobs, progress=False)             # the runner's own resumable cache
    store.update({f.stem: __import__("json").loads(f.read_text()) for f in sorted((cache / "real").glob("*.json"))})
    res["variant"] = res["variant"].fillna("paper") if "variant" in res else "paper"   # the paper's rows carry no variant field
    print(res.groupby(["dataset", "variant"]).rbo.agg(["count", "mean"]).round(3).to_string())


def stage_support(a):
    "How often GRCI()'s top root cause is right against its bootstrap support, on zoo data sets (`zoo_support`)."
    from .zoo import zoo_support
    store = Store(a.store, a.records)
    store.record_run(modules=["lab.zoo"], n_boot=a.n_boot, resample=a.resample)
    for p, n in _sizes(a.sizes):
        for seed in range(*a.seeds):
            for family in a.families:
                t = time.perf_counter()
                r = zoo_support(family, p, n, seed, n_boot=a.n_boot, resample=a.resample, n_truth=a.n_truth, store=store)
                print(f"{family} {p}x{n} seed {seed}: {sum(r['right'])} of {sum(r['patients'])} top root causes right; "
                      f"{r['seconds']:.0f} s CPU ({time.perf_counter() - t:.0f} s)", flush=True)


def stage_support_cost(a):
    "Wall seconds of bootstrap_support (the default refitted --n-boot times with --n-jobs workers) per size (`support_cost`)."
    from .speed import support_cost
    store = Store(a.store, a.records)
    store.record_run(modules=["grci_lit.support"])
    support_cost(_sizes(a.sizes), a.n_boot, a.n_jobs, a.seed, store)


def stage_fit_speed(a):
    "Seconds of GRCI().fit, this checkout (and another copy of the package), in fresh one-thread processes."
    from .speed import fit_speed
    fit_speed([tuple(map(int, p.split(":"))) for p in a.points], a.repeats, a.before, a.seed, a.what, a.ci_test, a.variant)


SCALE_RUNS = {  # chapter 14's stored measurements: file under lab/records/scale -> the harness calls that (re)write it
    "stages": [("measure_scale", dict(points=[(50, 2000)], repeats=5, label="default")),
               ("measure_scale", dict(points=[(20, 2000), (20, 8000), (20, 32000), (20, 100_000), (50, 100_000), (20, 300_000),
                                              (50, 300_000), (20, 1_000_000), (50, 1_000_000)], label="default")),
               ("measure_scale", dict(points=[(20, 2000), (20, 8000), (20, 32000), (50, 2000)], settings={"variant": "paper"}, label="paper"))],
    "accuracy": [("measure_accuracy", dict(seeds=range(10), p=20))],
    "accuracy_p50": [("measure_accuracy", dict(seeds=range(10), p=50, sizes=(2000,)))],
    "accuracy_1m": [("measure_accuracy", dict(seeds=range(8), p=20, sizes=(100_000, 1_000_000), settings={"default": {}}))],
    "cluster": [("cluster_record", dict(n=10_000_000, p=20, workers=2))],
}


def stage_scale(a):
    "Chapter 14's stored measurements (the harness's `measure_scale`, `measure_accuracy`, `cluster_record`) into lab/records/scale."
    import grci_lit.bench.measure as measure
    path = Path(a.records) / "scale" / f"{a.what}.json"
    for fn, kw in SCALE_RUNS[a.what]:
        if fn == "cluster_record": measure.save_records(measure.load_records(path) + [measure.cluster_record(**kw)], path)
        else: getattr(measure, fn)(**kw, path=path)


def stage_tables(a):
    "The lab's tables a reader opens, into results/ (`write_tables`); then `python tools/make_results.py --report`."
    from .tables import write_tables
    for name, t in write_tables(a.records, a.results).items(): print(f"wrote {Path(a.results or 'results') / (name + '.csv')} ({len(t)} rows)")


def build_parser()->argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m lab", description=__doc__)
    ap.add_argument("--records", default=str(RECORDS), help="folder of the stores (default lab/records)")
    ap.add_argument("--cache", default=str(CACHE), help="folder of recomputable intermediates (default lab/cache, git-ignored)")
    st = ap.add_subparsers(dest="stage", metavar="STAGE", required=True)
    fams, seeds = _families(), [REPORT_SEEDS[0], REPORT_SEEDS[-1] + 1]
    from grci_lit.simulate import HELD_OUT_FAMILIES
    held = list(HELD_OUT_FAMILIES)
    def zoo_args(s, store):
        s.add_argument("--families", nargs="+", default=fams, choices=fams)
        s.add_argument("--sizes", nargs="+", default=[f"{p}x{n}" for p, n in ZOO_SIZES], help="variables x rows, e.g. 30x2000")
        s.add_argument("--seeds", nargs=2, type=int, default=seeds, help="first and one-past-last seed (default: the report seeds)")
        s.add_argument("--n-truth", type=int, default=50_000, help="rows of the ground-truth model (default 50000)")
        s.add_argument("--store", default=store, help=f"the store under --records (default {store})")
    z = st.add_parser("zoo", help=stage_zoo.__doc__); zoo_args(z, "zoo"); z.set_defaults(run=stage_zoo)
    z.add_argument("--variants", nargs="+", default=list(ZOO_VARIANTS), help="labels of ZOO_VARIANTS or TUNING_VARIANTS")
    z.add_argument("--ladder", action="store_true", help="also store the ladder of GRCI()'s errors under 'ladder'")
    z.add_argument("--step", type=int, default=1, help="every step-th seed (to split a run between processes)")
    z.add_argument("--reverse", action="store_true", help="seeds from the last down (a second process meets the first)")
    lo = st.add_parser("lofo", help=stage_lofo.__doc__); lo.set_defaults(run=stage_lofo)
    lo.add_argument("--families", nargs="+", default=fams, choices=fams + held,
                    help="zoo families (the default) or the held-out families no choice saw, tabled apart")
    lo.add_argument("--sizes", nargs="+", default=["10x1000"], help="variables x rows (default 10x1000)")
    lo.add_argument("--seeds", nargs=2, type=int, default=[200, 204], help="first and one-past-last seed (default 200 204)")
    lo.add_argument("--rules", nargs="+", default=None, help="names of SINK_RULES (default: every one)")
    lo.add_argument("--n-truth", type=int, default=20_000, help="rows of the ground-truth model (default 20000)")
    lo.add_argument("--store", default="zoo_sink_rules", help="the store under --records (default zoo_sink_rules)")
    un = st.add_parser("undo", help=stage_undo.__doc__); un.set_defaults(run=stage_undo)
    un.add_argument("--families", nargs="+", default=fams + held, choices=fams + held)
    un.add_argument("--sizes", nargs="+", default=["10x1000"], help="variables x rows (default 10x1000)")
    un.add_argument("--seeds", nargs=2, type=int, default=[REPORT_SEEDS[0], REPORT_SEEDS[0] + 8],
                    help=f"first and one-past-last seed (default: the first eight report seeds, {REPORT_SEEDS[0]} {REPORT_SEEDS[0] + 8})")
    un.add_argument("--n-truth", type=int, default=50_000, help="rows of the ground-truth model (default 50000, as the store zoo)")
    un.add_argument("--store", default="zoo_undo", help="the store under --records (default zoo_undo)")
    r = st.add_parser("rankings", help=stage_rankings.__doc__); zoo_args(r, "zoo_rankings_report"); r.set_defaults(run=stage_rankings)
    r.add_argument("--part", nargs=2, type=int, default=[0, 1], metavar=("K", "OF"), help="the K-th of OF interleaved shares")
    d = st.add_parser("dowhy", help=stage_dowhy.__doc__); d.set_defaults(run=stage_dowhy)
    d.add_argument("--families", nargs="+", default=fams, choices=fams)
    d.add_argument("--p", type=int, default=10); d.add_argument("--n", type=int, default=1000)
    d.add_argument("--seeds", nargs=2, type=int, default=[100, 105]); d.add_argument("--patients", type=int, default=30)
    d.add_argument("--n-truth", type=int, default=50_000); d.add_argument("--store", default="zoo_dowhy")
    m = st.add_parser("remedies", help=stage_remedies.__doc__); m.set_defaults(run=stage_remedies)
    m.add_argument("kind", choices=["pbc", "simulated"])
    m.add_argument("--remedies", nargs="+", default=["paper", "draws5"], choices=list(REMEDIES), help="the first is the baseline")
    m.add_argument("--seeds", nargs=2, type=int, default=[0, 20]); m.add_argument("--p", type=int, default=10)
    m.add_argument("--n", type=int, default=1000); m.add_argument("--pnl", action="store_true")
    m.add_argument("--n-truth", type=int, default=50_000, help="simulated: rows of the ground truth (default 50000)")
    m.add_argument("--store", default="remedies")
    from .grid import EXPERIMENT_ROWS
    g = st.add_parser("grid", help=stage_grid.__doc__); g.set_defaults(run=stage_grid)
    g.add_argument("experiment", choices=list(EXPERIMENT_ROWS))
    g.add_argument("--cells", nargs="+", default=None, help="p:n or generator:p:n (p counts D)")
    g.add_argument("--seeds", nargs=2, type=int, default=None, help="first and one-past-last seed")
    g.add_argument("--store", default=None, help="the store (default: the experiment's name)")
    g.add_argument("--n-truth", type=int, default=None, help="rows of the ground truth (default 50000)")
    b = st.add_parser("real-bootstraps", help=stage_real_bootstraps.__doc__); b.set_defaults(run=stage_real_bootstraps)
    b.add_argument("--datasets", nargs="+", default=["pbc", "pima"], choices=["pbc", "pima"])
    b.add_argument("--bootstraps", type=int, default=100)
    b.add_argument("--variants", nargs="+", default=["paper", "default"], choices=["paper", "default"])
    b.add_argument("--n-jobs", type=int, default=1); b.add_argument("--store", default="real_bootstraps")
    u = st.add_parser("support", help=stage_support.__doc__); u.set_defaults(run=stage_support)
    u.add_argument("--families", nargs="+", default=fams, choices=fams)
    u.add_argument("--sizes", nargs="+", default=["10x1000"], help="variables x rows (default 10x1000)")
    u.add_argument("--seeds", nargs=2, type=int, default=[REPORT_SEEDS[0], REPORT_SEEDS[0] + 6],
                   help=f"first and one-past-last seed (default: the first six report seeds, {REPORT_SEEDS[0]} {REPORT_SEEDS[0] + 6})")
    u.add_argument("--n-truth", type=int, default=50_000, help="rows of the ground-truth model (default 50000)")
    u.add_argument("--store", default="support_calibration", help="the store under --records (default support_calibration)")
    u.add_argument("--n-boot", type=int, default=20, help="refits per data set (default 20)")
    u.add_argument("--resample", default="distinct", choices=["distinct", "bootstrap", "half"])
    c = st.add_parser("support-cost", help=stage_support_cost.__doc__); c.set_defaults(run=stage_support_cost)
    c.add_argument("--sizes", nargs="+", default=["10x1000", "20x10000"], help="variables x patients")
    c.add_argument("--n-boot", type=int, default=50); c.add_argument("--n-jobs", type=int, default=2)
    c.add_argument("--seed", type=int, default=100); c.add_argument("--store", default="support_cost")
    f = st.add_parser("fit-speed", help=stage_fit_speed.__doc__); f.set_defaults(run=stage_fit_speed)
    f.add_argument("--before", type=Path, default=None); f.add_argument("--points", nargs="+", default=["50:2000", "20:2000"])
    f.add_argument("--repeats", type=int, default=3); f.add_argument("--seed", type=int, default=0)
    f.add_argument("--what", choices=["fit", "skeleton"], default="fit")
    f.add_argument("--ci-test", default="default"); f.add_argument("--variant", default="default")
    s = st.add_parser("scale", help=stage_scale.__doc__); s.set_defaults(run=stage_scale)
    s.add_argument("what", choices=list(SCALE_RUNS))
    t = st.add_parser("tables", help=stage_tables.__doc__); t.set_defaults(run=stage_tables)
    t.add_argument("--results", default=None, help="folder of the tables (default results/)")
    return ap


def main(argv=None)->int:
    a = build_parser().parse_args(argv)
    warnings.simplefilter("ignore")
    a.run(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
