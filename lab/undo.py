"""Each of the default's changes to the paper's algorithm undone alone, judged family by family: the seven zoo
families' report seeds (each a fold of leave-one-family-out: no choice was made on these seeds) and the held-out
families of `HELD_OUT_FAMILIES` (no choice saw those generators at all). On every data set the default, the paper's
algorithm and each undone change are fitted and scored against the ground-truth Shapley values (`zoo_seed`), paired by
data set; the default's and the paper's fits already in the store `zoo` (same data set, same settings, same truth)
are read from there, not refitted (`zoo_undo` store)."""
import numpy as np
import pandas as pd

from grci_lit.grci import DEFAULT, PAPER

from .settings import settings_of
from .store import Store
from .zoo import zoo_name, zoo_results, zoo_seed, zoo_table

UNDO_FIELDS = {  # a change of the default (as `settings_table()` lists them) -> the settings that undo it together
    "paper's skeleton (MARS test on every row)": ("ci_test", "max_rows", "large_rows"),
    "random tie-break": ("tie_seed",),
    "Dirichlet projections": ("projection", "projection_seed"),
    "one Shapley model": ("shapley_fits",),
    "paper's ranking (raw Shapley values)": ("rank_by", "smooth_shape"),
    "one window (no shape rule)": ("smooth_shape",),
    "paper's pair ladder (k = 1)": ("pair_k_ladder",),
}
UNDO_VARIANTS = {"paper": "paper", "default": "default",  # label -> settings: the default with one change set back to the paper's
                 **{label: DEFAULT.replace(**{f: PAPER[f] for f in fields}) for label, fields in UNDO_FIELDS.items()}}
SLOWER = 1.5   # a change whose undoing makes the fit this many times slower (pooled median seconds ratio) is a speed choice


def undo_seed(
    family:str, # a key of `ZOO_FAMILIES` or `HELD_OUT_FAMILIES`
    p:int, # variables
    n:int, # rows
    seed:int, # the data set's seed
    store:Store, # the `zoo_undo` store
    reuse:Store=None, # a store (`zoo`) whose "paper" and "default" entries of the same data set are read, not refitted
    n_truth:int=50_000, # rows of the ground-truth model (the `zoo` store's 50 000, so that its fits pair with these)
)->dict: # label -> {rbo, seconds, recall, precision, settings}
    "One data set: the default, the paper's algorithm and each change undone (`UNDO_VARIANTS`), scored as `zoo_seed`."
    name = zoo_name(family, p, n, seed)
    if reuse is not None and n_truth == 50_000:
        have, old = dict(store.get(name, {})), reuse.get(name, {})
        got = {k: old[k] for k in ("paper", "default") if k not in have and old.get(k, {}).get("settings") == settings_of(k)}
        if got: store.put(name, dict(have, **got))
    return zoo_seed(family, p, n, seed, UNDO_VARIANTS, n_truth=n_truth, store=store)


def _row(t)->str: return f"{t['diff']:+.3f} [{t['ci_low']:+.3f}, {t['ci_high']:+.3f}] {int(t['wins'])}/{int(t['losses'])}"


def undo_table(
    results:pd.DataFrame, # `zoo_results` rows of the `zoo_undo` store
    held_out=(), # the held-out families (their rows come after the zoo's, and a change is judged on them apart)
)->pd.DataFrame: # one row per change undone and family (and the zoo pooled): undone - default, interval, wins/losses
    "Per change and family: the default with that change undone minus the default, paired by data set (and default - paper)."
    rows = []
    fams = [f for f in dict.fromkeys(results.family) if f not in held_out] + [f for f in held_out if f in set(results.family)]
    for label in ["paper", *UNDO_FIELDS]:
        other, base = ("default", "paper") if label == "paper" else (label, "default")
        pooled = ["seven zoo families"] if (~results.family.isin(held_out)).any() else []
        for fam in fams + pooled:
            R = results[~results.family.isin(held_out)] if fam == "seven zoo families" else results[results.family == fam]
            t = zoo_table(R, other, base, by=()).iloc[0]
            rows.append({"change": "default - paper" if label == "paper" else label, "family": fam,
                         "held out": fam in held_out, "data sets": int(t["data_sets"]), "diff": round(t["diff"], 4),
                         "ci_low": round(t["ci_low"], 4), "ci_high": round(t["ci_high"], 4), "wins": int(t["wins"]),
                         "losses": int(t["losses"]), "seconds_ratio": round(t["seconds_ratio"], 3), "paired": _row(t)})
    return pd.DataFrame(rows)


def undo_decisions(
    table:pd.DataFrame, # `undo_table`
)->pd.DataFrame: # per change: folds where keeping it gains (undoing loses), folds where undoing gains beyond its interval, verdict
    """The protocol's rule per change: a change stays only if keeping it gains on the held-out family in most folds
    (undone - default below zero) and loses on none beyond its interval (undone - default with its interval above zero).
    The folds are the seven zoo families and the held-out families, each held out in its turn. A change the rule
    does not keep is "a speed choice" when undoing it makes the fit `SLOWER` times slower, "no effect" when undoing it
    changes no data set's RBO."""
    out = []
    for change, T in table[(table.change != "default - paper") & (table.family != "seven zoo families")].groupby("change", sort=False):
        gains, beyond = int((T["diff"] < 0).sum()), T.loc[T.ci_low > 0, "family"].tolist()
        keep = gains > len(T) / 2 and not beyond
        pooled = table[(table.change == change) & (table.family == "seven zoo families")]
        speed = not keep and len(pooled) and pooled.seconds_ratio.iloc[0] > SLOWER
        inert = bool((T["diff"].abs() < 1e-9).all())
        out.append({"change": change, "folds": len(T), "keeping it gains in": gains, "undoing gains beyond its interval in": ", ".join(beyond) or "none",
                    "verdict": "keep" if keep else ("a speed choice" if speed else "no effect" if inert else "undo"),
                    "held-out families": "; ".join(f"{r.family} {r.paired}" for r in T[T["held out"]].itertuples())})
    return pd.DataFrame(out)
