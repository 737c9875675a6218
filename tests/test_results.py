"""The stored results: every table has its provenance, and `tools/make_results.py --check` re-fits stored data sets
and fails when a stored number no longer follows from the code."""
import json, re, subprocess, sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture(scope="module")
def make_results():
    import make_results
    return make_results


def test_every_stored_table_names_its_code_machine_and_cost(make_results):
    prov = json.loads((RESULTS / "provenance.json").read_text())["tables"]
    assert set(make_results.TABLES) <= set(prov), f"tables without provenance: {set(make_results.TABLES) - set(prov)}"
    for name, t in prov.items():
        assert t["runs"], name
        for run in t["runs"]:
            assert re.fullmatch(r"[0-9a-f]{40}(\+modified)?", run["commit"]), (name, run["commit"])
            assert run["code_files"] and all(re.fullmatch(r"[0-9a-f]{16}|", h) for h in run["code_files"].values()), name
            assert {"cpu", "blas_threads", "blas_kernel"} <= set(run["machine"]), name
        assert t["cpu_seconds"] > 0 and t["first"] <= t["last"], name
    for name in ("hnm", "pnl", "real"):
        assert set(prov[name]["settings"]) == {"paper", "default"}, name
        assert prov[name]["settings"]["paper"]["ci_test"] == "mars" and prov[name]["settings"]["default"]["ci_test"] == "spline"


def test_every_stored_number_names_a_commit_of_its_table(make_results):
    prov = json.loads((RESULTS / "provenance.json").read_text())["tables"]
    for name in ("hnm", "pnl", "real"):
        runs = pd.read_csv(RESULTS / "runs" / f"{name}.csv")
        assert set(runs["commit"]) <= {r["commit"] for r in prov[name]["runs"]}, name
        assert set(runs["variant"]) == {"paper", "default"}, name
        per_data_set = runs.groupby([c for c in ("p", "n", "seed", "dataset", "bootstrap") if c in runs])["variant"].nunique()
        assert (per_data_set == 2).all(), f"{name}: a data set without both variants"


def _one_data_set(tmp_path, shift=0.0):
    "A runs folder holding one stored small data set (p = 10, n = 500, the paper's variant), GRCI's RBO moved by `shift`."
    runs = pd.read_csv(RESULTS / "runs" / "hnm.csv")
    one = runs[(runs.p == 10) & (runs.n == 500) & (runs.seed == runs.seed.min()) & (runs.variant == "paper")].copy()
    one.loc[one.method == "grci", "rbo"] += shift
    one.to_csv(tmp_path / "hnm.csv", index=False)
    return tmp_path


def test_check_passes_on_a_stored_data_set_and_fails_when_a_number_moved(make_results, tmp_path, capsys):
    (tmp_path / "same").mkdir()
    assert make_results.check(1, runs_dir=_one_data_set(tmp_path / "same"), zoo_store=None) == 0
    out = capsys.readouterr().out
    assert "check passed" in out and "DIFFERS" not in out
    (tmp_path / "moved").mkdir()
    assert make_results.check(1, runs_dir=_one_data_set(tmp_path / "moved", shift=2 * make_results.CHECK_TOL), zoo_store=None) == 1
    out = capsys.readouterr().out
    assert re.search(r"grci rbo: stored .* DIFFERS", out) and "check FAILED: 1 number(s)" in out


def test_only_the_ica_methods_go_uncompared(make_results):
    "FastICA's unconverged last iterate moves with the BLAS kernel; every other method keeps the tight tolerance."
    tol = make_results._tolerance
    assert tol("grci rbo", 0.7) == tol("rci mse", 0.5) == tol("rci_tree_shap rbo", 0.5) == make_results.CHECK_TOL
    assert tol("grci mse", 4.0) == 4 * make_results.CHECK_TOL
    assert tol("ica rbo", 0.5) == tol("ica_tree_shap rbo", 0.5) == tol("ica mse", 3.0) == float("inf")


def test_check_refits_a_stored_zoo_data_set(make_results, tmp_path, capsys):
    "The zoo of chapter Beyond the paper (the lab's store) is checked too: its smallest data set, each stored fit the tables read (`ZOO_CHECKED`)."
    line = next(l for l in make_results.ZOO.read_text().splitlines() if json.loads(l)["name"] == "hnm_p10_n1000_s100")
    (tmp_path / "zoo.jsonl").write_text(line + "\n")
    assert make_results.check(1, runs_dir=tmp_path / "none", zoo_store=tmp_path / "zoo.jsonl") == 0
    out = capsys.readouterr().out
    assert "zoo hnm_p10_n1000_s100" in out and out.count(" ok") == len(make_results.ZOO_CHECKED) == 3
    assert all(f"    {label} rbo: stored" in out for label in ("paper", "one window", "default"))


def test_check_says_when_nothing_is_stored(make_results, tmp_path, capsys):
    assert make_results.check(2, runs_dir=tmp_path, zoo_store=None) == 1
    assert "no stored results" in capsys.readouterr().out


def test_the_pages_mark_stale_tables_as_the_code_is_now():
    """results/README.md and the report page's stored output say, for every table, what `provenance_table` says of the
    code here: a change to the code its fits ran must be followed by `python tools/make_results.py --report`, which
    marks the table stale on both (no re-fit needed), or by a rerun of its stages."""
    from grci_lit.bench.report import provenance_table
    now = provenance_table(json.loads((RESULTS / "provenance.json").read_text())).set_index("table")["status"]
    rows = [l.split("|")[1:-1] for l in (RESULTS / "README.md").read_text().splitlines() if l.startswith("| ")]
    readme = {r[0].strip(): r[-1].strip() for r in rows if len(r) == 7 and r[0].strip() in now.index}
    assert readme == now.to_dict(), "results/README.md is out of date: run python tools/make_results.py --report"
    nb = json.loads((ROOT / "nbs" / "bench" / "06_report.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "provenance_table(prov)" in "".join(c["source"]))
    shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in cell["outputs"])
    for table, status in now.items():
        assert re.search(rf"^{table}\s.*{re.escape(status)}\s*$", shown, re.M), \
            f"the report page shows an old status for {table} (now: {status}): run python tools/make_results.py --report"


def test_results_holds_what_a_reader_opens():
    """results/ holds tables, figures, this page, provenance and the per-data-set numbers --check re-fits: no per-fit
    record files (those are the lab's, lab/records/), every file small."""
    files = [p for p in RESULTS.rglob("*") if p.is_file() and "cache" not in p.relative_to(RESULTS).parts]
    tracked = set(subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    files = [p for p in files if str(p.relative_to(ROOT)) in tracked]
    assert files and len(files) < 60, len(files)
    assert {p.suffix for p in files} <= {".csv", ".png", ".json", ".md", ".txt"}
    assert [p.name for p in files if p.suffix == ".json"] == ["provenance.json", "scale_bench.json"] or \
        sorted(p.name for p in files if p.suffix == ".json") == ["provenance.json", "scale_bench.json"]
    assert max(p.stat().st_size for p in files) < 1_000_000
    for name in ("zoo_headline.csv", "zoo_second_draw.csv", "zoo_ladder.csv"):        # the lab's tables, with their provenance
        assert (RESULTS / name).exists(), name
    prov = json.loads((RESULTS / "provenance.json").read_text())["tables"]
    assert {"zoo", "zoo_replicate", "zoo_tuning"} <= set(prov) and all(prov[t]["store"].startswith("lab/records/") for t in ("zoo", "zoo_replicate", "zoo_tuning"))
