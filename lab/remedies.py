"""The first measurements on the way to the default, on the paper's own simulator and on PBC: remedies for one fit's
randomness (`REMEDIES`), fitted seed by seed, paired against the paper's algorithm. Each seed's results are one record
of a `Store` (`pbc_s<seed>`, `sim_[pnl_]p<p>_n<n>_s<seed>`), so a run resumes and a remedy can be added later."""
import time, warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from grci_lit.grci import TiedValuesWarning, mad_normalize
from grci_lit.metrics import ground_truth_shapley, rbo_shapley, t_ci
from grci_lit.simulate import sample_dag
from grci_lit.skeleton import skeleton_stable
from grci_lit.stability import _top_labels, top1_agreement

from .settings import GRID, REMEDIES, make_grci
from .store import Store


def fit_remedy(
    X, # n x p data, as for `GRCI.fit`
    D, # n binary diagnoses
    remedy:str, # a name of `REMEDIES`
    seed:int, # seed of the (first) fit; fit j of an average uses seed + 10000 j
    skeleton=None, # a skeleton for every fit (see `GRCI.fit`)
)->tuple: # (n x p scores as the variant ranks them (`GRCI.ranking_scores`), the first fit, seconds of its fits without a given skeleton's search)
    "Fit one remedy: GRCI with its settings, its ranking scores averaged over its number of fits."
    if remedy not in REMEDIES: raise ValueError(f"remedy must be one of {list(REMEDIES)}, got {remedy!r}")
    settings, n_fits = REMEDIES[remedy]
    shaps, seconds, first = [], 0.0, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedValuesWarning)
        for j in range(n_fits):
            g = make_grci(settings or "paper", seed=seed + 10_000 * j).fit(X, D, skeleton=skeleton)
            shaps.append(g.ranking_scores()); seconds += sum(g.timings_.values()); first = first or g
    return sum(shaps) / len(shaps), first, seconds


def sim_name(p, n, seed, pnl=False)->str:
    "The record name of one simulated data set's per-seed results."
    return f"sim_{'pnl_' if pnl else ''}p{p}_n{n}_s{seed}"


def pbc_seed(
    X, # n x p data (PBC)
    D, # n binary diagnoses
    seed:int, # seed of the fits
    remedies=("paper", "draws5"), # names of `REMEDIES`
)->dict: # remedy -> {top: the diseased patients' top root causes ('' = none), order, seconds}
    "One seed of the stability measurement on real data."
    sick, out = np.asarray(D) == 1, {}
    for r in remedies:
        shap, g, seconds = fit_remedy(X, D, r, seed)
        out[r] = dict(top=_top_labels(shap)[sick].tolist(), order=list(map(str, g.order_)), seconds=seconds)
    return out


def simulated_seed(
    p:int, # nodes of `sample_dag` (D included)
    n:int, # rows the fits see
    seed:int, # seed of the DAG, its rows and the fits
    remedies=("paper", "draws5"), # names of `REMEDIES`
    n_truth:int=50_000, # rows the ground-truth model is fitted on
    pnl:bool=False, # the post-nonlinear generator instead of the HNM
)->dict: # remedy -> {rbo: mean RBO over the patients with D = 1, seconds}
    "One DAG of the accuracy measurement: every remedy's RBO against the ground-truth Shapley values."
    full = sample_dag(p, n_truth, seed=seed, pnl=pnl)
    sample = full.head(n)
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    X = pd.DataFrame(sample.X, columns=[f"X{j}" for j in range(sample.X.shape[1])])
    t = time.perf_counter()
    skeleton = skeleton_stable(mad_normalize(X)[0], verbose=False)   # no random step: one graph serves every remedy
    skeleton_s = time.perf_counter() - t
    out = {}
    for r in remedies:
        shap, _, seconds = fit_remedy(X, sample.D, r, seed, skeleton=skeleton)
        out[r] = dict(rbo=rbo_shapley(truth, shap.to_numpy(), patients=sample.D == 1), seconds=seconds + skeleton_s)
    return out


def measure(
    kind:str, # "pbc" (then pass X and D) or "simulated" (then pass p and n)
    seeds=20, # seeds 0 .. seeds-1, or a list of seeds
    remedies=("paper", "draws5"), # names of `REMEDIES`
    store:Store=None, # where the per-seed results are kept (None: keep nothing)
    X=None, D=None, # the real data, for kind "pbc"
    p:int=10, n:int=1000, # the simulated setting, for kind "simulated"
    pnl:bool=False, # simulated: the post-nonlinear generator instead of the HNM
    n_truth:int=50_000, # simulated: rows the ground-truth model is fitted on
)->pd.DataFrame: # one row per (seed, remedy): seconds, and rbo (simulated) or the top root causes (pbc)
    "Run (or read back) a measurement, seed by seed; only the remedies a seed lacks are fitted."
    if kind not in ("pbc", "simulated"): raise ValueError(f"kind must be 'pbc' or 'simulated', got {kind!r}")
    rows = []
    for seed in (range(seeds) if isinstance(seeds, (int, np.integer)) else seeds):
        name = f"pbc_s{seed}" if kind == "pbc" else sim_name(p, n, seed, pnl)
        have = dict(store.get(name, {})) if store is not None else {}
        missing = tuple(r for r in remedies if r not in have)
        if missing:
            have.update(pbc_seed(X, D, seed, missing) if kind == "pbc" else simulated_seed(p, n, seed, missing, n_truth=n_truth, pnl=pnl))
            if store is not None: store.put(name, have)
        rows += [dict(seed=seed, remedy=r, **have[r]) for r in remedies]
    return pd.DataFrame(rows)


def paired_summary(
    results:pd.DataFrame, # `measure("simulated", ...)`'s rows
    baseline:str="paper", # the remedy every other is paired against
)->pd.DataFrame: # per remedy: seeds, rbo, diff, ci_low, ci_high, wins, seconds_ratio
    "Mean RBO and the paired difference to `baseline` (95% interval), per remedy."
    rbo = results.pivot(index="seed", columns="remedy", values="rbo")
    sec = results.pivot(index="seed", columns="remedy", values="seconds")
    if baseline not in rbo: raise ValueError(f"results have no {baseline!r} rows")
    out = []
    for r in rbo.columns:
        d = (rbo[r] - rbo[baseline]).dropna()
        out.append(dict(remedy=r, seeds=len(d), rbo=rbo[r].mean(), diff=d.mean(), ci_low=d.mean() - t_ci(d)[1],
                        ci_high=d.mean() + t_ci(d)[1], wins=f"{int((d > 0).sum())}/{int((d < 0).sum())}",
                        seconds_ratio=float((sec[r] / sec[baseline]).median())))
    order = [r for r in REMEDIES if r in rbo.columns]
    return pd.DataFrame(out).set_index("remedy").loc[order]


def stability_summary(
    results:pd.DataFrame, # `measure("pbc", ...)`'s rows
    names=None, # variables whose share of the diseased patients' top root causes is shown (None: none)
)->pd.DataFrame: # per remedy: seeds, agreement, median seconds, and per name the share of seeds it is most often top in
    "Top-1 agreement over the seeds (`fit_seeds`' measure) and median seconds, per remedy."
    out = []
    for r, grp in results.groupby("remedy", sort=False):
        tops = np.array(grp.top.tolist(), dtype=object)
        row = dict(remedy=r, seeds=len(grp), agreement=top1_agreement(tops), seconds=float(grp.seconds.median()))
        for c in names or []: row[f"top_{c}"] = float((tops == c).mean())
        out.append(row)
    return pd.DataFrame(out).set_index("remedy")


def _stored(store, name, remedies)->bool:
    "Whether the record `name` holds every remedy."
    return store is not None and set(remedies) <= set(store.get(name, {}))


def paired_grid(
    cells=GRID, # (generator "hnm" or "pnl", p, n) triples
    seeds:int=20, # DAGs per cell (seeds 0 .. seeds-1)
    remedies=("paper", "stable"), # names of `REMEDIES`; the first is the baseline
    store:Store=None, # where the per-seed results are kept
    stored_only:bool=False, # read the seeds (of 0 .. seeds-1) whose results are all stored, compute nothing
)->pd.DataFrame: # one row per (generator, p, n, remedy): `paired_summary`'s columns
    "Paired RBO differences to the first remedy on several simulated cells."
    out = []
    for gen, p, n in cells:
        if gen not in ("hnm", "pnl"): raise ValueError(f"generator must be 'hnm' or 'pnl', got {gen!r}")
        k = list(range(seeds))
        if stored_only:
            k = [s for s in k if _stored(store, sim_name(p, n, s, gen == "pnl"), remedies)]
            if len(k) < 2: continue
        res = measure("simulated", seeds=k, remedies=remedies, store=store, p=p, n=n, pnl=gen == "pnl")
        out.append(paired_summary(res, baseline=remedies[0]).reset_index().assign(generator=gen, p=p, n=n))
    if not out: return pd.DataFrame()
    return pd.concat(out).set_index(["generator", "p", "n", "remedy"])


def pooled_difference(
    cells=GRID, # (generator, p, n) triples pooled together
    seeds:int=30, # DAGs per cell (seeds 0 .. seeds-1); those stored with every remedy are read
    remedies=("paper", "stable"), # (baseline, other): the difference is other minus baseline
    store:Store=None, # where the per-seed results are kept
)->dict: # data_sets, mean diff, ci_low, ci_high (95 % t-interval over the data sets), wins, losses
    "The paired RBO difference pooled over every stored data set of several cells, each data set counted once."
    base, other = remedies
    d = []
    for gen, p, n in cells:
        for s in range(seeds):
            name = sim_name(p, n, s, gen == "pnl")
            if _stored(store, name, remedies):
                r = store.get(name)
                d.append(r[other]["rbo"] - r[base]["rbo"])
    if len(d) < 2: raise ValueError(f"fewer than 2 stored data sets with {remedies} in {store}")
    m, hw, k = t_ci(d)
    d = np.asarray(d)
    return dict(data_sets=k, diff=float(m), ci_low=float(m - hw), ci_high=float(m + hw), wins=int((d > 0).sum()), losses=int((d < 0).sum()))


def time_variants(
    X, # n x p data
    D, # n binary diagnoses
    variants=("paper", "default"), # names of `VARIANTS`, or a dict label -> settings; the first is the baseline of the ratio
    repeats:int=5, # fits per variant (seeds 0 .. repeats-1)
)->pd.DataFrame: # per variant: median seconds of a whole fit, and its ratio to the first variant's
    "Median seconds of a GRCI fit per variant, the fits interleaved."
    if repeats < 1: raise ValueError(f"repeats must be >= 1, got {repeats}")
    variants = dict(variants) if isinstance(variants, dict) else {v: v for v in variants}
    sec = {label: [] for label in variants}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedValuesWarning)
        for s in range(repeats):
            for label, v in variants.items():
                t = time.perf_counter(); make_grci(v, seed=s).fit(X, D); sec[label].append(time.perf_counter() - t)
    med = pd.Series({v: float(np.median(t)) for v, t in sec.items()})
    return pd.DataFrame({"seconds": med, "ratio": med / med.iloc[0]}).rename_axis("variant")


def plot_top_shares(
    results:pd.DataFrame, # `measure("pbc", ...)`'s rows
    remedies=("paper", "draws5"), # one panel each
    max_vars:int=5, # colour the variables most often top; the rest are grey ("other")
    axs=None, # one matplotlib Axes per remedy (None: a new figure)
): # the Axes
    "Per seed, the share of the diseased patients whose top root cause is each variable: one stacked bar per seed."
    rows = results[results.remedy.isin(remedies)]
    counts = pd.Series(np.concatenate(rows.top.tolist())).value_counts()
    names = [c for c in counts.index if c][:max_vars]
    if axs is None: _, axs = plt.subplots(1, len(remedies), figsize=(5 * len(remedies), 3.2), sharey=True, squeeze=False)
    axs = np.ravel(axs)
    colours = dict(zip(names, plt.cm.tab10.colors))
    for ax, r in zip(axs, remedies):
        grp = results[results.remedy == r].sort_values("seed")
        tops = np.array(grp.top.tolist(), dtype=object)
        bottom = np.zeros(len(grp))
        for c in names + ["other"]:
            share = (tops == c).mean(axis=1) if c != "other" else 1 - bottom
            ax.bar(grp.seed, share, bottom=bottom, color=colours.get(c, "0.8"), label=c, width=0.85)
            bottom = bottom + share
        ax.set(title=f"{r}: agreement {top1_agreement(tops):.2f}", xlabel="seed", ylim=(0, 1))
    axs[0].set_ylabel("share of the diseased patients"); axs[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    return axs
