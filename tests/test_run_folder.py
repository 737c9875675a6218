"""The run folder's contract, tried as a user meets it: runs stopped for real (SIGTERM, SIGHUP, SIGKILL), symbolic
links made for real, read-only and hand-made folders, an input that changes during the run. Every run is a
subprocess (`python -m grci_lit.cli`) on a tiny table, with a timeout, so that no test can hang."""
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from grci_lit.run_folder import previous_run

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
FAST = ("--plots", "0", "--no-report", "--index-col", "pid")
SLOW = ("--plots", "1", "--waterfalls", "3", "--index-col", "pid")   # a run long enough to be stopped in the middle
TIMEOUT = 600


def cli(*args, cwd, stdin=None):
    "Run `grci-lit *args` in `cwd`; (exit code, stdout, stderr)."
    r = subprocess.run([sys.executable, "-m", "grci_lit.cli", *map(str, args)], cwd=cwd, env=ENV, capture_output=True,
                       text=stdin is None, input=stdin, timeout=TIMEOUT)
    err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode()
    return r.returncode, r.stdout, err


def started(*args, cwd, child=None):
    "A run in the background, returned once its private folder exists beside --out ('out')."
    code = [sys.executable, "-m", "grci_lit.cli"] if child is None else [sys.executable, "-c", child]
    p = subprocess.Popen([*code, *map(str, args)], cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    t = time.time()
    while p.poll() is None and not list(Path(cwd).glob(".out.*grci-lit-partial")) and time.time() - t < TIMEOUT:
        time.sleep(0.02)
    return p


def beside(folder):
    "Names next to --out other than the inputs: what a run left behind."
    return sorted(p.name for p in Path(folder).iterdir() if p.name not in ("t.csv", "out"))


def contents(folder):
    return {p.name: p.read_bytes() for p in Path(folder).iterdir()}


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    "A tiny table (80 patients, 3 variables) and a finished run of it in `out`."
    from grci_lit.simulate import sample_dag
    folder = tmp_path_factory.mktemp("first")
    s = sample_dag(p=4, n=80, seed=1)
    pd.DataFrame(s.X, columns=["v0", "v1", "v2"]).assign(dx=s.D, pid=np.arange(1000, 1080)).to_csv(
        folder / "t.csv", index=False)
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, "--quiet", cwd=folder)
    assert code == 0, err
    return folder


@pytest.fixture
def here(first_run, tmp_path):
    "A copy of the table and of its finished run, in a folder of the test's own."
    shutil.copy(first_run / "t.csv", tmp_path / "t.csv")
    shutil.copytree(first_run / "out", tmp_path / "out")
    return tmp_path


# ------------------------------------------------------------------------------------------- stopped runs
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_the_run_sees_leaves_nothing(here, sig):
    "SIGTERM and SIGHUP, sent for real mid-run: one line, exit 128 + n, the private folder gone, the old run as it was."
    before = contents(here / "out")
    p = started("run", "t.csv", "--target", "dx", "--out", "out", *SLOW, "--quiet", cwd=here)
    time.sleep(0.5)
    p.send_signal(getattr(signal, sig))
    _, err = p.communicate(timeout=TIMEOUT)
    number = getattr(signal, sig).value
    assert p.returncode == 128 + number, err
    assert err.splitlines() == [f"grci-lit: stopped by {sig}: nothing written"]
    assert beside(here) == [] and contents(here / "out") == before


def test_a_killed_run_is_cleared_by_the_next(here):
    "SIGKILL leaves the private folder (holding results); the next run removes it, says so in one line, and runs."
    p = started("run", "t.csv", "--target", "dx", "--out", "out", *SLOW, "--quiet", cwd=here)
    time.sleep(0.5)
    p.kill()
    p.communicate(timeout=TIMEOUT)
    left = beside(here)
    assert p.returncode == -signal.SIGKILL and len(left) == 1 and left[0].endswith(".grci-lit-partial"), left
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 0, err
    notes = [l for l in err.splitlines() if l.startswith("grci-lit: note:")]
    assert notes == [f"grci-lit: note: removed '{left[0]}', left beside out by a run that was killed"]
    assert beside(here) == [] and previous_run(here / "out") is not None


CHILD = """
import sys, time
from grci_lit.run_folder import building, check_output, stop_on_signals
with stop_on_signals(), building(check_output(sys.argv[1])) as folder:
    (folder / "errors.csv").write_text("patient\\n")
    time.sleep(300)
"""


def test_a_live_runs_folder_is_left_alone(here):
    "A run still building holds its folder's lock: the next run does not take it; once it stops, its folder is gone."
    alive = started("out", cwd=here, child=CHILD)
    try:
        left = beside(here)
        code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
        assert code == 0 and "grci-lit: note" not in err, err
        assert beside(here) == left and len(left) == 1
    finally:
        alive.send_signal(signal.SIGTERM)
        alive.communicate(timeout=TIMEOUT)
    assert beside(here) == []


SWAP_KILLED = """
import os, signal, sys
import grci_lit.run_folder as rf
if sys.argv[1] == "fallback":
    rf.exchange = lambda a, b: False                       # as on a platform without renameat2
    real = os.rename
    def rename(a, b):
        real(a, b)
        if str(b).endswith(rf.ASIDE): os.kill(os.getpid(), signal.SIGKILL)   # between the two renames
    os.rename = rename
else:
    real = rf.exchange
    def exchange(a, b):
        done = real(a, b)
        os.kill(os.getpid(), signal.SIGKILL)               # right after the swap, before the old run is removed
        return done
    rf.exchange = exchange
from grci_lit.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("how", ["exchange", "fallback"])
def test_a_kill_during_the_swap(here, how):
    "Killed at the swap: with one exchange --out always holds a whole run; with two renames the next run puts it back."
    argv = ["run", "t.csv", "--target", "dx", "--out", "out", *FAST, "--quiet", "--seed", "5"]
    r = subprocess.run([sys.executable, "-c", SWAP_KILLED, how, *argv], cwd=here, env=ENV, capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == -signal.SIGKILL, r.stderr
    if how == "exchange":
        assert previous_run(here / "out")["command"][-2:] == ["--seed", "5"]             # the new run, whole
    else:
        assert not (here / "out").exists() and any(n.endswith(".grci-lit-old") for n in beside(here))
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 0, err
    notes = [l for l in err.splitlines() if l.startswith("grci-lit: note:")]
    if how == "fallback": assert notes[0].startswith("grci-lit: note: put back ") and len(notes) == 2, notes
    else: assert len(notes) == 1 and notes[0].startswith("grci-lit: note: removed"), notes
    assert beside(here) == [] and previous_run(here / "out") is not None


# ------------------------------------------------------------------------------------------- what --out is
def test_a_symbolic_link_is_never_followed(here):
    "A link as --out, to a folder or dangling, is refused in one line, with --force too; nothing at its target changes."
    (here / "precious").mkdir()
    (here / "precious" / "thesis.txt").write_text("years of work")
    shutil.rmtree(here / "out")
    os.symlink("precious", here / "out")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", "--force", *FAST, cwd=here)
    assert code == 2 and err == ("grci-lit: error: --out out: is a symbolic link (to precious): grci-lit never writes "
                                 "through a link; pass the folder itself, or another --out\n")
    assert (here / "precious" / "thesis.txt").read_text() == "years of work" and os.path.islink(here / "out")
    os.remove(here / "out")
    os.symlink("far/away/target", here / "out")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 2 and "is a symbolic link (to far/away/target)" in err and not (here / "far").exists()
    os.remove(here / "out")
    os.symlink("loop_b", here / "out"); os.symlink("out", here / "loop_b")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 2 and "is a symbolic link" in err and len(err.splitlines()) == 1
    assert sorted(beside(here)) == ["loop_b", "precious"]


def test_a_read_only_run_is_left_as_it_is(here):
    "An earlier run made read-only (0555) is not replaced: one line, the folder, its mode and its files unchanged."
    before = contents(here / "out")
    os.chmod(here / "out", 0o555)
    try:
        code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
        assert code == 2 and "--out out: is not writable (mode 555)" in err and len(err.splitlines()) == 1
        assert stat.S_IMODE((here / "out").stat().st_mode) == 0o555 and contents(here / "out") == before
        assert beside(here) == []
    finally: os.chmod(here / "out", 0o755)


def test_a_hand_made_record_is_not_trusted(here):
    "A run.json written by hand cannot make a run replace files no run writes; the refusal names them."
    shutil.rmtree(here / "out")
    (here / "out").mkdir()
    (here / "out" / "precious.txt").write_text("mine")
    (here / "out" / "run.json").write_text(json.dumps({"program": "grci-lit", "files": ["precious.txt"]}))
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 2 and "it holds ['precious.txt'], which no grci-lit run writes" in err
    assert (here / "out" / "precious.txt").read_text() == "mine"


def test_a_stray_or_changed_file_is_named(here):
    "A run with a file added, or a file changed since written, is no longer a run: the message names that file."
    (here / "out" / "zz_notes.txt").write_text("mine")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 2 and "it holds ['zz_notes.txt'], which no grci-lit run writes" in err
    (here / "out" / "zz_notes.txt").unlink()
    (here / "out" / "order.csv").write_text("position,variable\n0,edited\n")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 2 and "its ['order.csv'] differ from what its run.json records" in err


def test_the_folder_keeps_its_mode(here):
    os.chmod(here / "out", 0o700)
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "out", *FAST, cwd=here)
    assert code == 0, err
    assert stat.S_IMODE((here / "out").stat().st_mode) == 0o700


def test_dotdot_after_a_missing_folder(here):
    "`--out nosuch/../out` is refused before anything is written (the system and the run would disagree on it)."
    before = contents(here / "out")
    code, _, err = cli("run", "t.csv", "--target", "dx", "--out", "nosuch/../out", *FAST, cwd=here)
    assert code == 2 and "'..' after 'nosuch', a folder that does not exist" in err
    assert contents(here / "out") == before and not (here / "nosuch").exists() and beside(here) == []


# ------------------------------------------------------------------------------------------- the input, read once
CHANGING = """
import sys, pandas as pd
real, calls = pd.read_csv, []
def read_csv(*args, **kwargs):
    out = real(*args, **kwargs)
    calls.append(1)
    if len(calls) == 1:                                   # the file changes while the run goes on
        with open("t.csv", "a") as f: f.write("0,0,0,1,9999\\n")
    return out
pd.read_csv = read_csv
from grci_lit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_hash_is_of_the_bytes_fitted(here):
    "The file changes while the run reads it: run.json's SHA-256 is still that of the bytes the fit read."
    fitted = (here / "t.csv").read_bytes()
    r = subprocess.run([sys.executable, "-c", CHANGING, "run", "t.csv", "--target", "dx", "--out", "out", *FAST,
                        "--quiet"], cwd=here, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert (here / "t.csv").read_bytes() != fitted                                  # it did change
    record = json.loads((here / "out" / "run.json").read_text())
    assert record["inputs"][0]["sha256"] == hashlib.sha256(fitted).hexdigest()
    assert record["inputs"][0]["bytes"] == len(fitted)
    assert len(pd.read_csv(here / "out" / "shapley_values.csv")) == 80


def test_a_fifo_is_refused_at_once(here):
    "A named pipe with no writer would block a read forever: refused from what it is, before any read."
    os.mkfifo(here / "pipe.csv")
    t = time.time()
    code, _, err = cli("run", "pipe.csv", "--target", "dx", "--out", "new", cwd=here)
    assert code == 2 and "pipe.csv: is a named pipe (FIFO), not a table; to pipe one in, pass - as the file" in err
    assert time.time() - t < 120 and not (here / "new").exists()


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_a_table_piped_in(here, name):
    "A table piped in (`-`, or /dev/stdin when it is a pipe) is read once; run.json names the standard input."
    data = (here / "t.csv").read_bytes()
    code, _, err = cli("run", name, "--target", "dx", "--out", "out", *FAST, "--quiet", cwd=here, stdin=data)
    assert code == 0, err
    record = json.loads((here / "out" / "run.json").read_text())
    assert record["inputs"] == [{"path": "-", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}]
