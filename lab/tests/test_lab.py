"""The lab: its store, its settings helper, and every stage of `python -m lab` on a tiny case (a few hundred rows, a
few thousand rows of truth), each run twice where it resumes: the second run reads back what the first stored."""
import json, os, subprocess, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

from lab.__main__ import SCALE_RUNS, main
from lab.settings import EXPERIMENTS, ZOO_VARIANTS, as_variant, make_grci, settings_of
from lab.store import Store


def run(tmp, *argv): return main(["--records", str(tmp / "records"), "--cache", str(tmp / "cache"), *map(str, argv)])


# ---------------------------------------------------------------- the store
def test_store_keeps_records_whole_and_resumes(tmp_path):
    s = Store("toy", tmp_path)
    assert s.load() == {} and len(s) == 0
    s.put("b", {"rbo": 0.5}); s.update({"a": {"rbo": 0.25}, "b": {"rbo": 0.75}})
    assert s.load() == {"a": {"rbo": 0.25}, "b": {"rbo": 0.75}} and "a" in s
    lines = s.path.read_text().splitlines()
    assert [json.loads(l)["name"] for l in lines] == ["a", "b"]                       # one line per record, sorted
    assert not list(tmp_path.glob(".*.tmp"))                                          # no temporary file left behind
    with pytest.raises(TypeError): s.put("c", {"x": object()})                        # not JSON: refused before writing
    assert Store("toy", tmp_path).load() == s.load()
    s.path.write_text(lines[0] + "\n{broken\n")
    with pytest.raises(ValueError, match="line 2 is not JSON"): s.load()
    with pytest.raises(ValueError, match="plain name"): Store("../x", tmp_path)


def test_store_names_the_run_that_wrote_it(tmp_path):
    run_ = Store("toy", tmp_path).record_run(modules=["lab.zoo"], note="a test")
    assert run_["note"] == "a test" and len(run_["code"]) == 16 and run_["modules"] == ["lab.zoo"]
    assert Store("toy", tmp_path).runs() == [run_]


def test_every_record_of_the_lab_reads_as_its_store():
    "Every committed store parses, and has a runs file saying what wrote it."
    stores = sorted((ROOT / "lab" / "records").glob("*.jsonl"))
    assert {p.stem for p in stores} >= {"zoo", "zoo_tuning", "zoo_replicate", "zoo_rankings_report", "remedies", "real_bootstraps"}
    for p in stores:
        s = Store(p.stem)
        assert len(s) > 0 and s.runs(), p.stem


# ---------------------------------------------------------------- the settings helper
def test_as_variant_is_the_one_door_into_grcis_settings():
    from grci_lit.grci import DEFAULT, PAPER, GRCISettings
    from lab.settings import EARLIER_MAX_ROWS, as_dict, as_settings
    assert as_variant("paper") == {"variant": "paper"} and as_variant("default") == {"variant": "default"}
    stable = as_variant(EXPERIMENTS["stable"])["variant"]                              # a dict of changes to the paper's algorithm
    assert isinstance(stable, GRCISettings) and stable == PAPER.replace(
        projection="mean", tie_seed=0, projection_seed=0, shapley_fits=3, pair_k_ladder=(0.5, 1, 2),
        max_rows=EARLIER_MAX_ROWS, large_rows=50_000)                                  # read as it ran: no max_rows was 4 000 rows
    with pytest.raises(TypeError, match="settings must be a name, a GRCISettings or a dict"): as_variant(3)
    with pytest.raises(ValueError, match="'stable' is not one of"): as_variant("stable")
    g = make_grci(EXPERIMENTS["fast"], seed=2)
    assert g.seed == 2 and g.verbose is False and g._settings().max_rows == 800
    assert settings_of("paper") == {"variant": "paper"} and settings_of(EXPERIMENTS["stable"])["pair_k_ladder"] == [0.5, 1, 2]
    for s in (DEFAULT, DEFAULT.replace(smooth_shape=False), DEFAULT.replace(max_rows=None, ci_test="mars"), PAPER.replace(k=5)):
        assert as_settings(as_dict(s)) == s                                            # a record's key reads back as its settings


def test_the_records_keep_their_keys():
    "The default's records were stored under the default's changes as a dict, before GRCISettings: they are still found."
    stored = Store("zoo").get("cdt_p10_n1000_s100")
    for label in ("paper", "smoothed", "fast", "one window", "default"):
        assert stored[label]["settings"] == settings_of(ZOO_VARIANTS[label]), label
    assert stored["default"]["settings"]["smooth_window"] == "shape" and settings_of("default") == stored["default"]["settings"]


def test_the_lab_uses_as_variant_wherever_it_builds_a_grci():
    "No module of the lab builds a GRCI itself, but `make_grci` (speed.py's child runs another copy of the package, without the lab)."
    import re
    for p in (ROOT / "lab").glob("*.py"):
        if p.name in ("settings.py", "speed.py"): continue
        assert not re.search(r"(?<!`)\bGRCI\((?!\))", p.read_text()), f"{p.name} builds a GRCI without lab.settings.make_grci"


# ---------------------------------------------------------------- the stages, tiny
def test_zoo_stage_fits_stores_and_reads_back(tmp_path):
    argv = ("zoo", "--families", "hnm", "--sizes", "5x200", "--seeds", 0, 1, "--variants", "paper", "default", "--n-truth", 2000, "--ladder")
    assert run(tmp_path, *argv) == 0
    s = Store("zoo", tmp_path / "records")
    rec = s.get("hnm_p5_n200_s0")
    assert set(rec) == {"paper", "default", "ladder"} and set(rec["ladder"]) == {"recovered", "true_skeleton", "true_parents", "true_errors"}
    assert rec["default"]["settings"] == settings_of(ZOO_VARIANTS["default"]) and 0 <= rec["default"]["rbo"] <= 1
    before = s.path.stat().st_mtime_ns
    run(tmp_path, *argv)
    assert s.path.stat().st_mtime_ns == before                                       # stored with the same settings: nothing refitted
    from lab.zoo import zoo_results, zoo_table
    res = zoo_results(s)
    assert sorted(res.label) == ["default", "paper"] and zoo_table(res, by=()).data_sets.iloc[0] == 1


def test_lofo_stage_stores_each_sink_rule_and_resumes(tmp_path):
    argv = ("lofo", "--families", "hnm", "--sizes", "5x200", "--seeds", 0, 1, "--n-truth", 2000)
    assert run(tmp_path, *argv[:-2], "--rules", "mi", "--n-truth", 2000) == 0
    s = Store("zoo_sink_rules", tmp_path / "records")
    assert set(s.get("hnm_p5_n200_s0")) == {"mi", "true_parents", "true_errors"}
    first = s.get("hnm_p5_n200_s0")
    run(tmp_path, *argv)                                                              # every rule: only the missing ones are fitted
    rec = s.get("hnm_p5_n200_s0")
    from grci_lit.extract import SINK_RULES
    assert set(rec) == set(SINK_RULES) | {"true_parents", "true_errors"} and rec["mi"] == first["mi"]
    assert all(set(rec[r]) == {"recovered", "true_skeleton", "seconds"} and 0 <= rec[r]["recovered"] <= 1 for r in SINK_RULES)
    before = s.path.stat().st_mtime_ns
    run(tmp_path, *argv)
    assert s.path.stat().st_mtime_ns == before                                       # everything stored: nothing refitted
    from lab.lofo import sink_rule_rows, sink_rule_table
    t = sink_rule_table(sink_rule_rows(s)).set_index("family")
    assert list(t.index) == ["hnm", "every family"] and t.loc["hnm", "mi: recovered"] == round(rec["mi"]["recovered"], 3)


def test_lofo_table_chooses_without_the_held_out_family():
    "Known answer: variant a gains only on family f, b only on g; held out f, the protocol picks b, and the reverse."
    from lab.lofo import lofo_table
    rows = []
    for fam, gain in (("f", dict(a=0.2, b=0.0)), ("g", dict(a=0.0, b=0.1))):
        for seed in range(6):
            base = 0.5 + 0.01 * seed
            rows += [dict(family=fam, p=5, n=100, seed=seed, label="paper", rbo=base, seconds=1.0),
                     dict(family=fam, p=5, n=100, seed=seed, label="default", rbo=base + 0.05 - 0.1 * (seed == 0), seconds=1.0)]
            rows += [dict(family=fam, p=5, n=100, seed=seed, label=v, rbo=base + g, seconds=1.0) for v, g in gain.items()]
    res = pd.DataFrame(rows)
    t = lofo_table(res, res).set_index("held-out family")
    assert t.loc["f", "chosen without it"] == "b" and t.loc["g", "chosen without it"] == "a"
    assert t.loc["f", "chosen - paper"].startswith("+0.000") and t.loc["g", "chosen - paper"].startswith("+0.000")
    assert t.loc["f", "default - paper"].endswith(" 5/1") and t.loc["f", "data sets"] == 6
    assert t.loc["every family", "chosen - paper"].startswith("+0.000") and t.loc["every family", "data sets"] == 12


def test_sink_rule_lofo_chooses_without_the_held_out_family():
    "Known answer: rule a gains only on hnm, b only on pnl; held out hnm, b is chosen (and gains nothing there); on mixed, a."
    from lab.lofo import sink_rule_lofo, sink_rule_table
    gains = {"hnm": dict(a=0.2, b=0.0), "pnl": dict(a=0.0, b=0.1), "mixed": dict(a=0.05, b=-0.3)}
    rows = [dict(family=f, p=5, n=100, seed=s, rule=r, rung="recovered", rbo=0.5 + 0.01 * s + g.get(r, 0.0) + 0.001 * (s % 2))
            for f, g in gains.items() for s in range(6) for r in ("mi", "a", "b")]
    rows += [dict(family=f, p=5, n=100, seed=s, rule="-", rung=k, rbo=0.9) for f in gains for s in range(6)
             for k in ("true_parents", "true_errors")]                             # the rungs no rule changes
    t = sink_rule_lofo(pd.DataFrame(rows)).set_index("held-out family")
    assert list(t.index) == ["hnm", "pnl", "mixed"] and list(t["held out of the zoo"]) == [False, False, True]
    assert list(t.chosen) == ["b", "a", "a"] and (t["data sets"] == 6).all()
    assert t.loc["hnm", "diff"] == 0.0 and t.loc["mixed", "diff"] == 0.05 and t.loc["mixed", "ci_low"] > 0
    assert t.loc["hnm", "its gain on the others"] == 0.1 and t.loc["mixed", "its gain on the others"] == 0.1
    table = sink_rule_table(pd.DataFrame(rows)).set_index("family")                  # the zoo's ladder: mixed left out
    assert list(table.index) == ["hnm", "pnl", "every family"] and table.loc["every family", "data sets"] == 12
    none = sink_rule_lofo(pd.DataFrame([dict(r, rbo=0.5 - 0.1 * (r["rule"] != "mi")) for r in rows])).set_index("held-out family")
    assert (none.chosen == "mi").all() and none["held out: chosen - mi"].str.startswith("+0.000").all()   # none gains: mi


def test_undo_stage_fits_every_change_undone_and_resumes(tmp_path):
    argv = ("undo", "--families", "mlp", "--sizes", "5x200", "--seeds", 0, 1, "--n-truth", 2000)
    assert run(tmp_path, *argv) == 0
    from lab.undo import UNDO_FIELDS, UNDO_VARIANTS
    s = Store("zoo_undo", tmp_path / "records")
    rec = s.get("mlp_p5_n200_s0")
    assert set(rec) == set(UNDO_VARIANTS) and all(0 <= r["rbo"] <= 1 for r in rec.values())
    for label, fields in UNDO_FIELDS.items():                                          # the default with exactly these set back
        mine, default = rec[label]["settings"], rec["default"]["settings"]
        changed = {k for k in set(mine) | set(default) if mine.get(k) != default.get(k)}
        assert changed and changed <= set(fields) | {"smooth_window"}, label
    before = s.path.stat().st_mtime_ns
    run(tmp_path, *argv)
    assert s.path.stat().st_mtime_ns == before                                       # stored with the same settings: nothing refitted


def test_undo_decisions_apply_the_protocols_rule():
    "Known answer: undoing a loses on every family (keep); undoing b gains beyond its interval on one family (undo)."
    from lab.undo import UNDO_FIELDS, undo_decisions, undo_table
    a, b = list(UNDO_FIELDS)[:2]
    rows = []
    for fam, gain_b in (("f", 0.0), ("g", 0.0), ("h", 0.1)):
        for seed in range(5):
            base = 0.5 + 0.01 * seed
            rows += [dict(family=fam, p=5, n=100, seed=seed, label=k, rbo=r, seconds=1.0) for k, r in
                     (("paper", base - 0.02), ("default", base), (a, base - 0.03 - 0.01 * (seed % 2)), (b, base + gain_b + 0.01 * (seed % 2)))]
    rows += [dict(r, label=k) for r in rows if r["label"] == "default" for k in list(UNDO_FIELDS)[2:]]
    t = undo_table(pd.DataFrame(rows), held_out=["h"])
    assert list(t.family.unique()) == ["f", "g", "h", "seven zoo families"] and t[t.family == "h"]["held out"].all()
    d = undo_decisions(t).set_index("change")
    assert d.loc[a, "verdict"] == "keep" and d.loc[a, "keeping it gains in"] == 3
    assert d.loc[b, "undoing gains beyond its interval in"] == "h" and d.loc[b, "verdict"] == "undo"
    assert t.set_index(["change", "family"]).loc[("default - paper", "h"), "paired"] == "+0.020 [+0.020, +0.020] 5/0"


def test_rankings_stage_scores_every_rule_on_one_fit(tmp_path):
    run(tmp_path, "rankings", "--families", "link", "--sizes", "6x400", "--seeds", 0, 1, "--n-truth", 4000)
    from lab.zoo import RANKING_RULES
    rec = Store("zoo_rankings_report", tmp_path / "records").get("link_p6_n400_s0")
    assert set(rec) == set(RANKING_RULES) | {"fit"} and rec["fit"]["seconds"] > 0
    assert rec["one window"]["narrower"] == 0.0
    assert (tmp_path / "cache" / "zoo_rankings_report" / "link_p6_n400_s0.npz").exists()   # the fit's arrays: a new rule costs no refit


def test_dowhy_stage_refits_only_grci_beside_a_stored_yardstick(tmp_path):
    from lab.zoo import dowhy_seed
    s = Store("zoo_dowhy", tmp_path)
    try: import dowhy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs dowhy"): dowhy_seed("hnm", 5, 200, 0, patients=5, n_truth=2000, store=s)
    from grci_lit.simulate import sample_zoo
    d = sample_zoo("hnm", 6, 2000, seed=0).head(200).D
    sick = np.sort(np.random.default_rng([0, 7]).choice(np.flatnonzero(d == 1), 5, replace=False)).tolist()
    s.put("hnm_p5_n200_s0", {"dowhy": {"rbo": 0.5, "seconds": 9.0}, "default": {"rbo": 0.1, "settings": {"variant": "old"}}, "patients": sick})
    r = dowhy_seed("hnm", 5, 200, 0, patients=5, n_truth=2000, store=s)
    assert r["dowhy"] == {"rbo": 0.5, "seconds": 9.0} and r["default"]["settings"] == settings_of("default")
    assert s.get("hnm_p5_n200_s0") == r
    s.put("hnm_p5_n200_s0", dict(r, default={"settings": {"variant": "old"}}, patients=sick[:4]))
    with pytest.raises(ValueError, match="seeded patients differ"): dowhy_seed("hnm", 5, 200, 0, patients=5, n_truth=2000, store=s)


def test_remedies_stage_on_pbc_and_on_the_simulator(tmp_path, capsys):
    run(tmp_path, "remedies", "pbc", "--remedies", "fixed_ties", "--seeds", 0, 2)
    assert "agreement" in capsys.readouterr().out
    s = Store("remedies", tmp_path / "records")
    assert set(s.get("pbc_s1")) == {"fixed_ties"} and len(s.get("pbc_s1")["fixed_ties"]["top"]) == 111
    run(tmp_path, "remedies", "simulated", "--remedies", "paper", "stable", "--seeds", 0, 2, "--p", 5, "--n", 200, "--n-truth", 2000)
    from lab.remedies import measure, paired_summary, pooled_difference
    res = measure("simulated", 2, ("paper", "stable"), s, p=5, n=200)                   # read back: nothing is fitted
    assert paired_summary(res).loc["stable", "seeds"] == 2
    assert pooled_difference([("hnm", 5, 200)], seeds=2, store=s)["data_sets"] == 2
    with pytest.raises(ValueError, match="kind must be"): measure("iris")


@pytest.mark.parametrize("experiment, cell", [("ceiling", "hnm:6:200"), ("screens", "6:200"), ("importance", "hnm:6:200"),
                                              ("smoothed", "hnm:6:200"), ("shapley_stage", "6:200")])
def test_grid_stage_one_row_per_cell_and_seed(tmp_path, experiment, cell):
    run(tmp_path, "grid", experiment, "--cells", cell, "--seeds", 0, 1, "--n-truth", 1000)
    rows = Store(experiment, tmp_path / "records").load()
    assert len(rows) == 1
    row = next(iter(rows.values()))
    assert row["p"] == 6 and row["n"] == 200 and row["seed"] == 0
    assert all(0 <= v <= 1 for k, v in row.items() if isinstance(v, float))      # every score an RBO


def test_real_bootstraps_stage_keeps_the_runners_rows(tmp_path):
    run(tmp_path, "real-bootstraps", "--datasets", "pbc", "--bootstraps", 1, "--variants", "paper")
    rows = list(Store("real_bootstraps", tmp_path / "records").load().values())
    assert len(rows) == 1 and rows[0]["dataset"] == "pbc" and rows[0]["method"] == "grci" and 0 <= rows[0]["rbo"] <= 1


def test_support_stage_counts_patients_by_support_and_reads_back(tmp_path):
    argv = ("support", "--families", "hnm", "--sizes", "4x200", "--seeds", 0, 1, "--n-boot", 2, "--n-truth", 2000)
    run(tmp_path, *argv)
    s = Store("support_calibration", tmp_path / "records")
    rec = s.get("hnm_p4_n200_s0")
    assert rec["n_boot"] == 2 and rec["settings"] == settings_of("default") and rec["seconds"] >= rec["fit_seconds"] > 0
    assert set(rec["support"]) <= {0.0, 0.5, 1.0} and sum(rec["patients"]) > 0 and 0 <= sum(rec["right"]) <= sum(rec["patients"])
    before = s.path.stat().st_mtime_ns
    run(tmp_path, *argv)
    assert s.path.stat().st_mtime_ns == before                                       # stored alike: nothing refitted
    from lab.tables import support_table
    t = support_table(s.load(), ["hnm"])
    assert list(t.family.unique()) == ["hnm", "every family"] and len(t) == 10
    assert t.patients.sum() == 2 * sum(rec["patients"]) and t.data_sets.tolist() == [1] * 10


def test_support_cost_stage_times_the_refits(tmp_path):
    run(tmp_path, "support-cost", "--sizes", "4x200", "--n-boot", 2, "--n-jobs", 1)
    rec = Store("support_cost", tmp_path / "records").get("hnm_p4_n200_s100_b2_j1")
    assert rec["p"] == 4 and rec["n"] == 200 and rec["seconds"] > 0 and rec["load_before"] >= 0


def test_fit_speed_stage_times_a_fit_in_a_fresh_process(capsys):
    main(["fit-speed", "--points", "4:150", "--repeats", "1"])
    assert "median CPU" in capsys.readouterr().out
    from lab.speed import fit_speed
    with pytest.raises(ValueError, match="does not contain grci_lit"): fit_speed(before="/nonexistent")


def test_scale_stage_writes_the_harness_records(tmp_path, monkeypatch):
    monkeypatch.setitem(SCALE_RUNS, "stages", [("measure_scale", dict(points=[(4, 100)], label="default", verbose=False))])
    run(tmp_path, "scale", "stages")
    from grci_lit.bench.measure import stored_records
    recs = stored_records(tmp_path / "records" / "scale" / "stages.json")
    assert [(r["p"], r["n"], r["label"]) for r in recs] == [(4, 100, "default")]


def test_tables_stage_writes_what_results_holds(tmp_path):
    "results/zoo_*.csv are what the lab's records give: rewritten from them, byte for byte."
    main(["tables", "--results", str(tmp_path)])                                       # the committed records
    for name in ("zoo_headline", "zoo_second_draw", "zoo_ladder", "zoo_lofo", "zoo_sink_rules", "zoo_sink_rule_lofo",
                 "held_out_sink_rules", "zoo_undo", "support_calibration"):
        assert (tmp_path / f"{name}.csv").read_bytes() == (ROOT / "results" / f"{name}.csv").read_bytes(), name


def test_the_command_lists_its_stages():
    r = subprocess.run([sys.executable, "-m", "lab", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0
    for stage in ("zoo", "lofo", "rankings", "dowhy", "remedies", "grid", "real-bootstraps", "support", "support-cost",
                  "fit-speed", "scale", "undo", "tables"): assert stage in r.stdout


# ---------------------------------------------------------------- the lab's notebooks: the record, run from its stores
LAB_NBS = sorted((ROOT / "lab" / "nbs").glob("*.ipynb"))


@pytest.mark.parametrize("nb", LAB_NBS, ids=[p.name for p in LAB_NBS])
def test_lab_notebook(nb, monkeypatch):
    "Each lab notebook runs (its `#| slow` cells, which refit what a store lacks, only with NBDEV_FLAGS=slow)."
    import nbdev.test as nbt
    from nbdev.config import get_config
    cfg = get_config(ROOT)
    monkeypatch.chdir(nb.parent)
    ok, _ = nbt.test_nb(nb, skip_flags=cfg.tst_flags.split(), force_flags=os.environ.get("NBDEV_FLAGS", "").split(),
                        basepath=cfg.config_path, showerr=True)
    assert ok, f"{nb.name} failed (see the traceback above)"


def test_the_lab_notebooks_cite_their_stores_not_files():
    "The record reads the lab's stores: no notebook of the lab opens a file under results/beyond_the_paper or a tool of tools/."
    for nb in LAB_NBS:
        text = nb.read_text()
        assert "beyond_the_paper/" not in text and "tools/zoo" not in text and "grci_lit.beyond" not in text, nb.name
