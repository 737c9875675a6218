"""Smoothing each patient's Shapley values along the error before ranking, on the grid (chapter Beyond the paper).

For each simulated data set: one GRCI fit with the settings that were the default then (EXPERIMENTS["smoothed"]), and its RBO against the truth when each
patient's root causes are ranked by the Shapley values as they are (`shapley`, the "stable" variant), times the
error's importance (`importance`, the "ranked" variant), and by the default's scores (`smoothed`: a quarter the
patient's own value, three quarters the error's Shapley curve, a line against the error's rank through the nearest
half of the patients, times the importance). The other columns vary the window (`window_0.2` ...: the share of
patients each line is fitted to; curve share 3/4) and the curve's share (`share_0.5`, `share_1.0`; window 1/2).
Rows append to a CSV; data sets already in it are skipped.

    python tools/smooth_grid.py --cells hnm:10:500 pnl:30:1000 --seeds 0 30 --out results/beyond_the_paper/smoothed_grid.csv
"""
import numpy as np
from grci_lit.grci import shapley_curves, smoothed_shapley
from grci_lit.metrics import rbo_shapley
from grid_rows import default_fit, main

def one_dag(gen, p, n, seed):
    truth, sick, cols, g = default_fit(gen, p, n, seed)
    assert g.rank_curves_ is not None                   # EXPERIMENTS["smoothed"]: the default when this ran
    S, E, w = g.shap_[cols], g.errors_[cols], g.rank_weights_[cols].to_numpy()
    score = lambda M: rbo_shapley(truth, np.asarray(M), patients=sick)
    row = dict(generator=gen, p=p, n=n, seed=seed, shapley=score(S), importance=score(S * w), smoothed=score(g.ranking_scores()[cols]))
    for window in (0.2, 0.3, 0.7):
        row[f"window_{window}"] = score(smoothed_shapley(S, E, shapley_curves(S, E, window)) * w)
    for share in (0.5, 1.0):
        row[f"share_{share}"] = score(smoothed_shapley(S, E, g.rank_curves_, share) * w)
    return row

if __name__ == "__main__":
    main(one_dag, __doc__, ["hnm:10:500"], [0, 30], out_required=True,
         describe=lambda r: f"shapley {r['shapley']:.3f}, importance {r['importance']:.3f}, smoothed {r['smoothed']:.3f} ")
