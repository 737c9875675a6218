"""Same answer on every processor: Partial-Out and GRCI under four OpenBLAS kernels.

The same computations (tests/_kernel_probe.py) run in subprocesses with OPENBLAS_CORETYPE unset, Haswell,
Sandybridge and Prescott: Partial-Out's leave-one-out errors on 999 standard normals and one point at 1000 (equal
to a relative 1e-6 where finite, infinite for the same candidates), and GRCI on PBC and on a simulated DAG (same
order, same skeleton, Shapley values equal to 1e-6). Run with -s to see the table.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

KERNELS = ("", "Haswell", "Sandybridge", "Prescott")   # "" = OpenBLAS's own choice for this processor
PROBE = Path(__file__).with_name("_kernel_probe.py")
ROOT = PROBE.parents[1]


def _numpy_uses_openblas():
    try: cfg = np.show_config(mode="dicts")
    except TypeError: return False
    return "openblas" in json.dumps(cfg.get("Build Dependencies", {})).lower()


@pytest.fixture(scope="module")
def runs():
    if not _numpy_uses_openblas(): pytest.skip("numpy is not linked against OpenBLAS: OPENBLAS_CORETYPE has no effect")
    procs = {}
    for k in KERNELS:
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg",
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        env.pop("OPENBLAS_CORETYPE", None)
        if k: env["OPENBLAS_CORETYPE"] = k
        procs[k] = subprocess.Popen([sys.executable, str(PROBE)], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
    out = {}
    for k, p in procs.items():
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, f"kernel {k or 'default'}: the probe failed:\n{stderr[-2000:]}"
        out[k] = json.loads(stdout.strip().splitlines()[-1])
    return out


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    fin = np.isfinite(a) & np.isfinite(b)
    return float(np.max(np.abs(a[fin] - b[fin]) / np.maximum(np.abs(a[fin]), 1e-300))) if fin.any() else 0.0


def test_cross_kernel(runs):
    base = runs[""]
    print("\nkernel       | LOO inf same | max rel LOO diff | PBC order | PBC skeleton | PBC max|dShap| "
          "| DAG order | DAG skeleton | DAG max|dShap|")
    rows = []
    for k, r in runs.items():
        row = dict(kernel=k or "default", inf_same=bool(np.array_equal(np.isinf(r["loo"]), np.isinf(base["loo"]))),
                   loo=_rel(r["loo"], base["loo"]))
        for data in ("pbc", "dag"):
            row[data + "_order"] = r[data]["order"] == base[data]["order"]
            row[data + "_skeleton"] = r[data]["skeleton"] == base[data]["skeleton"]
            row[data + "_shap"] = float(np.max(np.abs(np.subtract(r[data]["shap"], base[data]["shap"]))))
        rows.append(row)
        print(f"{row['kernel']:12s} | {row['inf_same']!s:12s} | {row['loo']:16.1e} | {row['pbc_order']!s:9s} | "
              f"{row['pbc_skeleton']!s:12s} | {row['pbc_shap']:14.1e} | {row['dag_order']!s:9s} | "
              f"{row['dag_skeleton']!s:12s} | {row['dag_shap']:14.1e}")
    # the extreme example: the candidates that isolate the point at 1000 have leverage ~1 and get +inf, the others agree
    assert np.isinf(base["loo"]).any() and np.isfinite(base["loo"][0]) and base["knots"] == 0
    for row in rows:
        assert row["inf_same"] and row["loo"] < 1e-6, row
        assert row["pbc_order"] and row["pbc_skeleton"] and row["pbc_shap"] < 1e-6, row
        assert row["dag_order"] and row["dag_skeleton"] and row["dag_shap"] < 1e-6, row
    assert len({r["knots"] for r in runs.values()}) == 1
