"""The `grci-lit` command line, run as a user runs it: in a subprocess (`python -m grci_lit.cli ...`)."""
import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import grci_lit
from grci_lit.simulate import sample_dag

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
NAMES = [f"v{j}" for j in range(6)]


def cli(*args, cwd=None):
    "Run `python -m grci_lit.cli *args`; return the CompletedProcess (text stdout/stderr)."
    return subprocess.run([sys.executable, "-m", "grci_lit.cli", *map(str, args)], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=600)


@pytest.fixture(scope="module")
def sim_csv(tmp_path_factory):
    "A CSV of the paper's synthetic design: 6 variables v0..v5, binary `dx`, ids in `pid`; and the sample."
    s = sample_dag(p=7, n=250, seed=1)
    df = pd.DataFrame(s.X, columns=NAMES).assign(dx=s.D, pid=np.arange(500, 750))
    path = tmp_path_factory.mktemp("data") / "sim.csv"
    df.to_csv(path, index=False)
    return path, df


def test_help_lists_the_commands():
    r = cli("--help")
    assert r.returncode == 0
    assert "run" in r.stdout and "demo" in r.stdout
    r = cli("run", "--help")
    assert r.returncode == 0 and "--target" in r.stdout and "--dropna" in r.stdout


def test_demo_prints_root_causes():
    r = cli("demo", "--quiet")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if l.strip().startswith("patient")]
    assert len(lines) == 5
    known = {"age", "bili", "chol", "albumin", "copper", "alk.phos", "ast", "trig", "platelet", "protime"}
    for l in lines:   # "patient <id>: bili .., age ..  ->  cause, cause  truth: a, b"
        causes = l.split("->")[1].split("truth:")[0].replace(",", " ").split()
        assert causes and set(causes) <= known | {"(none)"}
    assert "Traceback" not in r.stderr


def test_run_writes_every_output(sim_csv, tmp_path):
    path, df = sim_csv
    out = tmp_path / "res"
    r = cli("run", path, "--target", "dx", "--index-col", "pid", "--out", out, "--plots", "2", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert "GRCI on" in r.stdout
    names = {p.name for p in out.iterdir()}
    for f in ("shapley_values.csv", "root_causes.csv", "errors.csv", "skeleton.csv", "order.csv", "grci.pkl",
              "summary.png", "report.html"):
        assert f in names
    assert len([n for n in names if n.startswith("patient_") and n.endswith(".png")]) == 2
    shap = pd.read_csv(out / "shapley_values.csv", index_col=0)
    assert shap.shape == (250, 6) and list(shap.columns) == NAMES and list(shap.index) == list(df.pid)
    errors = pd.read_csv(out / "errors.csv", index_col=0)
    assert errors.shape == (250, 6) and list(errors.columns) == NAMES and np.isfinite(errors.to_numpy()).all()
    rc = pd.read_csv(out / "root_causes.csv", index_col=0)
    assert list(rc.columns) == ["dx", "log_odds", "n_root_causes", "root_cause_1", "root_cause_2", "root_cause_3"]
    sick = df.dx.to_numpy() == 1
    assert list(rc.index) == list(df.pid[sick]) and (rc.dx == 1).all()        # D = 0 patients are left out
    from grci_lit.grci import GRCI, shape_windows, shapley_curves, smoothed_shapley
    g = GRCI.load(out / "grci.pkl")
    # the default ranks by smoothed s x the variable's importance
    weight = shap.abs().mean() / shap.abs().mean().max()
    # each error's window, chosen by its curve's shape
    windows = shape_windows(shap, errors)
    assert windows.equals(g.rank_windows_)
    score = smoothed_shapley(shap, errors, shapley_curves(shap, errors, window=windows)) * weight.to_numpy()
    assert np.allclose(score.to_numpy(), g.ranking_scores().to_numpy(), atol=1e-9)
    score1 = score.loc[rc.index]
    assert (rc.n_root_causes.to_numpy() == (score1.to_numpy() > 0).sum(1)).all()
    top = score1.idxmax(axis=1).where(score1.max(axis=1) > 0)
    # the first root cause: the largest score, score > 0
    assert (rc.root_cause_1.fillna("-") == top.fillna("-")).all()
    page = (out / "report.html").read_text()
    links = re.findall(r'(?:src|href)="([^"]*)"', page)                      # every image inline: nothing to fetch
    assert "<script>" in page and links and all(u.startswith("data:image/png;base64,") for u in links)
    sk = pd.read_csv(out / "skeleton.csv", index_col=0)
    assert sk.shape == (6, 6) and list(sk.columns) == NAMES and list(sk.index) == NAMES
    assert (sk.to_numpy() == sk.to_numpy().T).all() and not np.diag(sk.to_numpy()).any()
    order = pd.read_csv(out / "order.csv")
    assert list(order.columns) == ["position", "variable"] and sorted(order.variable) == NAMES
    # the pickled model explains the same patients the same way
    assert np.allclose(g.explain(df[NAMES]).to_numpy(), shap.to_numpy(), atol=1e-4)
    # and the same seed gives the same Shapley values
    r2 = cli("run", path, "--target", "dx", "--index-col", "pid", "--out", tmp_path / "again", "--plots", "0",
             "--seed", "3", "--quiet")
    assert r2.returncode == 0 and r2.stdout == ""
    assert (pd.read_csv(tmp_path / "again" / "shapley_values.csv", index_col=0).to_numpy() == shap.to_numpy()).all()


def _bad_files(folder, df):
    "name -> (arguments after `run`, a word the error message must contain)."
    f = lambda name: folder / name
    df.assign(v2=df.v2.astype(object).where(df.index != 5, "high")).to_csv(f("text.csv"), index=False)
    df.assign(v3=np.where(df.index < 4, np.nan, df.v3)).to_csv(f("gaps.csv"), index=False)
    df.assign(dx=df.index % 3).to_csv(f("three.csv"), index=False)
    df.assign(dx=np.where(df.dx == 1, "yes", "no")).to_csv(f("words.csv"), index=False)
    df.assign(dx=1).to_csv(f("one.csv"), index=False)
    df.iloc[:30].to_csv(f("short.csv"), index=False)
    df.assign(v4=2.5).to_csv(f("constant.csv"), index=False)
    df.assign(v1=np.where(df.index == 7, np.inf, df.v1)).to_csv(f("inf.csv"), index=False)
    f("empty.csv").write_text("")
    f("header.csv").write_text(",".join(df.columns) + "\n")
    df.assign(v1=np.nan).to_csv(f("allnan.csv"), index=False)
    df.rename(columns={"v0": "température"}).to_csv(f("latin1.csv"), index=False, encoding="latin-1")
    f("book.xlsx").write_bytes(b"PK\x03\x04" + bytes(300))
    f("blob.csv").write_bytes(bytes(range(256)) * 20)
    df.assign(v1=df.v1.astype(object).where(df.index != 7, "n/a?")).to_csv(f("cell.csv"), index=False)
    df.iloc[:1].to_csv(f("onerow.csv"), index=False)
    df.rename(columns={"dx": "log_odds"}).to_csv(f("log_odds.csv"), index=False)
    df.rename(columns={"dx": "root_cause_1"}).to_csv(f("root_cause_1.csv"), index=False)
    df.rename(columns={"v0": "patient"}).to_csv(f("patient.csv"), index=False)
    return {"missing file": ((f("nope.csv"), "--target", "dx"), "not found"),
            "missing target": ((f("text.csv"), "--target", "died"), "'died'"),
            "non-numeric column": ((f("text.csv"), "--target", "dx"), "v2"),
            "NaN without --dropna": ((f("gaps.csv"), "--target", "dx"), "--dropna"),
            "D not binary": ((f("three.csv"), "--target", "dx"), "binary"),
            "D as words": ((f("words.csv"), "--target", "dx"), "--positive yes"),
            "one class": ((f("one.csv"), "--target", "dx"), "one class"),
            "too few rows": ((f("short.csv"), "--target", "dx"), "30 rows"),
            "constant column": ((f("constant.csv"), "--target", "dx"), "v4"),
            "infinite value": ((f("inf.csv"), "--target", "dx"), "v1"),
            "empty file": ((f("empty.csv"), "--target", "dx"), "empty"),
            "missing index column": ((f("text.csv"), "--target", "dx", "--index-col", "id"), "'id'"),
            "missing excluded column": ((f("gaps.csv"), "--target", "dx", "--exclude", "v9"), "['v9'] not found"),
            "header only": ((f("header.csv"), "--target", "dx"), "no data rows, only the header"),
            "--dropna empties": ((f("allnan.csv"), "--target", "dx", "--dropna"), "--dropna left no rows"),
            "latin-1 file": ((f("latin1.csv"), "--target", "dx"), "--encoding latin-1"),
            "unknown encoding": ((f("latin1.csv"), "--target", "dx", "--encoding", "klingon"), "unknown encoding"),
            "xlsx file": ((f("book.xlsx"), "--target", "dx"), "Excel .xlsx workbook, not CSV text"),
            "binary file": ((f("blob.csv"), "--target", "dx"), "binary file, not CSV text"),
            "text cell": ((f("cell.csv"), "--target", "dx"), "column 'v1': row 8 holds 'n/a?', which is not a number"),
            "one row": ((f("onerow.csv"), "--target", "dx"), "only one class (0)"),
            "target log_odds": ((f("log_odds.csv"), "--target", "log_odds"),
                                "target 'log_odds' has the name of a column"),
            "target root_cause_1": ((f("root_cause_1.csv"), "--target", "root_cause_1"), "target 'root_cause_1'"),
            "variable patient": ((f("patient.csv"), "--target", "dx"), "column 'patient' has the name")}


BAD_CASES = ["missing file", "missing target", "non-numeric column", "NaN without --dropna", "D not binary",
             "D as words", "one class", "too few rows", "constant column", "infinite value", "empty file",
             "missing index column", "missing excluded column", "header only", "--dropna empties", "latin-1 file",
             "unknown encoding", "xlsx file", "binary file", "text cell", "one row", "target log_odds",
             "target root_cause_1", "variable patient"]


@pytest.fixture(scope="module")
def bad_files(sim_csv, tmp_path_factory):
    return _bad_files(tmp_path_factory.mktemp("bad"), sim_csv[1].drop(columns="pid"))


def _check_one_line(code, stderr, word, out):
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grci-lit: error: "), stderr
    assert word in lines[0], lines[0]
    assert "np.int64" not in lines[0] and "Traceback" not in stderr
    # nothing written on failure, not even beside it
    assert not out.exists() and not list(out.parent.glob(f".{out.name}.*"))


@pytest.mark.parametrize("case", ["missing file", "non-numeric column", "NaN without --dropna", "too few rows",
                                  "latin-1 file", "xlsx file", "header only", "target log_odds"])
def test_bad_csv_subprocess(case, bad_files, tmp_path):
    "A few cases end to end: exit code 2 and one line on stderr, no traceback."
    args, word = bad_files[case]
    r = cli("run", *args, "--out", tmp_path / "out", "--quiet")
    _check_one_line(r.returncode, r.stderr, word, tmp_path / "out")


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_csv_every_case(case, bad_files, tmp_path, capsys):
    "Every case through `main(argv)` in-process (the function the console script calls)."
    from grci_lit.cli import main
    args, word = bad_files[case]
    code = main(["run", *map(str, args), "--out", str(tmp_path / "out"), "--quiet"])
    _check_one_line(code, capsys.readouterr().err, word, tmp_path / "out")


def test_dropna_reports_the_count(bad_files, tmp_path):
    args, _ = bad_files["NaN without --dropna"]
    r = cli("run", *args, "--dropna", "--out", tmp_path / "out", "--quiet", "--plots", "0")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""                                # --quiet: nothing but errors
    assert len(pd.read_csv(tmp_path / "out" / "shapley_values.csv")) == 246
    args, _ = bad_files["latin-1 file"]                                       # --encoding reads what the message named
    r = cli("run", *args, "--encoding", "latin-1", "--out", tmp_path / "latin", "--quiet", "--plots", "0",
            "--no-report")
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(tmp_path / "latin" / "shapley_values.csv", index_col=0).columns[0] == "température"
    args, _ = bad_files["infinite value"]                                     # --dropna also drops infinite values
    r = cli("run", *args, "--dropna", "--out", tmp_path / "out2", "--plots", "0", "--no-report")
    assert r.returncode == 0, r.stderr
    assert "dropped 1 incomplete row(s); 249 remain" in r.stdout
    assert len(pd.read_csv(tmp_path / "out2" / "shapley_values.csv")) == 249


@pytest.mark.skipif(shutil.which("grci-lit") is None, reason="the grci-lit entry point is not installed")
def test_entry_point():
    r = subprocess.run(["grci-lit", "--help"], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 0 and "demo" in r.stdout


# ------------------------------------------------------------------------------------------- grci-lit bench
def test_bench_help_lists_the_benchmarks():
    r = cli("bench", "--help")
    assert r.returncode == 0, r.stderr
    for b in ("pairs", "tuebingen", "skeleton", "partial-out", "grci"):
        assert b in r.stdout
    r = cli("bench", "pairs", "--help")
    assert r.returncode == 0 and "--n-pairs" in r.stdout and "--methods" in r.stdout


def test_bench_pairs_tiny(tmp_path):
    r = cli("bench", "pairs", "--n-pairs", "2", "--n", "200", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Synthetic pairs: 2 pairs per scenario, n = 200" in r.stdout and "Traceback" not in r.stderr
    t = pd.read_csv(tmp_path / "pairs.csv")
    assert len(t) == 7 * 4 and sorted(set(t.method)) == ["grci", "grci_default", "lingam", "resit"]
    assert (t.pairs == 2).all() and (t.n == 200).all()
    right = (t.groupby("method").accuracy.sum() * 2).to_dict()                # right answers out of 7 x 2 pairs
    assert right == {"grci": 7, "grci_default": 9, "lingam": 9, "resit": 7}, right
    # the same seed gives the same table
    r2 = cli("bench", "pairs", "--n-pairs", "2", "--n", "200", "--out", tmp_path / "again")
    assert (pd.read_csv(tmp_path / "again" / "pairs.csv").accuracy == t.accuracy).all()


def test_bench_tuebingen_lingam():
    r = cli("bench", "tuebingen", "--methods", "lingam")
    assert r.returncode == 0, r.stderr
    assert "Tübingen: 97 pairs" in r.stdout and "lingam" in r.stdout


def test_bench_other_commands_tiny(tmp_path):
    r = cli("bench", "partial-out", "--sizes", "300", "1000", "--reps", "1", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert list(pd.read_csv(tmp_path / "partial_out.csv").n) == [300, 1000]
    r = cli("bench", "grci", "accuracy", "--n", "200", "--p", "5")
    assert r.returncode == 0, r.stderr
    assert "local accuracy" in r.stdout
    r = cli("bench", "skeleton", "--only", "calibration", "--reps", "3", "--n", "200", "--no-causallearn")
    assert r.returncode == 0, r.stderr
    assert "reject_rate_null" in r.stdout


def test_bench_bad_sizes_one_line():
    from grci_lit.cli import main
    assert main(["bench", "pairs", "--n-pairs", "0"]) == 2
    r = cli("bench", "grci", "rbo", "--seeds", "0")
    assert r.returncode == 2 and r.stderr.strip().startswith("grci-lit: error: --seeds must be >= 1")


def test_bench_synth_resumes(tmp_path):
    argv = ("bench", "synth", "--p", "6", "--n", "200", "--reps", "2", "--n-truth", "2000", "--methods", "grci", "rci",
            "--out", tmp_path, "--no-progress")
    r = cli(*argv)
    assert r.returncode == 0, r.stderr
    assert "mean rbo" in r.stdout and "mean mse" in r.stdout and "mean seconds" in r.stdout
    files = sorted((tmp_path / "synth").glob("*.json"))
    assert len(files) == 4                                                   # 2 data sets x 2 methods
    first = pd.read_csv(tmp_path / "synth_results.csv")
    assert set(first.method) == {"grci", "rci"}
    assert np.allclose(first.sort_values(["method", "seed"]).rbo, [0.720, 1.0, 0.680, 1.0], atol=1e-3), first
    files[0].unlink()                                                        # an interrupted run lost one result
    stamps = {f: f.stat().st_mtime_ns for f in files[1:]}
    r = cli(*argv)
    assert r.returncode == 0, r.stderr
    assert all(f.stat().st_mtime_ns == t for f, t in stamps.items())         # the others were not recomputed
    again = pd.read_csv(tmp_path / "synth_results.csv")
    assert (again.rbo.to_numpy() == first.rbo.to_numpy()).all()              # and the lost one came back identical


def test_bench_real_tiny(tmp_path):
    r = cli("bench", "real", "--datasets", "pbc", "--bootstraps", "1", "--methods", "rci", "ica", "--out", tmp_path,
            "--no-progress")
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path / "real_results.csv")
    assert list(t.method) == ["rci", "ica"] and (t.dataset == "pbc").all()
    assert np.allclose(t.rbo, [0.328, 0.282], atol=1e-3), t.rbo


def test_bench_dask_needs_a_scheduler(tmp_path):
    r = cli("bench", "synth", "--backend", "dask", "--out", tmp_path)
    assert r.returncode == 2 and "--scheduler" in r.stderr and "Traceback" not in r.stderr


def test_dask_backend_matches_joblib(tmp_path):
    "The same jobs on a dask LocalCluster give the numbers joblib gives (dask is in the optional `bench` extra)."
    dd = pytest.importorskip("dask.distributed")
    from grci_lit.bench.runner import run_experiment, synth_jobs
    jobs = synth_jobs(ps=(6,), ns=(200,), reps=2, methods=("grci", "ica"), n_truth=2000, start=11)
    with dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
         dd.Client(cluster) as client:
        on_dask = run_experiment(jobs, tmp_path / "dask", backend="dask", scheduler=client.scheduler.address,
                                 progress=False)
    on_joblib = run_experiment(jobs, tmp_path / "joblib", n_jobs=1, progress=False)
    cols = ["seed", "method", "rbo", "mse"]
    assert len(on_dask) == 4
    assert (on_dask[cols].to_numpy() == on_joblib[cols].to_numpy()).all()


@pytest.fixture(scope="module")
def pbc_words(tmp_path_factory):
    "The shipped PBC data with D written as words: 'died' / 'alive'; its 0/1 version beside it."
    from grci_lit.datasets import load_pbc
    X, D = load_pbc()
    folder = tmp_path_factory.mktemp("pbc")
    X.assign(status=D.map({1: "died", 0: "alive"})).to_csv(folder / "pbc_words.csv", index_label="id")
    X.assign(status=D).to_csv(folder / "pbc.csv", index_label="id")
    return folder, X, D


def test_positive_names_the_disease(pbc_words, tmp_path):
    "A string target with --positive gives the same fit as its 0/1 version; without it, both values and the option."
    folder, X, D = pbc_words
    from grci_lit.cli import main
    r = cli("run", folder / "pbc_words.csv", "--target", "status", "--index-col", "id", "--out", tmp_path / "w",
            "--quiet")
    assert r.returncode == 2 and "'alive' and 'died'" in r.stderr and "--positive died" in r.stderr, r.stderr
    argv = ["--index-col", "id", "--quiet", "--plots", "0", "--waterfalls", "0", "--no-report"]
    assert main(["run", str(folder / "pbc_words.csv"), "--target", "status", "--positive", "died", "--out",
                 str(tmp_path / "w"), *argv]) == 0
    assert main(["run", str(folder / "pbc.csv"), "--target", "status", "--positive", "1", "--out",
                 str(tmp_path / "n"), *argv]) == 0
    sw = pd.read_csv(tmp_path / "w" / "shapley_values.csv", index_col=0)
    sn = pd.read_csv(tmp_path / "n" / "shapley_values.csv", index_col=0)
    assert np.array_equal(sw.to_numpy(), sn.to_numpy())
    rc = pd.read_csv(tmp_path / "w" / "root_causes.csv", index_col=0)
    assert (rc.status == "died").all() and len(rc) == int(D.sum())
    r = cli("run", folder / "pbc_words.csv", "--target", "status", "--positive", "dead", "--out", tmp_path / "x")
    assert r.returncode == 2 and "--positive dead" in r.stderr and "'died'" in r.stderr


def test_messages_name_the_option(sim_csv, tmp_path, capsys):
    "Each input problem names the option that fixes it: --index-col, --exclude, --sep."
    from grci_lit.cli import main
    path, df = sim_csv
    cases = {"ids.csv": (df.assign(pid=[f"P{k:04d}" for k in range(len(df))]), "--index-col pid"),
             "sex.csv": (df.assign(sex=np.where(df.index % 2, "F", "M")), "--exclude sex"),
             "semicolon.csv": (df, "--sep ';'")}
    for name, (table, word) in cases.items():
        table.to_csv(tmp_path / name, index=False, sep=";" if name == "semicolon.csv" else ",")
        code = main(["run", str(tmp_path / name), "--target", "dx", "--out", str(tmp_path / "out"), "--quiet"])
        _check_one_line(code, capsys.readouterr().err, word, tmp_path / "out")
    from grci_lit.cli import read_table
    X, D, _ = read_table(tmp_path / "semicolon.csv", "dx", sep=";", index_col="pid")
    assert X.shape == (len(df), 6) and list(D) == list(df.dx)
    df.to_csv(tmp_path / "tab.csv", index=False, sep="\t")
    assert read_table(tmp_path / "tab.csv", "dx", sep="tab", index_col="pid")[0].shape == (len(df), 6)
    with pytest.warns(UserWarning, match="--index-col pid"):                 # an id column used as a variable
        read_table(path, "dx")


def test_ci_test_option(sim_csv, tmp_path):
    from grci_lit.grci import GRCI
    path, _ = sim_csv
    r = cli("run", path, "--target", "dx", "--index-col", "pid", "--ci-test", "fisher_z", "--out", tmp_path / "o",
            "--quiet", "--plots", "0", "--no-report")
    assert r.returncode == 0, r.stderr
    assert GRCI.load(tmp_path / "o" / "grci.pkl").settings_.ci_test == "fisher_z"
    r = cli("run", path, "--target", "dx", "--ci-test", "nope", "--out", tmp_path / "p")
    assert r.returncode == 2 and "--ci-test" in r.stderr and "fisher_z" in r.stderr


def test_variant_option(sim_csv, tmp_path):
    "`--variant` reaches GRCI: the paper's variant's fit is the one `GRCI(variant='paper')` gives in Python."
    from grci_lit.grci import GRCI, PAPER
    path, df = sim_csv
    r = cli("run", path, "--target", "dx", "--index-col", "pid", "--variant", "paper", "--out", tmp_path / "o",
            "--quiet", "--plots", "0", "--no-report")
    assert r.returncode == 0, r.stderr
    g = GRCI.load(tmp_path / "o" / "grci.pkl")
    assert g.settings_ == PAPER and g.settings_.name == "paper"
    X, D = df.set_index("pid")[NAMES], df.set_index("pid")["dx"]
    ref = GRCI(variant="paper", seed=0, verbose=False).fit(X, D)
    assert list(g.order_) == list(ref.order_)
    np.testing.assert_allclose(g.shap_.to_numpy(), ref.shap_.to_numpy(), atol=1e-9)
    r = cli("run", path, "--target", "dx", "--variant", "nope", "--out", tmp_path / "p")
    assert r.returncode == 2 and "--variant" in r.stderr and "default" in r.stderr and "paper" in r.stderr


def _browser():
    "Playwright's sync API and Debian's chromium, or a skip (outside CI) / failure (in CI) saying how to install them."
    try: from playwright.sync_api import sync_playwright
    except ImportError: sync_playwright = None
    if sync_playwright is None or not Path("/usr/bin/chromium").exists():
        msg = ("the report test needs Debian's chromium and Playwright: apt-get update && apt-get install -y chromium; "
               "pip install playwright")
        if os.environ.get("CI"): pytest.fail(msg)
        pytest.skip(msg)
    return sync_playwright


def test_report_in_chromium(pbc_words, tmp_path):
    "report.html opens from disk in headless Chromium with no failed or external request, and its search filters rows."
    sync_playwright = _browser()
    folder, X, D = pbc_words
    out = tmp_path / "rep"
    r = cli("run", folder / "pbc_words.csv", "--target", "status", "--positive", "died", "--index-col", "id",
            "--out", out, "--quiet", "--plots", "1", "--waterfalls", "5", "--seeds", "2")
    assert r.returncode == 0, r.stderr
    rc = pd.read_csv(out / "root_causes.csv", index_col=0)
    requests, failed, errors = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                          "--disable-component-update", "--disable-sync"])
        page = browser.new_page()
        page.on("request", lambda q: requests.append(q.url))
        page.on("requestfailed", lambda q: failed.append(q.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((out / "report.html").as_uri())
        page.wait_for_load_state("load")
        visible = lambda: page.locator("#patients tbody tr:visible").count()
        assert visible() == len(rc) == int(D.sum())
        assert page.locator("h2", has_text="Stability across seeds").count() == 1
        assert page.locator("img").count() == 3 + 5                          # graph, stability, summary, 5 waterfalls
        widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.naturalWidth)")
        assert min(widths) > 100, widths                                     # every embedded PNG decodes
        keys = [" ".join([str(i), "died", *row.dropna()]).lower()
                for i, row in rc.filter(like="root_cause_").iterrows()]
        pid = str(rc.index[7])
        page.fill("#search", pid)
        assert visible() == sum(pid in k for k in keys) >= 1
        cause = rc.root_cause_1.dropna().iloc[0]
        page.fill("#search", cause)
        want = sum(cause in k for k in keys)
        assert visible() == want and 0 < want < len(rc)
        assert page.locator("#shown").inner_text() == str(want)
        page.fill("#search", "no-such-variable")
        assert visible() == 0
        page.fill("#search", "")
        assert visible() == len(rc)
        browser.close()
    assert not failed and not errors, (failed, errors)
    external = [u for u in requests if not u.startswith(("file:", "data:"))]
    assert not external, external


# ------------------------------------------------------------------------------------------- safe outputs
def _files(folder):
    "Every file and folder under `folder`, as paths relative to it."
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


def test_ids_never_become_file_names(sim_csv, tmp_path):
    "Ids with '/', '..' or 300 characters: figures named by row, ids beside them, nothing outside --out."
    _, df = sim_csv
    sick = np.flatnonzero(df.dx.to_numpy() == 1)
    kinds = ["a/b{}", "x/../../../escaped{}", "p" * 300 + "{}"]
    ids = df.pid.astype(str).to_numpy(copy=True)
    ids[sick] = [kinds[k % 3].format(k) for k in range(len(sick))]
    data = tmp_path / "data"
    data.mkdir()
    df.assign(pid=ids).to_csv(data / "ids.csv", index=False)
    out = tmp_path / "deep" / "out"
    (out / "patient_x").mkdir(parents=True)                                  # the folder an id's '..' would climb from
    r = cli("run", data / "ids.csv", "--target", "dx", "--index-col", "pid", "--out", out, "--plots", "3",
            "--waterfalls", "3", "--force", "--quiet")
    assert (r.returncode, r.stderr) == (0, "")
    assert _files(tmp_path) == ["data", "data/ids.csv", "deep", "deep/out", *[f"deep/out/{f}" for f in _files(out)]]
    figures = pd.read_csv(out / "figures.csv")
    assert len(figures) == 3 and list(figures.file) == [f"patient_row{k}.png" for k in figures.row]
    assert sorted(p.name for p in out.glob("patient*")) == sorted(figures.file)
    assert all(ids[k - 1] == p for k, p in zip(figures.row, figures.patient))   # the row's own id beside the file
    page = (out / "report.html").read_text()
    assert all(f"({f})" in page for f in figures.file)


def test_one_run_one_folder(sim_csv, tmp_path):
    "run.json records the run; a second run replaces the first whole; inputs inside --out, foreign folders refused."
    path, _ = sim_csv
    out = tmp_path / "out"
    argv = ("run", path, "--target", "dx", "--index-col", "pid", "--out", out)
    r = cli(*argv, "--seeds", "2", "--plots", "1", "--waterfalls", "1")
    assert r.returncode == 0, r.stderr
    record = json.loads((out / "run.json").read_text())
    assert record["program"] == "grci-lit" and record["status"] == "complete"
    assert record["version"] == grci_lit.__version__
    assert record["command"] == ["grci-lit", *map(str, argv), "--seeds", "2", "--plots", "1", "--waterfalls", "1"]
    assert record["inputs"] == [{"path": str(path.resolve()), "bytes": path.stat().st_size,
                                 "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}]
    assert record["options"]["seeds"] == 2 and record["options"]["alpha"] is None and record["settings"]["alpha"] == 0.1
    assert record["started"] <= record["finished"]
    assert sorted(record["files"] + ["run.json"]) == _files(out)
    r = cli(*argv, "--plots", "0", "--no-report")                            # the same folder again
    assert r.returncode == 0 and "(the previous run there replaced whole)" in r.stdout, r.stdout
    assert sorted(json.loads((out / "run.json").read_text())["files"] + ["run.json"]) == _files(out)
    assert not {"report.html", "stability.csv", "stability.png", "shapley_values_mean.csv"} & set(_files(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]            # nothing left beside it
    # an input inside --out is refused, and left as it was
    copy = out / "errors.csv"
    before = copy.read_bytes()
    r = cli("run", copy, "--target", "dx", "--out", out)
    assert r.returncode == 2 and "an input file inside --out" in r.stderr and copy.read_bytes() == before
    r = cli(*argv, "--skeleton", out / "skeleton.csv")
    assert r.returncode == 2 and "an input file inside --out" in r.stderr
    # a folder that is not a run: refused, unless --force (then replaced whole)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    r = cli("run", path, "--target", "dx", "--index-col", "pid", "--out", mine, "--quiet", "--plots", "0")
    assert r.returncode == 2 and "--force" in r.stderr and (mine / "notes.txt").read_text() == "my notes"
    r = cli("run", path, "--target", "dx", "--index-col", "pid", "--out", mine, "--plots", "0", "--force")
    assert r.returncode == 0 and "replaced whole: --force" in r.stdout and not (mine / "notes.txt").exists()


def test_a_failed_run_leaves_the_previous_one(sim_csv, bad_files, tmp_path):
    "A run that fails in the fit, or cannot write, leaves the previous run; an unwritable --out fails before the fit."
    path, _ = sim_csv
    out = tmp_path / "out"
    assert cli("run", path, "--target", "dx", "--index-col", "pid", "--out", out, "--plots", "0",
               "--quiet").returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    args, _ = bad_files["constant column"]                                   # fails inside GRCI.fit
    r = cli("run", *args, "--out", out)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("grci-lit: error:")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    r = cli("run", path, "--target", "dx", "--out", path / "out")             # --out under a file
    assert r.returncode == 2 and "cannot write there" in r.stderr
    assert "GRCI 1/4" not in r.stderr                                        # refused before the fit began


def _interrupted(argv, where, tmp_path):
    "Run `grci-lit argv` in a subprocess that receives SIGINT (Ctrl-C) from inside `where`: 'fit' or 'report'."
    patch = {"fit": "import grci_lit.grci as m; name = 'extract_errors'",
             "report": "import grci_lit.run_report as m; name = 'report_html'"}[where]
    # a shell that starts a job in the background makes it ignore SIGINT, and Python then keeps it ignored:
    # restore Python's own handler, as in a terminal, so that the test runs alike under `cmd &` and nohup
    code = (f"import os, signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            f"import grci_lit.cli as cli\n{patch}\nreal = getattr(m, name)\n"
            "def interrupted(*args, **kwargs):\n    os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(*args, **kwargs)\n"
            f"setattr(m, name, interrupted)\nsys.exit(cli.main({[str(a) for a in argv]!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=tmp_path,
                          timeout=600)


@pytest.mark.parametrize("where", ["fit", "report"])
def test_ctrl_c_writes_nothing(sim_csv, tmp_path, where):
    "Ctrl-C in the fit or while the report is written: one line, exit code 130, no partial folder, the old run intact."
    path, _ = sim_csv
    out = tmp_path / "out"
    argv = ["run", path, "--target", "dx", "--index-col", "pid", "--out", out, "--plots", "1", "--quiet"]
    r = _interrupted(argv, where, tmp_path)
    assert (r.returncode, r.stderr) == (130, "grci-lit: interrupted: nothing written\n")
    assert list(tmp_path.iterdir()) == []
    assert cli(*argv).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    r = _interrupted(argv, where, tmp_path)
    assert (r.returncode, r.stderr) == (130, "grci-lit: interrupted: nothing written\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before and [p.name for p in tmp_path.iterdir()] == ["out"]


def test_names_escaped_where_they_land(sim_csv, tmp_path):
    "Dollar signs in figures, formulas in CSV cells, escape sequences on the terminal, each warning once."
    _, df = sim_csv
    odd = {"v0": "spend_$_a_b_$", "v1": "cost $5 and $6", "v2": "=HYPERLINK(\"http://x\")", "v3": "+cmd",
           "v4": "\x1b]0;new title\x07v4\x1b[31m", "v5": "@sum \U0001F600"}
    table = df.rename(columns=odd).assign(pid=[f"-{k}" if k % 2 else f"={k}+1" for k in range(len(df))])
    table.to_csv(tmp_path / "odd.csv", index=False)
    out = tmp_path / "out"
    r = cli("run", tmp_path / "odd.csv", "--target", "dx", "--index-col", "pid", "--out", out, "--seeds", "2",
            "--plots", "2")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr and "Traceback" not in r.stderr
    assert "\x1b" not in (out / "report.html").read_text()                   # nor the report
    warnings_ = [l for l in r.stderr.splitlines() if l.startswith("grci-lit: warning:")]
    assert len(warnings_) == len(set(warnings_))                             # each distinct warning once
    header = (out / "shapley_values.csv").read_text().splitlines()[0]
    assert header == ("patient,spend_$_a_b_$,cost $5 and $6,\"'=HYPERLINK(\"\"http://x\"\")\",'+cmd,"
                      "\x1b]0;new title\x07v4\x1b[31m,'@sum \U0001F600")
    shap = pd.read_csv(out / "shapley_values.csv", index_col=0)
    assert list(shap.index[:2]) == ["'=0+1", "'-1"]                         # string ids behind a quote
    # numbers untouched: negative values stay numbers
    assert (shap.to_numpy() < 0).any()
    rc = pd.read_csv(out / "root_causes.csv", index_col=0)
    quoted = [f"'{n}" if n[0] in "=+@" else n for n in odd.values()]
    assert rc.filter(like="root_cause_").stack().dropna().isin(quoted).all()
    from grci_lit.grci import GRCI
    g = GRCI.load(out / "grci.pkl")
    assert g.feature_names_in_ == list(odd.values())
    r = cli("run", tmp_path / "odd.csv", "--target", "dx", "--index-col", "pid", "--out", tmp_path / "again", "--quiet",
            "--plots", "0", "--no-report", "--skeleton", out / "skeleton.csv")    # read back without the quotes
    assert r.returncode == 0, r.stderr


def test_wide_table_refused_at_once(tmp_path):
    "6 000 columns x 50 rows: refused in one line that says what to do, before the fit, nothing written."
    rng = np.random.default_rng(0)
    pd.DataFrame(rng.normal(size=(50, 6000)),
                 columns=[f"c{j}" for j in range(6000)]).assign(dx=np.arange(50) % 2).to_csv(
        tmp_path / "wide.csv", index=False)
    r = cli("run", tmp_path / "wide.csv", "--target", "dx", "--out", tmp_path / "out")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("grci-lit: error: 6000 variables x 50 rows need at least") and "--exclude" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wide.csv"]


def test_failed_refit_leaves_the_estimator(sim_csv):
    "A fit that fails (here ties='error' on a tied column) leaves the earlier fit and its settings_ as they were."
    from grci_lit.grci import DEFAULT, GRCI, PAPER
    _, df = sim_csv
    X, D = df[NAMES], df.dx
    g = GRCI(seed=0, verbose=False).fit(X, D)
    before = {k: v for k, v in vars(g).items() if k.endswith("_")}
    with pytest.raises(ValueError, match="v3"):
        g.set_params(variant=PAPER.replace(ties="error")).fit(X.assign(v3=(X.v3 > 0) * 1.0), D)
    assert g.settings_ is before["settings_"] and g.settings_ == DEFAULT
    assert all(getattr(g, k) is v for k, v in before.items())


def test_progress_plain_outside_a_terminal(sim_csv, tmp_path):
    "Outside a terminal: one plain line per step and no bar; on a terminal (a pty): the bar, redrawn in place."
    path, _ = sim_csv
    argv = ("run", path, "--target", "dx", "--index-col", "pid", "--plots", "0", "--no-report")
    r = cli(*argv, "--out", tmp_path / "log")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == ["GRCI 1/4: normalize", "GRCI 2/4: skeleton", "GRCI 3/4: extract errors",
                                     "GRCI 4/4: Shapley model"]
    pty, fcntl, termios = (pytest.importorskip(m) for m in ("pty", "fcntl", "termios"))
    main_fd, terminal = pty.openpty()
    # a 100-column terminal (a new pty has 0)
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    chunks = []
    reader = threading.Thread(target=lambda: _drain(main_fd, chunks), daemon=True)
    reader.start()
    p = subprocess.run([sys.executable, "-m", "grci_lit.cli", *map(str, argv), "--out", tmp_path / "tty"],
                       stdout=subprocess.PIPE,
                       stderr=terminal, env=ENV, timeout=600)
    os.close(terminal)
    reader.join(timeout=30)
    screen = b"".join(chunks).decode(errors="replace")
    assert p.returncode == 0 and "\r" in screen and "GRCI:" in screen and "GRCI 1/4" not in screen


def _drain(fd, chunks):
    "Read a pty until it closes."
    while True:
        try: data = os.read(fd, 4096)
        except OSError: return
        if not data: return
        chunks.append(data)


# ------------------------------------------------------------------------------------------- odd files and options
def _main(tmp_path, capsys, *argv):
    "`grci-lit run *argv --out tmp/out --quiet` in-process: (exit code, stderr)."
    from grci_lit.cli import main
    code = main(["run", *map(str, argv), "--out", str(tmp_path / "out"), "--quiet"])
    return code, capsys.readouterr().err


def _odd_inputs(folder, df):
    "name -> (arguments after `run`, what the one line must say): files and options a careful user tried."
    f = lambda name: folder / name
    blob = gzip.compress(df.to_csv(index=False).encode())
    f("half.csv.gz").write_bytes(blob[:len(blob) // 2])
    df.to_csv(f("ok.csv"), index=False)
    sk = gzip.compress(pd.DataFrame(0, index=NAMES, columns=NAMES).to_csv().encode())
    f("half_sk.csv.gz").write_bytes(sk[:len(sk) // 2])
    f("sk_dir").mkdir()
    os.mkfifo(f("sk_fifo"))
    df.astype({"v1": object}).assign(v1=[[1.0, 2.0]] * len(df)).to_parquet(f("lists.parquet"), index=False)
    for v in ("1e307", "1e308"):
        df.astype({"v1": object}).assign(v1=df.v1.where(df.index != 7, v)).to_csv(f(f"{v}.csv"), index=False)
    df.astype({"v1": object}).assign(v1=df.v1.where(df.index != 7, "x" * 5_000_000)).to_csv(f("huge.csv"), index=False)
    df.to_csv(f("comma.csv"), index=False, sep=";", decimal=",")
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(5, 3000))).add_prefix("c").assign(dx=[0, 1, 0, 1, 0])
    wide.to_csv(f("short_wide.csv"), index=False)
    df.assign(dx=(df.index == 3) * 1).to_csv(f("single.csv"), index=False)
    df.astype({"pid": object}).assign(pid=df.pid.where(df.index != 4, None)).to_csv(f("noid.csv"), index=False)
    os.symlink("loop_b.csv", f("loop_a.csv")); os.symlink("loop_a.csv", f("loop_b.csv"))
    ok = (f("ok.csv"), "--target", "dx", "--index-col", "pid")
    return {"truncated gzip": ((f("half.csv.gz"), "--target", "dx"),
                               "half.csv.gz: a damaged or truncated gzip file (EOFError"),
            "truncated gzip skeleton": ((*ok, "--skeleton", f("half_sk.csv.gz")),
                                        "half_sk.csv.gz: a damaged or truncated gzip"),
            "skeleton a directory": ((*ok, "--skeleton", f("sk_dir")), "sk_dir: is a directory, not a skeleton CSV"),
            "skeleton a FIFO": ((*ok, "--skeleton", f("sk_fifo")),
                                "sk_fifo: is a named pipe (FIFO), not a skeleton CSV"),
            "symlink loop": ((f("loop_a.csv"), "--target", "dx"), "loop_a.csv: a symbolic link that loops"),
            "Parquet list column": ((f("lists.parquet"), "--target", "dx"),
                                    "column 'v1' holds lists or other nested values"),
            "1e307": ((f("1e307.csv"), "--target", "dx"), "column 'v1': row 8 holds 1e+307, beyond +-1e+200"),
            "1e308": ((f("1e308.csv"), "--target", "dx"), "column 'v1': row 8 holds 1e+308, beyond +-1e+200"),
            "a 5 MB cell": ((f("huge.csv"), "--target", "dx"), "row 8 holds 'xxxxxxxx"),
            "decimal commas": ((f("comma.csv"), "--target", "dx", "--sep", ";"), "pass --decimal ,"),
            "5 rows x 3000": ((f("short_wide.csv"), "--target", "dx"),
                              "short_wide.csv: 5 rows; GRCI needs at least 40"),
            "--seed -1": ((*ok, "--seed", "-1"), "--seed must be a non-negative integer, got -1"),
            "--n-jobs 0": ((*ok, "--n-jobs", "0"), "--n-jobs must be a non-zero integer (-1: every core), got 0"),
            "--sep ''": ((*ok, "--sep", ""), "--sep '': must be one character, or one of tab, comma"),
            "--encoding utf-16": ((*ok, "--encoding", "utf-16"), "--encoding 'utf-16': "),
            "--index-col the target": ((f("ok.csv"), "--target", "dx", "--index-col", "dx"),
                                       "--index-col 'dx' is the target"),
            "one diseased patient": ((f("single.csv"), "--target", "dx"), "only 1 patient with the disease (row 4)"),
            "a missing id": ((f("noid.csv"), "--target", "dx", "--index-col", "pid"),
                             "--index-col 'pid' has no id in row 5")}


ODD_CASES = ["truncated gzip", "truncated gzip skeleton", "skeleton a directory", "skeleton a FIFO", "symlink loop",
             "Parquet list column", "1e307", "1e308", "a 5 MB cell", "decimal commas", "5 rows x 3000", "--seed -1",
             "--n-jobs 0", "--sep ''", "--encoding utf-16", "--index-col the target", "one diseased patient",
             "a missing id"]


@pytest.fixture(scope="module")
def odd_inputs(sim_csv, tmp_path_factory):
    return _odd_inputs(tmp_path_factory.mktemp("odd"), sim_csv[1])


@pytest.mark.parametrize("case", ODD_CASES)
def test_odd_inputs_one_line(case, odd_inputs, tmp_path, capsys):
    "Each odd file or option: exit code 2, one short line that names it, nothing written."
    args, word = odd_inputs[case]
    code, err = _main(tmp_path, capsys, *args)
    _check_one_line(code, err, word, tmp_path / "out")
    assert len(err) < 400, len(err)                                     # a 5 MB cell is not repeated


def test_usage_errors_are_one_line(tmp_path):
    r = cli("run", "t.csv", "--target", "dx", "--seed", "abc", "--nope")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("grci-lit: error: ")


def test_odd_inputs_that_run(sim_csv, odd_inputs, tmp_path, capsys):
    "Decimal commas with --decimal, and plain text named .csv.gz (a warning that says so), give the CSV's fit."
    path, df = sim_csv
    from grci_lit.cli import main
    args, _ = odd_inputs["decimal commas"]
    argv = ["--index-col", "pid", "--plots", "0", "--no-report"]
    assert main(["run", *map(str, args), "--decimal", ",", "--out", str(tmp_path / "comma"), *argv, "--quiet"]) == 0
    shutil.copy(path, tmp_path / "plain.csv.gz")
    assert main(["run", str(tmp_path / "plain.csv.gz"), "--target", "dx", "--out", str(tmp_path / "gz"), *argv]) == 0
    err = capsys.readouterr().err
    assert f"grci-lit: warning: {tmp_path / 'plain.csv.gz'}: named gzip-compressed, but holds no gzip data" in err
    assert main(["run", str(path), "--target", "dx", "--out", str(tmp_path / "csv"), *argv, "--quiet"]) == 0
    shap = pd.read_csv(tmp_path / "csv" / "shapley_values.csv", index_col=0).to_numpy()
    for other in ("comma", "gz"):
        assert np.allclose(pd.read_csv(tmp_path / other / "shapley_values.csv", index_col=0).to_numpy(), shap,
                           atol=1e-9)


def test_a_bomb_is_refused_before_it_is_unpacked(sim_csv, tmp_path, capsys, monkeypatch):
    "A compressed input that unpacks past the limit is refused while it is unpacked (the limit lowered to 1 MB here)."
    import grci_lit.tables as tables
    monkeypatch.setattr(tables, "EXPAND_FREE", 2**20)
    (tmp_path / "bomb.csv.gz").write_bytes(gzip.compress(b"a,b,dx\n" + b"0,0,0\n" * 400_000))
    code, err = _main(tmp_path, capsys, tmp_path / "bomb.csv.gz", "--target", "dx")
    _check_one_line(code, err, "bomb.csv.gz: unpacks to more than 1,048,576 bytes", tmp_path / "out")
    assert "refused as a possible decompression bomb" in err


# ------------------------------------------------------------------------------------------- --bootstrap B
SUPPORT_NAMES = ["a", "b", "c", "d"]


@pytest.fixture(scope="module")
def support_runs(tmp_path_factory):
    "A small simulated table (4 variables, 200 patients), run with --bootstrap 5 (two jobs) and without."
    s = sample_dag(p=5, n=200, seed=3)
    folder = tmp_path_factory.mktemp("support")
    path = folder / "small.csv"
    pd.DataFrame(s.X, columns=SUPPORT_NAMES).assign(dx=s.D).to_csv(path, index=False)
    runs = {}
    for name, extra in (("plain", []), ("support", ["--bootstrap", 5, "--n-jobs", 2])):
        r = cli("run", path, "--target", "dx", "--seed", 4, "--out", folder / name, "--plots", 1, "--waterfalls", 3,
                *extra)
        assert r.returncode == 0, r.stderr
        runs[name] = (folder / name, r)
    return path, runs


def test_bootstrap_writes_support_columns(support_runs):
    "--bootstrap 5: top1_support and a support_k beside each root_cause_k, shares of 5 refits, as the library's."
    from grci_lit.grci import GRCI
    from grci_lit.support import bootstrap_support
    from grci_lit.tables import read_table
    path, runs = support_runs
    folder, r = runs["support"]
    rc = pd.read_csv(folder / "root_causes.csv", index_col="patient")
    assert list(rc.columns) == ["dx", "log_odds", "n_root_causes", "top1_support", "root_cause_1", "support_1",
                                "root_cause_2", "support_2", "root_cause_3", "support_3"]
    shares = rc.filter(regex=r"^(top1_support|support_\d)$")
    assert ((shares.dropna() >= 0) & (shares.dropna() <= 1)).all().all()
    assert np.allclose((shares.fillna(0) * 5) % 1, 0)                     # shares of 5 refits
    for k in (1, 2, 3):                                                   # a support where a root cause is named
        assert (rc[f"support_{k}"].isna() == rc[f"root_cause_{k}"].isna()).all()
    X, D, _ = read_table(path, "dx")
    g = GRCI.load(folder / "grci.pkl")
    sup = bootstrap_support(g, X, D, n_boot=5, seed=4)                      # same seed, one job: the same support
    assert np.allclose(rc.top1_support, sup.answer_support.loc[rc.index])
    named = rc.root_cause_1.notna()
    expect = [sup.root_cause.loc[i, c] for i, c in rc.root_cause_1[named].items()]
    assert np.allclose(rc.support_1[named], expect)
    assert "over 5 refits on resampled patients" in r.stdout


def test_bootstrap_edge_support(support_runs):
    "edge_support.csv lists the fit's skeleton edges first (in_fit), each with the share of refits that hold it."
    folder, _ = support_runs[1]["support"]
    edges = pd.read_csv(folder / "edge_support.csv")
    assert list(edges.columns) == ["a", "b", "in_fit", "share"]
    A = pd.read_csv(folder / "skeleton.csv", index_col="variable")
    fit = {frozenset((a, b)) for a in A.index for b in A.columns if A.loc[a, b]}
    assert {frozenset(e) for e in edges[edges.in_fit][["a", "b"]].itertuples(index=False)} == fit
    assert edges.share.between(0, 1).all() and (edges.in_fit | (edges.share > 0)).all()
    assert list(edges.in_fit) == sorted(edges.in_fit, reverse=True)       # the fit's edges first
    assert (folder / "edge_support.png").stat().st_size > 1000
    page = (folder / "report.html").read_text()
    assert "<h2>Support over resampled patients</h2>" in page and 'data-col="3"' in page


def test_without_bootstrap_nothing_changes(support_runs):
    "Without --bootstrap: root_causes.csv has the columns it always had, and the same cells as the run with support."
    runs = support_runs[1]
    plain, support = runs["plain"][0], runs["support"][0]
    text = (plain / "root_causes.csv").read_text()
    assert text.splitlines()[0] == "patient,dx,log_odds,n_root_causes,root_cause_1,root_cause_2,root_cause_3"
    cells = lambda f: pd.read_csv(f, dtype=str, keep_default_na=False)
    with_support = cells(support / "root_causes.csv").drop(columns=["top1_support", "support_1", "support_2",
                                                                    "support_3"])
    pd.testing.assert_frame_equal(cells(plain / "root_causes.csv"), with_support)   # the same fit, the same cells
    assert not (plain / "edge_support.csv").exists() and not (plain / "edge_support.png").exists()
    page = (plain / "report.html").read_text()
    assert "Support over resampled patients" not in page and "data-col" not in page


@pytest.mark.parametrize("value, message", [
    ("1", "--bootstrap must be an integer >= 2 (the number of refits), got 1"),
    ("0", "--bootstrap must be an integer >= 2 (the number of refits), got 0"),
    ("-3", "--bootstrap must be an integer >= 2 (the number of refits), got -3"),
    ("2.5", "argument --bootstrap: invalid int value: '2.5'"),
    ("many", "argument --bootstrap: invalid int value: 'many'")])
def test_bad_bootstrap_one_line(support_runs, tmp_path, value, message):
    path = support_runs[0]
    r = cli("run", path, "--target", "dx", "--bootstrap", value, "--out", tmp_path / "o")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("grci-lit: error: ") and message in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_support_report_sorts_in_chromium(support_runs):
    "The report's patients sort by the support of their top root cause when its column's name is clicked, and back."
    sync_playwright = _browser()
    folder, _ = support_runs[1]["support"]
    rc = pd.read_csv(folder / "root_causes.csv", index_col="patient")
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((folder / "report.html").as_uri())
        column = lambda k: [float(c) for c in page.eval_on_selector_all(
            f"#patients tbody tr td:nth-child({k})", "cells => cells.map(c => c.dataset.value)")]
        assert column(3) == sorted(column(3), reverse=True)                 # highest predicted risk first
        page.click("button[data-col='3']")
        shares = column(4)
        assert shares == sorted(shares, reverse=True) and len(shares) == len(rc)
        assert sorted(shares) == pytest.approx(sorted(rc.top1_support))
        assert page.get_attribute("th:has(button[data-col='3'])", "aria-sort") == "descending"
        page.click("button[data-col='3']")
        assert column(4) == sorted(shares)
        page.click("button[data-col='2']")
        assert column(3) == sorted(column(3), reverse=True)
        assert page.locator(".cause small").count() == int(rc.filter(like="root_cause_").notna().sum().sum())
        browser.close()
    assert not errors, errors
