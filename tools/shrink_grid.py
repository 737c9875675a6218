"""Ranking a patient's root causes by Shapley value times the error's overall importance, on the grid (chapter Beyond the paper).

For each simulated data set: the default GRCI fit, its RBO against the truth with the patients' Shapley values as they
are, and with each error's column scaled by its importance (mean |Shapley value| over the patients, over the largest:
`importance`, or its square: `importance_sq`). A positive factor keeps every value's sign, so each patient's set of
root causes is unchanged; only their order moves. Rows append to a CSV; data sets already in it are skipped.

    python tools/shrink_grid.py --cells hnm:10:500 pnl:30:1000 --seeds 0 30 --out results/beyond_the_paper/importance_grid.csv
"""
import numpy as np
from grci_lit.metrics import rbo_shapley
from grid_rows import default_fit, main

def one_dag(gen, p, n, seed):
    truth, sick, cols, g = default_fit(gen, p, n, seed)    # the default's Shapley values are the stable variant's
    S = g.shap_[cols].to_numpy()
    w = np.abs(S).mean(0); w = w / w.max() if w.max() > 0 else w
    return dict(generator=gen, p=p, n=n, seed=seed, shapley=rbo_shapley(truth, S, patients=sick),
                importance=rbo_shapley(truth, S * w, patients=sick), importance_sq=rbo_shapley(truth, S * w**2, patients=sick))

if __name__ == "__main__":
    main(one_dag, __doc__, ["hnm:10:500"], [0, 30], out_required=True,
         describe=lambda r: f"shapley {r['shapley']:.3f}, importance {r['importance']:.3f} ")
