"""The zoo's protocol: each variant of GRCI fitted on data sets of the seven families of `ZOO_FAMILIES`, scored against
the ground-truth Shapley values; the ladder that says where the default's accuracy goes; the ranking rules scored on
one fit; DoWhy given the true graph as a yardstick; how often the default's top root cause is right against its
bootstrap support. Every result goes to a `Store` (lab/records), keyed by data set."""
import json, time, warnings

import numpy as np
import pandas as pd

from grci_lit.grci import DEFAULT, TiedValuesWarning, mad_normalize
from grci_lit.metrics import ground_truth_shapley, rbo_shapley
from grci_lit.partial_out import partial_out
from grci_lit.ranking import rank_weights, shape_windows, shapley_curves, smoothed_shapley, window_lines
from grci_lit.shapley import fit_classifier, shapley_values
from grci_lit.simulate import HELD_OUT_FAMILIES, sample_held_out, sample_zoo
from grci_lit.skeleton import skeleton_scores
from grci_lit.support import bootstrap_support, calibration_records

from .settings import ZOO_VARIANTS, make_grci, settings_of
from .store import CACHE, Store

KEY = ("family", "p", "n", "seed")   # a zoo data set


def zoo_name(family, p, n, seed)->str:
    "The record name of one zoo data set."
    return f"{family}_p{p}_n{n}_s{seed}"


def parse_name(name:str)->dict:
    "family, p, n and seed of a record name (`zoo_name`)."
    family, p, n, seed = name.rsplit("_", 3)
    return dict(family=family, p=int(p[1:]), n=int(n[1:]), seed=int(seed[1:]))


def zoo_data(
    family:str, # a key of `ZOO_FAMILIES` or `HELD_OUT_FAMILIES`
    p:int, # variables (D is one more node)
    n:int, # rows the fits see
    seed:int, # seed of the DAG, its rows and the truth
    n_truth:int=50_000, # rows the ground-truth model is fitted on
)->tuple: # (the first n rows as a `DAGSample`, their ground-truth Shapley values, X as a DataFrame with columns X0..)
    "One data set of the zoo with its truth: what every zoo measurement fits and scores against."
    draw = sample_held_out if family in HELD_OUT_FAMILIES else sample_zoo   # the held-out families: generators no choice saw
    full = draw(family, p + 1, max(n, n_truth), seed=seed)
    sample = full.head(n)
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    return sample, truth, pd.DataFrame(sample.X, columns=[f"X{j}" for j in range(p)])


def zoo_seed(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables (D is one more node)
    n:int, # rows the fits see
    seed:int, # seed of the DAG, its rows and the truth; every fit uses seed 0
    variants:dict=None, # label -> settings (default: `ZOO_VARIANTS`)
    n_truth:int=50_000, # rows the ground-truth model is fitted on
    store:Store=None, # where results are kept: a label stored with the same settings is read back, not refitted
)->dict: # label -> {rbo, seconds, recall, precision, settings}
    "One data set of the zoo: each variant's RBO against the ground-truth Shapley values, its seconds and skeleton."
    variants = ZOO_VARIANTS if variants is None else variants
    name = zoo_name(family, p, n, seed)
    have = dict(store.get(name, {})) if store is not None else {}
    todo = {k: v for k, v in variants.items() if have.get(k, {}).get("settings") != settings_of(v)}
    if todo:
        sample, truth, X = zoo_data(family, p, n, seed, n_truth)
        mars = None                                         # (skeleton, seconds): MARS on every row, shared by the variants that test that way
        for label, v in todo.items():
            probe = make_grci(v, seed=0)
            rows, test = probe._settings().max_rows, probe._settings().ci_test
            every_row = test == "mars" and (rows is None or rows >= n)   # the same skeleton as the paper's
            given = mars[0] if every_row and mars is not None else None
            t = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TiedValuesWarning)
                g = probe.fit(X, sample.D, skeleton=given)
            seconds = time.process_time() - t + (mars[1] if given is not None else 0.0)
            if every_row and mars is None and not g.tied_columns_: mars = (g.skeleton_, g.timings_["skeleton"])
            sc = skeleton_scores(g.skeleton_, sample.adj)
            have[label] = dict(rbo=rbo_shapley(truth, g.ranking_scores().to_numpy(), patients=sample.D == 1), seconds=seconds,
                               recall=float(sc["recall"]), precision=float(sc["precision"]), settings=settings_of(v))
        if store is not None: store.put(name, have)
    return {k: have[k] for k in variants}


def _one_model_rbo(E, D, truth, seed)->float:
    "RBO of the diseased patients' Shapley values from one Shapley model fitted on errors `E` (the ladder's common last step)."
    model = fit_classifier(E, D, seed=seed)
    return rbo_shapley(truth, shapley_values(model, E).to_numpy(), patients=np.asarray(D) == 1)


def zoo_ladder(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables
    n:int, # rows
    seed:int, # seed of the data set (as `zoo_seed`)
    n_truth:int=50_000, # rows of the ground-truth model
)->dict: # recovered, true_skeleton, true_parents, true_errors: RBO of each set of errors through one Shapley model
    "Where the default's accuracy goes on one data set: its errors, its errors given the true skeleton, Partial-Out on the true parents, the true errors."
    s, truth, X = zoo_data(family, p, n, seed, n_truth)
    fit = lambda skeleton=None: make_grci("default", seed=0).fit(X, s.D, skeleton=skeleton).errors_
    Z = mad_normalize(X)[0].to_numpy()
    parents = np.column_stack([partial_out(Z[:, np.flatnonzero(s.adj[:, j])], Z[:, j], additive=True)[0] if s.adj[:, j].any()
                               else Z[:, j] for j in range(p)])
    sets = dict(recovered=fit(), true_skeleton=fit(s.adj | s.adj.T), true_parents=pd.DataFrame(parents, columns=X.columns),
                true_errors=pd.DataFrame(s.E, columns=X.columns))
    return {k: _one_model_rbo(E, s.D, truth, seed) for k, E in sets.items()}


def zoo_results(
    store, # a `Store` of zoo data sets (or its experiment's name under lab/records)
    labels=None, # labels to read (None: every label stored)
)->pd.DataFrame: # one row per (family, p, n, seed, label): rbo, seconds, recall, precision
    "The stored results of a zoo run, one row per data set and label."
    store = Store(store) if isinstance(store, str) else store
    rows = []   # a record without skeleton scores (a reference method given the graph) reads them as NaN
    for name, record in sorted(store.load().items()):
        key = parse_name(name)
        for label, r in record.items():
            if not isinstance(r, dict) or "rbo" not in r or (labels is not None and label not in labels): continue
            rows.append(dict(key, label=label, **{k: r.get(k, np.nan) for k in ("rbo", "seconds", "recall", "precision")}))
    return pd.DataFrame(rows)


def zoo_table(
    results:pd.DataFrame, # `zoo_results` rows
    other:str="default", # the variant compared ...
    baseline:str="paper", # ... with this one, paired by data set
    by=("family", "p", "n"), # the groups (an empty tuple: everything pooled)
)->pd.DataFrame: # per group: data sets, each variant's mean RBO, other - baseline [95 % interval], wins, losses, seconds ratio
    "Paired RBO differences of one variant to another on the zoo, per group (`paired_groups` on the zoo's data sets)."
    from grci_lit.bench.report import paired_groups        # the harness's table; the zoo's fits need none of the harness
    return paired_groups(results, other, baseline, by=by, key=KEY)


def ladder_rows(
    store, # a `Store` (or experiment name) whose records hold a "ladder" entry (`zoo_ladder`)
)->pd.DataFrame: # one row per (data set, rung): family, p, n, seed, label (the rung), rbo, seconds (NaN)
    "The ladder's rungs as `zoo_results` rows, so that `zoo_table` pairs them by data set."
    store = Store(store) if isinstance(store, str) else store
    return pd.DataFrame([dict(parse_name(name), label=rung, rbo=rbo, seconds=np.nan)
                         for name, record in sorted(store.load().items()) for rung, rbo in record.get("ladder", {}).items()])


# ---------------------------------------------------------------- the ranking rules: which window each error's curve gets
def _sorted_columns(shap, errors):
    "Each error's Shapley values sorted by the error (a generator of column name, sorted values)."
    S, E = pd.DataFrame(shap), pd.DataFrame(errors)
    if S.shape != E.shape or list(S.columns) != list(E.columns):
        raise ValueError(f"shap ({S.shape[0]} x {list(S.columns)}) and errors ({E.shape[0]} x {list(E.columns)}) must hold the same patients and columns")
    for c in S.columns:
        yield c, S[c].to_numpy(float)[np.argsort(E[c].to_numpy(float), kind="stable")]


def loo_windows(
    shap, # n x p Shapley values of the fitted patients
    errors, # their errors, the same columns
    windows=(0.05, 0.1, 0.2, 0.35, 0.5), # the windows tried (shares of the patients)
)->pd.Series: # per error: the window whose lines predict each patient's left-out value best
    "Each error's window chosen by leave-one-out cross-validation of its lines (closed form: residual / (1 - leverage))."
    def loo(s, w):
        fit, h = window_lines(s, w)
        return np.mean(((s - fit) / np.maximum(1 - h, 1e-9)) ** 2)
    return pd.Series({c: min(windows, key=lambda w: loo(s, w)) for c, s in _sorted_columns(shap, errors)}, name="window")


def window_scores(
    shap, # n x p Shapley values of the fitted patients
    errors, # their errors, the same columns
    windows, # one window for every error (a float) or one per error (a Series indexed by the columns)
    share:float=DEFAULT.smooth_share, # the curve's share of a smoothed value (0: the Shapley values)
)->pd.DataFrame: # n x p ranking scores: smoothed Shapley values times the errors' importance (`rank_weights`)
    "The default's ranking scores with other windows: each error's Shapley curve over its own window, then `smoothed_shapley` and the rank weights."
    S, E = pd.DataFrame(shap), pd.DataFrame(errors)
    curves = shapley_curves(S, E, window=windows if np.isscalar(windows) else pd.Series(windows))
    return smoothed_shapley(S, E, curves, share=share) * rank_weights(S, "smoothed").to_numpy()


RANKING_RULES = {  # name -> the windows of each error's Shapley curve, from the fit's Shapley values and errors
    "one window": lambda S, E: DEFAULT.smooth_window,                  # every error over half the patients (the default before the shape rule)
    **{f"window {w}": (lambda w: lambda S, E: w)(w) for w in (0.2, 0.3, 0.7)},   # every error over another share
    "window by leave-one-out": loo_windows,                            # per error, cross-validated
    **{f"window by shape {r}": (lambda r: lambda S, E: shape_windows(S, E, ratio=r))(r) for r in (0.5, 0.6, 0.7, 0.8)},   # the default's: DEFAULT.smooth_ratio
}


def zoo_rankings(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables
    n:int, # rows
    seed:int, # seed of the data set (as `zoo_seed`)
    rules:dict=None, # name -> windows rule (default: `RANKING_RULES`)
    n_truth:int=50_000, # rows of the ground-truth model
    store:Store=None, # where results are kept: rules stored there are read back
    cache=None, # folder of the fits' arrays (truth, Shapley values, errors, D, seconds, skeleton scores): read if present, else written
)->dict: # rule -> {rbo, narrower}: the RBO of its ranking scores against the truth (patients with D = 1), the share of errors given a window below the default's smooth_window
    "One zoo data set, one `GRCI()` fit (seed 0), every ranking rule scored on it: what each rule changes, with nothing else moving."
    rules = RANKING_RULES if rules is None else rules
    name = zoo_name(family, p, n, seed)
    have = dict(store.get(name, {})) if store is not None else {}
    if set(rules) - set(have):
        npz = None if cache is None else cache / f"{name}.npz"
        if npz is not None and npz.exists():
            z = np.load(npz); truth, S, E, D = z["truth"], z["S"], z["E"], z["D"]
            fit = {k: float(z[k]) for k in ("seconds", "recall", "precision") if k in z}
        else:
            s, truth, X = zoo_data(family, p, n, seed, n_truth)
            t = time.process_time()
            g = make_grci("default", seed=0).fit(X, s.D)
            sc = skeleton_scores(g.skeleton_, s.adj)
            fit = dict(seconds=time.process_time() - t, recall=sc["recall"], precision=sc["precision"])
            S, E, D = g.shap_.to_numpy(), g.errors_.to_numpy(), np.asarray(s.D)
            if npz is not None:
                npz.parent.mkdir(parents=True, exist_ok=True); np.savez(npz, truth=truth, S=S, E=E, D=D, **fit)
        have["fit"] = {k: float(v) for k, v in fit.items()}   # the one fit every rule ranks: its seconds and skeleton
        names = [f"X{j}" for j in range(p)]
        S, E = pd.DataFrame(S, columns=names), pd.DataFrame(E, columns=names)
        for rule, windows_of in rules.items():
            if rule in have: continue
            windows = windows_of(S, E)
            narrow = float(np.mean(np.asarray(windows) < DEFAULT.smooth_window))   # one window or one per error
            have[rule] = dict(rbo=rbo_shapley(truth, window_scores(S, E, windows).to_numpy(), patients=np.asarray(D) == 1),
                              narrower=narrow)
        if store is not None: store.put(name, have)
    return {k: have[k] for k in rules}


# ---------------------------------------------------------------- a yardstick: DoWhy given the true graph
def dowhy_seed(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables
    n:int, # rows
    seed:int, # seed of the data set
    patients:int=30, # patients with D = 1 scored (a seeded subset)
    n_truth:int=50_000, # rows of the ground-truth model
    store:Store=None, # where results are kept
)->dict: # {"dowhy": {rbo, seconds}, "default": {rbo, seconds, settings}, "patients": [...]}
    """DoWhy's `gcm.attribute_anomalies` given the TRUE graph, and `GRCI()`, on the same seeded patients of one zoo data
    set. A stored data set is not given to DoWhy again: when its `GRCI()` entry is missing or was fitted under other
    settings, only `GRCI()` is fitted again, on the stored patients. DoWhy is not a dependency of grci_lit: it is
    imported only when it must run (`pip install dowhy==0.14` in an environment of its own)."""
    name, settings = zoo_name(family, p, n, seed), settings_of("default")
    stored = store.get(name) if store is not None else None
    if stored is not None and stored.get("default", {}).get("settings") == settings: return stored
    full = sample_zoo(family, p + 1, max(n, n_truth), seed=seed); s = full.head(n)
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    names = [f"X{j}" for j in range(p)]
    rng = np.random.default_rng([seed, 7])
    sick = np.sort(rng.choice(np.flatnonzero(s.D == 1), min(patients, int((s.D == 1).sum())), replace=False))
    mask = np.zeros(n, bool); mask[sick] = True
    def default_entry():
        t = time.perf_counter()
        g = make_grci("default", seed=0).fit(pd.DataFrame(s.X, columns=names), s.D)
        return dict(rbo=rbo_shapley(truth, g.ranking_scores().to_numpy(), patients=mask), seconds=time.perf_counter() - t, settings=settings)
    if stored is not None:                                             # DoWhy's entry stays: GRCI() alone, on the same patients
        if sick.tolist() != stored["patients"]:
            raise ValueError(f"{name}: the seeded patients differ from the stored ones (another patients=?)")
        res = dict(stored, default=default_entry())
    else:
        try: import networkx as nx; from dowhy import gcm
        except ImportError: raise ImportError("the DoWhy yardstick needs dowhy (pip install dowhy==0.14, in an environment of its own)") from None
        gcm.config.default_n_jobs = 1; gcm.config.disable_progress_bars()
        G = nx.DiGraph(); G.add_nodes_from(names + ["D"])
        G.add_edges_from((names[i], names[j]) for i, j in zip(*np.nonzero(s.adj)))
        G.add_edges_from((names[k], "D") for k in s.parents_D)
        df = pd.DataFrame(s.X, columns=names); df["D"] = s.D.astype(float)
        t = time.perf_counter()
        scm = gcm.InvertibleStructuralCausalModel(G)
        gcm.auto.assign_causal_mechanisms(scm, df)
        gcm.fit(scm, df)
        attr = gcm.attribute_anomalies(scm, "D", anomaly_samples=df.iloc[sick])
        S = np.zeros((n, p))
        for j, col in enumerate(names):
            if col in attr: S[sick, j] = attr[col]
        res = {"dowhy": dict(rbo=rbo_shapley(truth, S, patients=mask), seconds=time.perf_counter() - t), "default": default_entry(),
               "patients": sick.tolist()}
    if store is not None: store.put(name, res)
    return res


def zoo_support(
    family:str, # a key of `ZOO_FAMILIES`
    p:int, # variables (D is one more node)
    n:int, # rows the fits see
    seed:int, # seed of the data set, its truth and the resamples; the fit uses seed 0
    n_boot:int=20, # refits (`bootstrap_support`)
    resample:str="distinct", # how the refits resample the patients (`bootstrap_rows`)
    n_truth:int=50_000, # rows the ground-truth model is fitted on
    store:Store=None, # a data set stored with the same n_boot, resample and settings is read back, not refitted
)->dict: # {n_boot, resample, settings, support, patients, right (lists, one entry per support value), fit_seconds, seconds}
    """One zoo data set: `GRCI()` fitted (seed 0) and refitted `n_boot` times on resamples of its patients; per value of
    the support of a diseased patient's top root cause, how many diseased patients have it and for how many of them
    that root cause is the true one (`calibration_records`). Seconds are CPU seconds: the fit's, and the fit's and the
    refits' together."""
    name, key = zoo_name(family, p, n, seed), dict(n_boot=n_boot, resample=resample, settings=settings_of("default"))
    stored = store.get(name) if store is not None else None
    if stored is not None and all(stored.get(k) == v for k, v in key.items()): return stored
    sample, truth, X = zoo_data(family, p, n, seed, n_truth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedValuesWarning)
        t = time.process_time()
        g = make_grci("default", seed=0).fit(X, sample.D)
        fit_s = time.process_time() - t
        sup = bootstrap_support(g, X, sample.D, n_boot=n_boot, seed=seed, resample=resample)
        seconds = time.process_time() - t
    rec = calibration_records(sup, truth, patients=sample.D == 1)
    res = dict(key, support=rec.support.astype(float).tolist(), patients=rec.patients.astype(int).tolist(),
               right=rec.right.astype(int).tolist(), fit_seconds=round(fit_s, 2), seconds=round(seconds, 2))
    if store is not None: store.put(name, res)
    return res
