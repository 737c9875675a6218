"""Experiments on the paper's grid (`sample_dag`), one record per (cell, seed): how far better errors can go
(`ceiling`), screening the errors before the Shapley stage (`screens`), ranking by importance (`importance`),
smoothing along the error (`smoothed`), the Shapley stage's objective and learning rate (`shapley_stage`).
`run_rows` runs one of them over cells and seeds into a `Store`, reading back what is stored."""
import time, warnings

import numpy as np
import pandas as pd
from scipy import stats

from grci_lit.grci import AveragedShapleyModel, _shapley, mad_normalize
from grci_lit.metrics import ground_truth_shapley, rbo_shapley
from grci_lit.ranking import shapley_curves, smoothed_shapley
from grci_lit.shapley import fit_classifier, shapley_values
from grci_lit.simulate import sample_dag
from grci_lit.skeleton import skeleton_stable

from .settings import EXPERIMENTS, make_grci
from .store import Store


def parse_cell(cell:str)->tuple:
    "'p:n' -> (p, n); 'generator:p:n' -> (generator, p, n)."
    *gen, p, n = cell.split(":")
    return (*gen, int(p), int(n))


def row_name(args:tuple, seed:int)->str:
    "The record name of one (cell, seed): 'hnm_p10_n500_s0', or 'p10_n500_s0' for a cell without a generator."
    *gen, p, n = args
    return "_".join([*gen, f"p{p}", f"n{n}", f"s{seed}"])


def run_rows(
    one_dag, # (*cell, seed) -> a dict (one row)
    cells, # "p:n" or "generator:p:n" strings (p counts D)
    seeds, # (first, one past the last)
    store:Store=None, # where the rows are kept; a (cell, seed) stored there is read back
    describe=lambda row: "", # a few words printed per new row
    verbose:bool=True,
    n_truth:int=None, # rows of each data set's ground truth (None: each experiment's own, 50 000)
)->pd.DataFrame: # one row per (cell, seed), seeds outer
    "One experiment over cells and seeds, each new row stored as it comes."
    have = store.load() if store is not None else {}
    rows = []
    for seed in range(*seeds):
        for cell in cells:
            args = parse_cell(cell)
            name = row_name(args, seed)
            if name not in have:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    have[name] = one_dag(*args, seed) if n_truth is None else one_dag(*args, seed, n_truth=n_truth)
                if store is not None: store.put(name, have[name])
                if verbose: print(f"{cell} seed {seed}: {describe(have[name])}({time.perf_counter() - t:.0f} s)", flush=True)
            rows.append(have[name])
    return pd.DataFrame(rows)


def default_fit(gen, p, n, seed, n_truth=50_000):
    """A grid data set as these experiments read it: the truth on its first n of 50 000 rows, the diseased rows, the
    column names X0.. and `GRCI(seed=seed)` with `EXPERIMENTS["smoothed"]` (the default when they ran) fitted on them."""
    full = sample_dag(p, n_truth, seed=seed, pnl=gen == "pnl"); s = full.head(n)
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    cols = [f"X{j}" for j in range(p - 1)]
    return truth, s.D == 1, cols, make_grci(EXPERIMENTS["smoothed"], seed=seed).fit(pd.DataFrame(s.X, columns=cols), s.D)


# ---------------------------------------------------------------- how far better errors can go
def stable_stage(E, D, seed, fits=3):
    "The stable variant's Shapley stage on errors E, its models seeded as in `GRCI(seed=seed).fit`."
    seeds = np.random.default_rng(seed).spawn(4)[3].spawn(fits)
    model = AveragedShapleyModel([fit_classifier(E, D, seed=s) for s in seeds])
    return np.asarray(_shapley(model, E))


def ceiling_row(gen, p, n, seed, n_truth=50_000):
    "The stable Shapley stage on the TRUE errors, and on the true errors of D's ancestors only (an oracle)."
    full = sample_dag(p, n_truth, seed=seed, pnl=gen == "pnl"); s = full.head(n); sick = s.D == 1
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    E = pd.DataFrame(s.E, columns=[f"X{j}" for j in range(s.E.shape[1])])
    anc = np.asarray(full.ancestors_D)
    true_errors = rbo_shapley(truth, stable_stage(E, s.D, seed), patients=sick)
    only = np.zeros(E.shape)
    if len(anc): only[:, anc] = stable_stage(E.iloc[:, anc], s.D, seed)
    return dict(generator=gen, p=p, n=n, seed=seed, true_errors=true_errors,
                ancestors_only=rbo_shapley(truth, only, patients=sick), n_ancestors=len(anc))


# ---------------------------------------------------------------- screening the errors before the Shapley stage
def additive_pvalues(E, D, ridge=1e-3, iters=25):
    "Wald p-value of each error's block in a ridge-stabilised logistic regression of D on hinge bases of every error."
    Z = (E - np.median(E, 0)) / (E.std(0) + 1e-12)
    H = np.maximum(Z[:, None, :] - np.quantile(Z, (0.25, 0.5, 0.75), axis=0)[None], 0)
    B = np.concatenate([Z[:, None, :], H], axis=1).transpose(0, 2, 1).reshape(len(E), -1)   # n x (q * 4), error-major
    A = np.hstack([np.ones((len(E), 1)), B]); b = np.zeros(A.shape[1]); m = 4
    for _ in range(iters):   # Newton-Raphson (IRLS)
        mu = 1 / (1 + np.exp(-(A @ b))); w = mu * (1 - mu) + 1e-9
        Hs = A.T @ (A * w[:, None]) + ridge * np.eye(A.shape[1])
        step = np.linalg.solve(Hs, A.T @ (D - mu) - ridge * b); b += step
        if np.abs(step).max() < 1e-8: break
    V = np.linalg.inv(Hs)
    blocks = [1 + j * m + np.arange(m) for j in range(E.shape[1])]
    return np.array([stats.chi2.sf(b[i] @ np.linalg.solve(V[np.ix_(i, i)], b[i]), m) for i in blocks])


def shadow_keep(E, D, seed):
    "Errors whose mean |Shapley value| beats every row-permuted twin's, in one model fitted on both."
    rng = np.random.default_rng(seed)
    A = np.hstack([E, rng.permuted(E, axis=0)])
    imp = np.abs(np.asarray(shapley_values(fit_classifier(A, D, seed=rng), A))).mean(0)
    q = E.shape[1]
    return np.flatnonzero(imp[:q] > imp[q:].max())


def graph_ancestors(X, D, fit, seed):
    "D's ancestors in the fit's skeleton with D added (never conditioned on), oriented by the fit's order of sinks."
    q = X.shape[1]
    XD = X.assign(D=D + np.random.default_rng(seed).uniform(-0.01, 0.01, len(D)))   # D's ties broken, as GRCI breaks ties
    allowed = np.ones((q + 1, q + 1), bool); allowed[q, :] = False                 # D is never in a conditioning set
    adj = skeleton_stable(mad_normalize(XD)[0], conditioners=allowed).adj
    assert (adj[:q, :q] == fit.adjacency_.to_numpy()).all()                         # the edges among X are the fit's
    later = {list(X.columns).index(c): i for i, c in enumerate(fit.order_)}         # 0: the first sink (most downstream)
    later[q] = -1
    found, stack = set(), [q]
    while stack:
        c = stack.pop()
        for j in np.flatnonzero(adj[c]):
            if j != q and j not in found and later[j] > later[c]: found.add(j); stack.append(j)
    return np.array(sorted(found), dtype=int)


def kept_stage(E, D, seed, keep):
    "The default's Shapley stage on the kept errors; the others get 0."
    out = np.zeros(E.shape)
    if len(keep): out[:, keep] = stable_stage(E[:, keep], D, seed)
    return out


def screens_row(p, n, seed, n_truth=50_000):
    "The recovered errors of `EXPERIMENTS['ranked']` (the default when this ran) through the Shapley stage: every error, D's ancestors (an oracle), each screen's."
    full = sample_dag(p, n_truth, seed=seed); s = full.head(n); sick = s.D == 1
    truth = ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed)
    X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(s.X.shape[1])])
    g = make_grci(EXPERIMENTS["ranked"], seed=seed).fit(X, s.D)
    E = g.errors_[X.columns].to_numpy(); D = np.asarray(s.D, dtype=float)
    score = lambda keep: rbo_shapley(truth, kept_stage(E, D, seed, keep), patients=sick)
    row = dict(p=p, n=n, seed=seed, every_error=score(np.arange(E.shape[1])), ancestors_only=score(np.asarray(full.ancestors_D)))
    add = additive_pvalues(E, D)
    ks = stats.ks_2samp(E[D == 1], E[D == 0], axis=0).pvalue
    for a in (0.001, 0.01, 0.05):
        row[f"additive_{a}"] = score(np.flatnonzero(add < a)); row[f"ks_{a}"] = score(np.flatnonzero(ks < a))
    row["shadow"] = score(shadow_keep(E, D, seed))
    row["graph"] = score(graph_ancestors(X, D, g, seed))
    return row


# ---------------------------------------------------------------- ranking by importance; smoothing along the error
def importance_row(gen, p, n, seed, n_truth=50_000):
    "One fit's RBO with the Shapley values as they are, and with each error's column scaled by its importance (or its square)."
    truth, sick, cols, g = default_fit(gen, p, n, seed, n_truth)
    S = g.shap_[cols].to_numpy()
    w = np.abs(S).mean(0); w = w / w.max() if w.max() > 0 else w
    return dict(generator=gen, p=p, n=n, seed=seed, shapley=rbo_shapley(truth, S, patients=sick),
                importance=rbo_shapley(truth, S * w, patients=sick), importance_sq=rbo_shapley(truth, S * w**2, patients=sick))


def smoothed_row(gen, p, n, seed, n_truth=50_000):
    "One fit ranked by the Shapley values, times importance, smoothed along the error, and with other windows and shares."
    truth, sick, cols, g = default_fit(gen, p, n, seed, n_truth)
    S, E, w = g.shap_[cols], g.errors_[cols], g.rank_weights_[cols].to_numpy()
    score = lambda M: rbo_shapley(truth, np.asarray(M), patients=sick)
    row = dict(generator=gen, p=p, n=n, seed=seed, shapley=score(S), importance=score(S * w), smoothed=score(g.ranking_scores()[cols]))
    for window in (0.2, 0.3, 0.7):
        row[f"window_{window}"] = score(smoothed_shapley(S, E, shapley_curves(S, E, window)) * w)
    for share in (0.5, 1.0):
        row[f"share_{share}"] = score(smoothed_shapley(S, E, g.rank_curves_, share) * w)
    return row


# ---------------------------------------------------------------- the Shapley stage's objective and learning rate
SHAPLEY_STAGES = {"logistic": dict(), "logistic_eta0.1": dict(eta=0.1, max_rounds=150), "squared_error": dict(reference={"squared_error"})}


def stage_shapley(E, D, seed, **settings):
    "TreeSHAP values of one `fit_classifier` model (10-fold CV over depth and rounds) with the stage's settings."
    return np.asarray(shapley_values(fit_classifier(E, D, seed=seed, tree_method="hist", **settings), E))


def shapley_stage_row(p, n, seed, n_truth=50_000):
    "Two truths (logistic, squared error), the paper's and the stable fit, then three Shapley stages on the stable fit's errors."
    full = sample_dag(p, n_truth, seed=seed); s = full.head(n); sick = s.D == 1
    truths = {"logistic": ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed),
              "squared": ground_truth_shapley(full, n_truth=n_truth, n_eval=n, seed=seed, reference={"squared_error"}, tree_method="hist")}
    X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(s.X.shape[1])])
    row = dict(p=p, n=n, seed=seed)
    for v in ("paper", "stable"):
        g = make_grci(EXPERIMENTS.get(v, v), seed=seed).fit(X, s.D)
        for t, T in truths.items(): row[f"{v}|{t}"] = rbo_shapley(T, g.shap_.to_numpy(), patients=sick)
    E = g.errors_.to_numpy()
    fold_seeds = [1000 * seed + 777 + i for i in range(3)]   # integers: every stage sees the same three fold splits
    for name, kw in SHAPLEY_STAGES.items():
        S = sum(stage_shapley(E, s.D, q, **kw) for q in fold_seeds) / 3
        for t, T in truths.items(): row[f"{name}|{t}"] = rbo_shapley(T, S, patients=sick)
    return row


EXPERIMENT_ROWS = {  # store name -> (one_dag, default cells, default seeds, a few words per row)
    "ceiling": (ceiling_row, ["hnm:10:500"], (0, 30), lambda r: f"true errors {r['true_errors']:.3f}, ancestors only {r['ancestors_only']:.3f} "),
    "screens": (screens_row, ["10:500", "30:2000"], (0, 8), lambda r: f"every error {r['every_error']:.3f} "),
    "importance": (importance_row, ["hnm:10:500"], (0, 30), lambda r: f"shapley {r['shapley']:.3f}, importance {r['importance']:.3f} "),
    "smoothed": (smoothed_row, ["hnm:10:500"], (0, 30), lambda r: f"shapley {r['shapley']:.3f}, smoothed {r['smoothed']:.3f} "),
    "shapley_stage": (shapley_stage_row, ["10:500", "30:1000"], (0, 4), lambda r: ""),
}
