"""The tables of the lab that a reader opens, written into `results/` from the lab's records: the zoo's headline (the
results page and chapter 13), the zoo on a second draw of fresh seeds, the zoo's ladder, the default with each family
held out, the ladder of each sink rule and each of the default's changes undone alone (chapter 13), and how often the default's top root cause is right against its
bootstrap support (chapter support). Each is small, generated, and its provenance is the runs of the stores it reads
(`tools/make_results.py --report` gathers them into results/provenance.json)."""
from pathlib import Path

import pandas as pd

from grci_lit.bench.report import zoo_headline
from grci_lit.support import reliability_table

from .settings import REPORT_SEEDS, SECOND_DRAW, ZOO_VARIANTS
from .store import LAB, Store
from .lofo import lofo_table, sink_rule_lofo, sink_rule_rows, sink_rule_table
from .undo import undo_table
from .zoo import ladder_rows, parse_name, zoo_results, zoo_table

RESULTS = LAB.parent / "results"
RUNGS = ["recovered", "true_skeleton", "true_parents", "true_errors"]


def _diff(t)->list:
    return [f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}] {w}/{l}" for m, lo, hi, w, l in zip(t["diff"], t.ci_low, t.ci_high, t.wins, t.losses)]


def second_draw_table(report:pd.DataFrame, again:pd.DataFrame)->pd.DataFrame:
    "Default minus the paper's algorithm per family on the report seeds, on a second draw, and on both (the families of the second draw)."
    first = report[report.family.isin(set(again.family)) & report.label.isin(["paper", "default"])]
    draws = {"report seeds": first, f"seeds {SECOND_DRAW[0]}-{SECOND_DRAW[-1]}": again, "both": pd.concat([first, again])}
    t = {k: zoo_table(R, by=("family",)) for k, R in draws.items()}
    return pd.DataFrame({"data sets (each draw)": t["report seeds"].data_sets, **{k: _diff(v) for k, v in t.items()}},
                        index=t["both"].index).rename_axis("family").reset_index()


def ladder_table(rows:pd.DataFrame, families)->pd.DataFrame:
    "Per family and pooled: each rung's mean RBO (each set of errors through one Shapley model) and the data sets."
    lad = rows.pivot_table(index="family", columns="label", values="rbo")[RUNGS].rename_axis(columns=None)
    lad = lad.loc[[f for f in families if f in lad.index]]
    lad.loc["every family"] = rows.pivot_table(index=["family", "p", "n", "seed"], columns="label", values="rbo")[RUNGS].mean()
    counts = rows[rows.label == "recovered"].groupby("family").size()
    lad.insert(0, "data sets", [int(counts.get(f, counts.sum())) for f in lad.index])
    return lad.round(3).rename_axis("family").reset_index()


def support_table(
    records:dict, # name -> record of the store support_calibration (`zoo_support`)
    families, # the families, in the order of the table
    bins:int=5, # equal-width bins of support
)->pd.DataFrame:
    "Per family and for every family: diseased patients binned by the support of their top root cause, the share right."
    rows = pd.concat([pd.DataFrame({k: r[k] for k in ("support", "patients", "right")}).assign(**parse_name(name),
                                                                                                n_boot=r["n_boot"])
                      for name, r in records.items()])
    parts = [(f, rows[rows.family == f]) for f in families if f in set(rows.family)] + [("every family", rows)]
    out = []
    for family, R in parts:
        t = reliability_table(R.groupby("support")[["patients", "right"]].sum().reset_index(), bins)
        sizes = sorted(set(zip(R.p, R.n)))
        out.append(t.assign(family=family, data_sets=len(R.drop_duplicates(["family", "p", "n", "seed"])),
                            sizes=" ".join(f"{p}x{n}" for p, n in sizes), seeds=f"{R.seed.min()}-{R.seed.max()}",
                            n_boot="/".join(map(str, sorted(set(R.n_boot))))))
    cols = ["family", "data_sets", "sizes", "seeds", "n_boot", "low", "high", "patients", "right", "accuracy", "mean_support"]
    return pd.concat(out)[cols].round(4).reset_index(drop=True)


def write_tables(records=None, out=None)->dict:
    "Write the lab's tables into `out` (results/) from the stores in `records` (lab/records); returns name -> table."
    from grci_lit.simulate import ZOO_FAMILIES
    out = Path(out) if out is not None else RESULTS
    store = lambda name: Store(name, records)
    tables = {}
    report = zoo_results(store("zoo"), labels=list(ZOO_VARIANTS))
    if len(report):
        tables["zoo_headline"] = zoo_headline(report)
        again = zoo_results(store("zoo_replicate"), labels=["paper", "default"])
        if len(again): tables["zoo_second_draw"] = second_draw_table(report, again)
    tuning = zoo_results(store("zoo_tuning"))
    rankings = zoo_results(store("zoo_rankings_tuning"))
    if len(report) and len(tuning): tables["zoo_lofo"] = lofo_table(report, tuning, rankings if len(rankings) else None)
    rules = sink_rule_rows(store("zoo_sink_rules"))
    if len(rules):
        from grci_lit.simulate import HELD_OUT_FAMILIES
        tables["zoo_sink_rules"], tables["zoo_sink_rule_lofo"] = sink_rule_table(rules), sink_rule_lofo(rules)
        if rules.family.isin(list(HELD_OUT_FAMILIES)).any():
            tables["held_out_sink_rules"] = sink_rule_table(rules, HELD_OUT_FAMILIES, "both held-out families")
    rungs = ladder_rows(store("zoo_tuning"))
    if len(rungs): tables["zoo_ladder"] = ladder_table(rungs, list(ZOO_FAMILIES))
    undone = zoo_results(store("zoo_undo"))
    if len(undone):
        from grci_lit.simulate import HELD_OUT_FAMILIES
        tables["zoo_undo"] = undo_table(undone, held_out=list(HELD_OUT_FAMILIES))
    calibration = store("support_calibration").load()
    if calibration: tables["support_calibration"] = support_table(calibration, list(ZOO_FAMILIES))
    out.mkdir(parents=True, exist_ok=True)
    for name, t in tables.items(): t.to_csv(out / f"{name}.csv", index=False)
    return tables
