"""Leave one family out: the default judged on each zoo family with that family held out, and Find-Sink's rules
(`SINK_RULES`) on the ladder. Two measurements, one module:

- `lofo_table` reads the stores `zoo` (report seeds), `zoo_tuning` and `zoo_rankings_tuning` (tuning seeds) and fits
  nothing: per held-out family, the default minus the paper's algorithm on that family's report seeds, and what the
  protocol would have chosen from the other six families alone (a variant measured on the tuning seeds, then the
  default's shape rule or not), with its difference on the held-out family.
- `sink_rule_ladder` fits: on one zoo data set, each sink rule's errors through one Shapley model (the default's
  errors, and its errors given the true skeleton) beside the errors of Partial-Out on the true parents and the true
  errors, each scored against the ground-truth Shapley values (`zoo_sink_rules` store)."""
import time

import numpy as np
import pandas as pd

from grci_lit.extract import SINK_RULES
from grci_lit.grci import DEFAULT, mad_normalize
from grci_lit.partial_out import partial_out
from grci_lit.simulate import HELD_OUT_FAMILIES, ZOO_FAMILIES

from .settings import make_grci
from .store import Store
from .zoo import _one_model_rbo, zoo_data, zoo_name, zoo_results, zoo_table

RULE_RUNGS = ["recovered", "true_skeleton"]      # the rungs a sink rule changes
SHARED_RUNGS = ["true_parents", "true_errors"]   # the rungs it does not (computed once per data set)


def _diff(t)->str:
    "One paired row as `mean [low, high] wins/losses`."
    return f"{t['diff']:+.3f} [{t['ci_low']:+.3f}, {t['ci_high']:+.3f}] {int(t['wins'])}/{int(t['losses'])}"


SHAPE_RULE = f"window by shape {DEFAULT.smooth_ratio}"   # the default's ranking rule among the stored ranking rules


def _mean_gain(rows:pd.DataFrame, other:str, base:str)->float:
    "Mean paired RBO difference other - base over the data sets of `rows` (`zoo_results` rows)."
    w = rows.pivot_table(index=["family", "p", "n", "seed"], columns="label", values="rbo")
    return float((w[other] - w[base]).mean())


def lofo_table(
    report:pd.DataFrame, # `zoo_results` rows of the report seeds (labels "paper", "default" and the candidates)
    tuning:pd.DataFrame, # `zoo_results` rows of the tuning seeds (the paper and the candidates)
    rankings:pd.DataFrame=None, # `zoo_results` rows of the ranking rules on the tuning seeds ("one window", `SHAPE_RULE`)
    candidates=None, # the variants the protocol chooses among (None: every label in both but the paper and "default")
)->pd.DataFrame: # one row per held-out family: data sets, default - paper, the choice without the family, its difference
    """Per held-out family: the default minus the paper's algorithm there, and what the protocol would have chosen
    from the other six families alone: the variant with the largest mean gain over the paper's algorithm on their
    tuning seeds, then (with `rankings`) the default's shape rule in place of one window if it gains there too."""
    if candidates is None:
        candidates = sorted(set(report.label) & set(tuning.label) - {"paper", "default"})
    rows, chosen = [], []
    for fam in sorted(set(report.family)):
        here, rest = report[report.family == fam], tuning[tuning.family != fam]
        d = zoo_table(here, "default", "paper", by=()).iloc[0]
        gain = {c: _mean_gain(rest, c, "paper") for c in candidates}
        pick = max(gain, key=gain.get)
        shape = np.nan
        if rankings is not None and pick == "one window":
            shape = _mean_gain(rankings[rankings.family != fam], SHAPE_RULE, "one window")
            if shape > 0: pick = "default"
        c = zoo_table(here, pick, "paper", by=()).iloc[0]
        chosen.append(pd.concat([here[here.label == "paper"], here[here.label == pick].assign(label="chosen")]))
        rows.append({"held-out family": fam, "data sets": int(d["data_sets"]), "default - paper": _diff(d),
                     "default above paper": bool(d["ci_low"] > 0), "variant's tuning gain": round(max(gain.values()), 3),
                     "shape rule's tuning gain": round(shape, 4), "chosen without it": pick,
                     "chosen - paper": _diff(c), "chosen above paper": bool(c["ci_low"] > 0)})
    d, c = zoo_table(report, "default", "paper", by=()).iloc[0], zoo_table(pd.concat(chosen), "chosen", "paper", by=()).iloc[0]
    rows.append({"held-out family": "every family", "data sets": int(d["data_sets"]), "default - paper": _diff(d),
                 "default above paper": bool(d["ci_low"] > 0), "chosen without it": "each fold's",
                 "chosen - paper": _diff(c), "chosen above paper": bool(c["ci_low"] > 0)})
    return pd.DataFrame(rows)


def sink_rule_ladder(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables
    n:int, # rows
    seed:int, # the data set's seed (as `zoo_seed`)
    rules=None, # names of `SINK_RULES` (None: every one)
    n_truth:int=20_000, # rows of the ground-truth model
    store:Store=None, # where the rungs are kept: a rule stored for this data set is read back, not refitted
)->dict: # rule -> {recovered, true_skeleton, seconds}, plus true_parents and true_errors (RBO through one Shapley model)
    "One zoo data set's ladder for each sink rule: the default's errors under the rule, and given the true skeleton (and the two fits' CPU seconds)."
    rules = list(SINK_RULES) if rules is None else list(rules)
    name = zoo_name(family, p, n, seed)
    have = dict(store.get(name, {})) if store is not None else {}
    todo = [r for r in rules if r not in have] + ([] if all(k in have for k in SHARED_RUNGS) else [None])
    if todo:
        s, truth, X = zoo_data(family, p, n, seed, n_truth)
        rbo = lambda E: _one_model_rbo(E, s.D, truth, seed)
        for rule in todo:
            if rule is None:
                Z = mad_normalize(X)[0].to_numpy()
                parents = np.column_stack([partial_out(Z[:, np.flatnonzero(s.adj[:, j])], Z[:, j], additive=True)[0]
                                           if s.adj[:, j].any() else Z[:, j] for j in range(p)])
                have.update(true_parents=rbo(pd.DataFrame(parents, columns=X.columns)),
                            true_errors=rbo(pd.DataFrame(s.E, columns=X.columns)))
                continue
            fit = lambda skeleton=None: make_grci(DEFAULT.replace(sink_rule=rule), seed=0).fit(X, s.D, skeleton=skeleton).errors_
            t = time.process_time()
            errors = fit(), fit(s.adj | s.adj.T)
            have[rule] = dict(recovered=rbo(errors[0]), true_skeleton=rbo(errors[1]), seconds=time.process_time() - t)
        if store is not None: store.put(name, have)
    return {k: have[k] for k in rules + SHARED_RUNGS}


def sink_rule_rows(
    store, # a `Store` (or its name) of `sink_rule_ladder` records
)->pd.DataFrame: # one row per data set and rung: family, p, n, seed, rule, rung, rbo
    "The stored ladders as rows (the rungs shared by every rule under rule \"-\")."
    from .zoo import parse_name
    store = Store(store) if isinstance(store, str) else store
    rows = []
    for name, rec in sorted(store.load().items()):
        key = parse_name(name)
        for k, v in rec.items():
            if isinstance(v, dict): rows += [dict(key, rule=k, rung=r, rbo=x) for r, x in v.items() if r in RULE_RUNGS]
            else: rows.append(dict(key, rule="-", rung=k, rbo=v))
    return pd.DataFrame(rows)


def sink_rule_table(
    rows:pd.DataFrame, # `sink_rule_rows`
    families=None, # the families tabled and pooled (None: the zoo's; `HELD_OUT_FAMILIES` apart)
    pooled:str="every family", # the pooled row's name
)->pd.DataFrame: # per family and pooled: data sets, each rule's recovered and true-skeleton RBO, true parents, true errors
    "The ladder per sink rule: mean RBO per family and pooled over `families` (each data set counted once)."
    rows = rows[rows.family.isin(list(ZOO_FAMILIES if families is None else families))]
    wide = rows.assign(col=np.where(rows.rule == "-", rows.rung, rows.rule + ": " + rows.rung)).pivot_table(
        index=["family", "p", "n", "seed"], columns="col", values="rbo")
    cols = [f"{r}: {g}" for r in SINK_RULES for g in RULE_RUNGS if f"{r}: {g}" in wide] + SHARED_RUNGS
    t = wide.groupby("family")[cols].mean().round(3)
    t.loc[pooled] = wide[cols].mean().round(3)
    t.insert(0, "data sets", list(wide.groupby("family").size()) + [len(wide)])
    for r in [r for r in SINK_RULES if f"{r}: recovered" in wide and wide[f"{r}: recovered"].isna().any()]:
        got = wide[f"{r}: recovered"].notna()                                   # a rule measured on a subset: its count
        t[f"{r}: data sets"] = list(got.groupby(level="family").sum()) + [int(got.sum())]
    rec = rows[rows.rung == "recovered"].rename(columns={"rule": "label"}).assign(seconds=np.nan)
    for r in [r for r in SINK_RULES if r != "mi" and r in set(rec.label)]:    # each rule against the paper's, paired
        pair = rec[rec.label.isin(["mi", r])]
        per = zoo_table(pair, r, "mi", by=("family",))
        t[f"{r} - mi: recovered"] = [_diff(per.loc[f]) for f in t.index[:-1]] + [_diff(zoo_table(pair, r, "mi", by=()).iloc[0])]
    return t.rename_axis("family").reset_index()


def _paired(rec, rule, base="mi"):
    "`zoo_table`'s pooled row of rule - base on the recovered rungs `rec` (label, rbo, ... per data set)."
    return zoo_table(rec[rec.label.isin([rule, base])], rule, base, by=()).iloc[0]


def sink_rule_lofo(
    rows:pd.DataFrame, # `sink_rule_rows` (zoo families, and held-out families if measured)
    base:str="mi", # the default's rule, which a choice must beat
)->pd.DataFrame: # one row per fold: the rule chosen without the family, its gain there, and on the family
    """Find-Sink's rule chosen as the protocol chooses: with one zoo family held out, the rule of the largest mean
    paired gain over `base` on the other families' recovered errors (`base` itself if none gains), judged on the
    held-out family; then the rule chosen on every zoo family, judged on each family of `HELD_OUT_FAMILIES` measured."""
    rec = rows[rows.rung == "recovered"].rename(columns={"rule": "label"}).assign(seconds=np.nan)
    w = rec.pivot_table(index=["family", "p", "n", "seed"], columns="label", values="rbo")
    gains = w.drop(columns=base).sub(w[base], axis=0)
    fam = gains.index.get_level_values("family")
    zoo = [f for f in ZOO_FAMILIES if f in set(fam)]
    def choose(on):
        g = gains[fam.isin(on)].mean()
        return (g.idxmax(), g.max()) if g.max() > 0 else (base, 0.0)
    out = []
    for held in zoo + [f for f in HELD_OUT_FAMILIES if f in set(fam)]:
        pick, gain = choose([f for f in zoo if f != held])
        here = rec[rec.family == held]
        t = _paired(here, pick, base) if pick != base else None
        out.append({"held-out family": held, "held out of the zoo": held in HELD_OUT_FAMILIES,
                    "data sets": int(here.groupby(["p", "n", "seed"]).ngroups), "chosen": pick,
                    "its gain on the others": round(gain, 4),
                    f"held out: chosen - {base}": _diff(t) if t is not None else "+0.000 (the same rule)",
                    "diff": round(t["diff"], 4) if t is not None else 0.0,
                    "ci_low": round(t["ci_low"], 4) if t is not None else 0.0,
                    "ci_high": round(t["ci_high"], 4) if t is not None else 0.0})
    return pd.DataFrame(out)

