#!/usr/bin/env python
"""A reference column for the zoo (chapter Beyond the paper): DoWhy's `gcm.attribute_anomalies` given the TRUE graph.

GRCI recovers the errors without the graph; DoWhy's graphical causal models attribute a sample's anomaly in D to the
noise of each upstream node when the graph is known. For each zoo data set (family, p, n, seed), on the same seeded
subset of the patients with D = 1, this stores the RBO against the ground-truth Shapley values (chapter metrics) of
DoWhy given the true graph (mechanisms by `gcm.auto.assign_causal_mechanisms`, D fitted as a 0/1 number so that every
node is invertible) and of `GRCI()`, and the wall seconds of each, one thread. The distance between the two is the
room the graph would give. DoWhy is not a dependency of grci_lit: run this in an environment with `pip install
dowhy==0.14` (it pins an older scipy, so keep it out of the development environment). One JSON file per data set in
--out. A stored data set is not given to DoWhy again: when its `GRCI()` entry ("default") is missing or was fitted
under other settings, only `GRCI()` is fitted and scored again, on the stored patients, and that entry is overwritten
(to keep an earlier default's entry beside the new one, rename it first, as "one window" was).

    python tools/zoo_dowhy.py --seeds 100 105 --out results/beyond_the_paper/zoo_dowhy
"""
import argparse, json, time, warnings
from pathlib import Path

import numpy as np, pandas as pd

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", nargs="+", default=None)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seeds", nargs=2, type=int, default=[100, 105], help="first and one-past-last seed")
    ap.add_argument("--patients", type=int, default=30, help="patients with D = 1 scored per data set (seeded subset)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    import networkx as nx, dowhy
    from dowhy import gcm
    from provenance import record_run
    from grci_lit.grci import GRCI, VARIANTS
    from grci_lit.beyond import _settings_of
    from grci_lit.metrics import ground_truth_shapley, rbo_shapley
    from grci_lit.simulate import ZOO_FAMILIES, sample_zoo
    gcm.config.default_n_jobs = 1; gcm.config.disable_progress_bars()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    record_run(out, dowhy=dowhy.__version__)
    p, n = a.p, a.n
    settings = _settings_of(VARIANTS["default"])                          # stored beside GRCI()'s entry: a later default refits it
    for seed in range(*a.seeds):
        for family in (a.families or list(ZOO_FAMILIES)):
            path = out / f"{family}_p{p}_n{n}_s{seed}.json"
            stored = json.loads(path.read_text()) if path.exists() else None
            if stored is not None and stored.get("default", {}).get("settings") == settings: continue
            full = sample_zoo(family, p + 1, max(n, 50_000), seed=seed); s = full.head(n)
            truth = ground_truth_shapley(full, n_truth=50_000, n_eval=n, seed=seed)
            names = [f"X{j}" for j in range(p)]
            rng = np.random.default_rng([seed, 7])
            sick = np.sort(rng.choice(np.flatnonzero(s.D == 1), min(a.patients, int((s.D == 1).sum())), replace=False))
            mask = np.zeros(n, bool); mask[sick] = True
            if stored is not None:                                        # DoWhy's entry stays: GRCI() alone, on the same patients
                if sick.tolist() != stored["patients"]:
                    raise SystemExit(f"{path.name}: the seeded patients differ from the stored ones (another --patients?)")
                t = time.perf_counter()
                g = GRCI(seed=0, verbose=False).fit(pd.DataFrame(s.X, columns=names), s.D)
                stored["default"] = dict(rbo=rbo_shapley(truth, g.ranking_scores().to_numpy(), patients=mask),
                                         seconds=time.perf_counter() - t, settings=settings)
                path.write_text(json.dumps(stored, indent=1))
                print(f"{family} {p}x{n} seed {seed}: default {stored['default']['rbo']:.3f} (GRCI() only)", flush=True)
                continue
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
            for j, name in enumerate(names):
                if name in attr: S[sick, j] = attr[name]
            res = {"dowhy": dict(rbo=rbo_shapley(truth, S, patients=mask), seconds=time.perf_counter() - t)}
            t = time.perf_counter()
            g = GRCI(seed=0, verbose=False).fit(pd.DataFrame(s.X, columns=names), s.D)
            res["default"] = dict(rbo=rbo_shapley(truth, g.ranking_scores().to_numpy(), patients=mask), seconds=time.perf_counter() - t,
                                  settings=settings)
            res["patients"] = sick.tolist()
            path.write_text(json.dumps(res, indent=1))
            print(f"{family} {p}x{n} seed {seed}: dowhy {res['dowhy']['rbo']:.3f} ({res['dowhy']['seconds']:.0f} s), "
                  f"default {res['default']['rbo']:.3f} ({res['default']['seconds']:.1f} s)", flush=True)
