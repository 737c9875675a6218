"""Ranking a patient's root causes by Shapley value times the error's overall importance, on the grid (chapter Beyond the paper).

For each simulated data set: the default GRCI fit, its RBO against the truth with the patients' Shapley values as they
are, and with each error's column scaled by its importance (mean |Shapley value| over the patients, over the largest:
`importance`, or its square: `importance_sq`). A positive factor keeps every value's sign, so each patient's set of
root causes is unchanged; only their order moves. Rows append to a CSV; data sets already in it are skipped.

    python tools/shrink_grid.py --cells hnm:10:500 pnl:30:1000 --seeds 0 30 --out results/beyond_the_paper/importance_grid.csv
"""
import numpy as np, pandas as pd
from grci_lit.grci import GRCI
from grci_lit.metrics import ground_truth_shapley, rbo_shapley
from grci_lit.simulate import sample_dag
from grid_rows import main

def one_dag(gen, p, n, seed):
    full = sample_dag(p, 50_000, seed=seed, pnl=gen == "pnl"); s = full.head(n); sick = s.D == 1
    truth = ground_truth_shapley(full, n_eval=n, seed=seed)
    cols = [f"X{j}" for j in range(p - 1)]
    g = GRCI(seed=seed, verbose=False).fit(pd.DataFrame(s.X, columns=cols), s.D)
    S = g.shap_[cols].to_numpy()
    w = np.abs(S).mean(0); w = w / w.max() if w.max() > 0 else w
    return dict(generator=gen, p=p, n=n, seed=seed, shapley=rbo_shapley(truth, S, patients=sick),
                importance=rbo_shapley(truth, S * w, patients=sick), importance_sq=rbo_shapley(truth, S * w**2, patients=sick))

if __name__ == "__main__":
    main(one_dag, __doc__, ["hnm:10:500"], [0, 30], out_required=True,
         describe=lambda r: f"shapley {r['shapley']:.3f}, importance {r['importance']:.3f} ")
