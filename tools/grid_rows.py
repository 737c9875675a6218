"""The per-data-set loop the experiment tools share: one row per (cell, seed), printed as it comes and kept in a CSV."""
import argparse, time, warnings
from pathlib import Path
import pandas as pd
from grci_lit.beyond import EXPERIMENTS
from grci_lit.grci import GRCI
from grci_lit.metrics import ground_truth_shapley
from grci_lit.simulate import sample_dag

def default_fit(gen, p, n, seed):
    """A grid data set as the experiments read it: its first n of 50 000 rows, the truth on them, the diseased rows, the
    column names X0.. and `GRCI(seed=seed, variant=EXPERIMENTS["smoothed"])` (the default when these experiments ran)
    fitted on them."""
    full = sample_dag(p, 50_000, seed=seed, pnl=gen == "pnl"); s = full.head(n)
    truth = ground_truth_shapley(full, n_eval=n, seed=seed)
    cols = [f"X{j}" for j in range(p - 1)]
    return truth, s.D == 1, cols, GRCI(seed=seed, variant=EXPERIMENTS["smoothed"], verbose=False).fit(pd.DataFrame(s.X, columns=cols), s.D)

def parse_cell(cell:str)->tuple:
    "'p:n' -> (p, n); 'generator:p:n' -> (generator, p, n)."
    *gen, p, n = cell.split(":")
    return (*gen, int(p), int(n))

def run_rows(one_dag, cells, seeds, out=None, describe=lambda row: "")->pd.DataFrame:
    """`one_dag(*parse_cell(cell), seed)` for every seed (outer) and cell; each row is appended to the CSV `out` at once,
    and a (cell, seed) whose row is already there is read back instead of rerun."""
    out = None if out is None else Path(out)
    rows = pd.read_csv(out).to_dict("records") if out is not None and out.exists() else []
    for seed in range(*seeds):
        for cell in cells:
            args = parse_cell(cell)
            key = dict(zip(("generator", "p", "n") if len(args) == 3 else ("p", "n"), args), seed=seed)
            if any(all(r.get(k) == v for k, v in key.items()) for r in rows): continue
            t = time.perf_counter()
            rows.append(one_dag(*args, seed))
            print(f"{cell} seed {seed}: {describe(rows[-1])}({time.perf_counter() - t:.0f} s)", flush=True)
            if out is not None: pd.DataFrame(rows).to_csv(out, index=False)
    return pd.DataFrame(rows)

def main(one_dag, doc:str, cells, seeds, out_required:bool=False, describe=lambda row: "")->pd.DataFrame:
    "The command line every experiment tool shares: --cells, --seeds and --out, then `run_rows`."
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--cells", nargs="+", default=list(cells), help="cells: p:n, or generator:p:n (p counts D)")
    ap.add_argument("--seeds", nargs=2, type=int, default=list(seeds), help="first and one-past-last seed")
    ap.add_argument("--out", required=out_required, default=None, help="CSV of per-DAG rows (appended; data sets already in it are read back)")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    return run_rows(one_dag, a.cells, a.seeds, a.out, describe)
