"""How far can better error recovery take GRCI? The Shapley stage on the TRUE errors (chapter Beyond the paper).

For each simulated DAG of a grid cell, the stable variant's Shapley stage (three cross-validated XGBoost models
averaged, seeded exactly as `GRCI(seed=seed)` seeds them) is fitted on the data set's true error terms instead of the
recovered ones, and scored by RBO against the ground truth (XGBoost on 50 000 rows of true errors). A second score
keeps only the errors of D's ancestors (the others get Shapley value 0), which no method can know from data: it
shows what the Shapley stage loses to the errors that have nothing to do with D. Rows append to a CSV; a DAG already
in it is skipped.

    python tools/error_ceiling.py --cells hnm:10:500 hnm:30:2000 --seeds 0 30 --out results/beyond_the_paper/ceiling.csv
"""
import numpy as np, pandas as pd
from grci_lit.grci import AveragedShapleyModel, _shapley
from grci_lit.metrics import ground_truth_shapley, rbo_shapley
from grci_lit.shapley import fit_classifier
from grci_lit.simulate import sample_dag
from grid_rows import main

def stable_stage(E, D, seed, fits=3):
    "The stable variant's Shapley stage on errors E, its models seeded as in `GRCI(seed=seed).fit`."
    seeds = np.random.default_rng(seed).spawn(4)[3].spawn(fits)
    model = AveragedShapleyModel([fit_classifier(E, D, seed=s) for s in seeds])
    return np.asarray(_shapley(model, E))

def one_dag(gen, p, n, seed):
    full = sample_dag(p, 50_000, seed=seed, pnl=gen == "pnl"); s = full.head(n); sick = s.D == 1
    truth = ground_truth_shapley(full, n_eval=n, seed=seed)
    E = pd.DataFrame(s.E, columns=[f"X{j}" for j in range(s.E.shape[1])])
    anc = np.asarray(full.ancestors_D)
    true_errors = rbo_shapley(truth, stable_stage(E, s.D, seed), patients=sick)
    only = np.zeros(E.shape)
    if len(anc): only[:, anc] = stable_stage(E.iloc[:, anc], s.D, seed)
    return dict(generator=gen, p=p, n=n, seed=seed, true_errors=true_errors,
                ancestors_only=rbo_shapley(truth, only, patients=sick), n_ancestors=len(anc))

if __name__ == "__main__":
    main(one_dag, __doc__, ["hnm:10:500"], [0, 30], out_required=True,
         describe=lambda r: f"true errors {r['true_errors']:.3f}, ancestors only {r['ancestors_only']:.3f} ")
