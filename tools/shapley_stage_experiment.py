"""The Shapley stage's objective and learning rate, on the same recovered errors (chapter Beyond the paper).

For each simulated DAG: the ground truth twice (XGBoost on 50 000 rows of true errors, logistic and squared-error
objective), the paper's and the stable variant's GRCI fits, then on the stable fit's errors three Shapley stages,
each the mean of three cross-validated XGBoost models on the same three fold splits:
logistic (eta 0.3, the paper), logistic with eta 0.1 (up to 150 rounds), and the authors' R code's stage
(`fit_classifier(reference={"squared_error"})`: cross-validation on log-loss, a squared-error final model). Prints the paired RBO differences; per-DAG rows go to a CSV.

    python tools/shapley_stage_experiment.py --cells 10:500 10:2000 30:500 30:2000 --seeds 0 4 --out stage.csv
"""
import numpy as np, pandas as pd
from grci_lit.beyond import EXPERIMENTS
from grci_lit.grci import GRCI
from grci_lit.metrics import ground_truth_shapley, rbo_shapley, t_ci
from grci_lit.shapley import fit_classifier, shapley_values
from grci_lit.simulate import sample_dag
from grid_rows import main

STAGES = {"logistic": dict(), "logistic_eta0.1": dict(eta=0.1, max_rounds=150), "squared_error": dict(reference={"squared_error"})}

def stage_shapley(E, D, seed, **settings):
    "TreeSHAP values of one `fit_classifier` model (10-fold CV over depth and rounds) with the stage's settings."
    return np.asarray(shapley_values(fit_classifier(E, D, seed=seed, tree_method="hist", **settings), E))

def one_dag(p, n, seed):
    full = sample_dag(p, 50_000, seed=seed); s = full.head(n); sick = s.D == 1
    truths = {"logistic": ground_truth_shapley(full, n_eval=n, seed=seed),
              "squared": ground_truth_shapley(full, n_eval=n, seed=seed, reference={"squared_error"}, tree_method="hist")}
    X = pd.DataFrame(s.X, columns=[f"X{j}" for j in range(s.X.shape[1])])
    row = dict(p=p, n=n, seed=seed)
    for v in ("paper", "stable"):
        g = GRCI(seed=seed, variant=EXPERIMENTS.get(v, v), verbose=False).fit(X, s.D)
        for t, T in truths.items(): row[f"{v}|{t}"] = rbo_shapley(T, g.shap_.to_numpy(), patients=sick)
    E = g.errors_.to_numpy()
    fold_seeds = [1000 * seed + 777 + i for i in range(3)]   # integers: every stage sees the same three fold splits
    for name, kw in STAGES.items():
        S = sum(stage_shapley(E, s.D, q, **kw) for q in fold_seeds) / 3
        for t, T in truths.items(): row[f"{name}|{t}"] = rbo_shapley(T, S, patients=sick)
    return row

if __name__ == "__main__":
    df = main(one_dag, __doc__, ["10:500", "30:1000"], [0, 4])
    for t in ("logistic", "squared"):
        for x, y in (("squared_error", "logistic"), ("logistic_eta0.1", "logistic"), ("stable", "paper")):
            m, hw, k = t_ci(df[f"{x}|{t}"] - df[f"{y}|{t}"])
            print(f"truth {t:8s} {x} - {y}: {m:+.3f} ± {hw:.3f} ({k} DAGs)")
