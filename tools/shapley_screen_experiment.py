"""Screening the errors before the Shapley stage: does dropping errors unrelated to D raise RBO? (chapter Beyond the paper)

On the default's recovered errors of each simulated DAG, the default's Shapley stage (`error_ceiling.stable_stage`)
is fitted on every error, on D's true ancestors only (an oracle), and on the errors a screen keeps; the errors a
screen drops get Shapley value 0. Screens:
  additive_A  logistic regression of D on a piecewise-linear basis of every error (4 columns each), a Wald test per
              error, kept if p < A;
  ks_A        two-sample Kolmogorov-Smirnov test of each error between D = 1 and D = 0, kept if p < A;
  shadow      one cross-validated model on the errors beside a row-permuted copy of each (the errors are mutually
              independent, so a permuted copy is an exact null twin); an error is kept if its mean |Shapley value|
              exceeds every twin's;
  graph       D's ancestors read off a graph: D joins the skeleton as a variable no test conditions on (so the edges
              among X are the fit's own), every edge among X points from the later to the earlier of Extract-Errors'
              sinks, every edge at D points into D; kept: the variables with a directed path to D.
Prints each screen's paired difference to "every error"; per-DAG rows go to a CSV.

    python tools/shapley_screen_experiment.py --cells 10:500 10:2000 30:500 30:2000 50:2000 --seeds 0 8 --out screens.csv
"""
import numpy as np, pandas as pd
from scipy import stats
from error_ceiling import stable_stage
from grci_lit.grci import GRCI, mad_normalize
from grci_lit.skeleton import skeleton_stable
from grci_lit.metrics import ground_truth_shapley, rbo_shapley, t_ci
from grci_lit.shapley import fit_classifier, shapley_values
from grci_lit.simulate import sample_dag
from grid_rows import main

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

def one_dag(p, n, seed):
    full = sample_dag(p, 50_000, seed=seed); s = full.head(n); sick = s.D == 1
    truth = ground_truth_shapley(full, n_eval=n, seed=seed)
    X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(s.X.shape[1])])
    g = GRCI(seed=seed, verbose=False).fit(X, s.D)
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

if __name__ == "__main__":
    df = main(one_dag, __doc__, ["10:500", "30:2000"], [0, 8])
    for c in df.columns[4:]:
        m, hw, k = t_ci(df[c] - df["every_error"])
        print(f"{c:16s} - every error: {m:+.3f} ± {hw:.3f} ({k} DAGs)")
