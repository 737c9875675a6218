"""Run by tests/test_cross_kernel.py in a subprocess under one OpenBLAS kernel: prints one JSON line of results."""
import json
import warnings

import numpy as np

from grci_lit.datasets import load_pbc
from grci_lit.grci import GRCI
from grci_lit.partial_out import spline_fit
from grci_lit.simulate import sample_dag


def _grci(X, D, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = GRCI(seed=seed, verbose=False).fit(X, D)
    return dict(order=[str(c) for c in g.order_], skeleton=np.asarray(g.skeleton_.adj, dtype=int).tolist(),
                shap=g.shap_.to_numpy().tolist())


def main():
    rng = np.random.default_rng(1)     # 999 standard normals and one point at 1000, as in chapter 02
    v, y = np.r_[rng.standard_normal(999), 1000.0], rng.standard_normal(1000)
    lone = spline_fit(v, y)
    out = dict(loo=[float(e) for e in lone.loo_errors_], knots=int(lone.n_knots_))
    X, D = load_pbc()
    out["pbc"] = _grci(X, D, seed=0)
    s = sample_dag(8, 500, seed=3)
    out["dag"] = _grci(s.X, s.D, seed=3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
