"""The course a teacher can assign (module grci_lit.course, chapter nbs/93_teaching.ipynb):

- every chapter's exercises follow the convention (solution markers, check cells, a conceptual question with an answer
  key in each core chapter), and the student and instructor copies hold what they should;
- in each chapter's student copy every check fails on the blank and passes on the worked answer (`verify`), the core
  chapters run in the student's own environment when .ci/run provides one (GRCI_COURSE_PYTHON: a venv holding only
  `.[course]`, installed with constraints/course.txt) and outside the checkout, as a chapter downloaded alone runs;
- that environment holds only what the constraints pin, and no test tool;
- every chapter states the minutes the syllabus states, and installs this release when run outside a checkout;
- the release is one version everywhere.

Set GRCI_COURSE_CORE_ONLY=1 to verify the core chapters only (the optional ones also run in tests/test_notebooks.py).
Run with -s to see the table of chapters, seconds, exercises and checks."""
import json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grci_lit import __version__, course

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
COURSE_PYTHON = os.environ.get("GRCI_COURSE_PYTHON")          # .ci/run: the student's fresh environment
PENDING = {}   # chapter -> why its exercises do not follow the convention yet (an expected failure until they do)
READS_CHECKOUT = {  # chapters whose cells read files of the checkout (until they read the package instead)
    "04_extract_errors": "../results/pairs_paired.csv",   # in its optional section only
    "08a_support": "../results/support_calibration.csv",  # the calibration measured in the lab
    "13_beyond_the_paper": "../results/",                 # the tables of the evidence (results/README.md)
    "14_scale": "../lab/records/scale",                   # the harness's measurements, kept in the lab
}
CHAPTERS = [n for n in course.COURSE if course.exercises(course.read_notebook(NBS / f"{n}.ipynb")) or n in PENDING]
CORE = [n for n in CHAPTERS if course.COURSE[n]["core"]]


def _nb(name): return course.read_notebook(NBS / f"{name}.ipynb")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=PENDING[n], strict=True))
                                  if n in PENDING else n for n in CHAPTERS])
def test_exercises_follow_the_convention(name):
    nb = _nb(name)
    assert not course.unmarked(nb), f"{name}: folded exercise cells without solution markers {course.unmarked(nb)}"
    found = course.exercises(nb)
    assert found and all(not e.title.startswith("Exercise ") for e in found), f"{name}: an exercise without a title"
    for e in found:
        if e.kind == "conceptual": continue
        checks = [nb["cells"][k]["source"] for k in e.checks]
        assert checks, f"{name} exercise {e.number}: no check cell"
        assert all(re.search(r"^\s*(assert |test_\w+\()|\n\s*(assert |test_\w+\()", c) for c in checks), \
            f"{name} exercise {e.number}: a check cell asserts nothing"
    if course.COURSE[name]["core"]:
        keys = [e for e in found if e.kind == "conceptual"]
        assert keys, f"{name}: a core chapter needs a conceptual question with an answer key"


def test_copies_hide_the_answers_and_keep_the_checks(tmp_path):
    assert course.main(["student", "--out", str(tmp_path)]) == 0
    assert course.main(["instructor", "--out", str(tmp_path)]) == 0
    import nbformat
    written = sorted(p.stem for p in (tmp_path / "student").glob("*.ipynb"))
    assert written == sorted(n for n in CHAPTERS if n not in PENDING), written
    for name in written:
        src, st = _nb(name), course.read_notebook(tmp_path / "student" / f"{name}.ipynb")
        ins = course.read_notebook(tmp_path / "instructor" / f"{name}.ipynb")
        for nb in (st, ins): nbformat.validate(nb)                        # both open in Jupyter
        text = "\n".join(c["source"] for c in st["cells"])
        assert course.SOLUTION_BEGIN not in text and course.ANSWER_BEGIN not in text, name
        assert "nbdev_" + "export(" not in text, f"{name}: the student copy keeps the maintainers' export cell"
        checks = [c["source"] for c in src["cells"] if "check" in course.cell_tags(c)]
        assert [c["source"] for c in st["cells"] if "check" in course.cell_tags(c)] == checks, name
        assert [c["source"] for c in ins["cells"] if course._is_solution(c)] == \
            [c["source"] for c in src["cells"] if course._is_solution(c)], name
        blanks = [c for c in st["cells"] if c["source"].startswith(("# Exercise", course.BLANK_ANSWER))
                  or "\n# Exercise " in c["source"]]
        assert len(blanks) == len(course.exercises(src)), f"{name}: one blank per exercise"


def test_chapters_state_the_syllabus_minutes_and_install_this_release():
    "`python -m grci_lit.course sync` has written every chapter's time line and install cell from the current numbers."
    assert course.sync_chapters(write=False) == [], "run: python -m grci_lit.course sync"
    lost = [n for n in CHAPTERS if course._learn_cell(_nb(n)) is None]   # sync leaves out a chapter it cannot find
    assert not lost, f"no line that reads only **What you will learn** (sync writes the time under it): {lost}"
    times = json.loads(course.times_file().read_text())
    assert set(CORE) <= set(times["chapters"]), "results/course_times.json lacks a core chapter: verify --times"


def test_run_anywhere_reads_no_checkout_file_but_those_listed():
    "A chapter read from the package runs downloaded alone; those that still read ../results/ are listed (and do)."
    for name in CHAPTERS:
        code = "\n".join(c["source"] for c in _nb(name)["cells"] if course._runs(c))
        reads = re.findall(r"""["'](\.\./(?:results|nbs|tools|lab)[^"']*)["']""", code)
        if name not in READS_CHECKOUT: assert not reads, f"{name} reads {reads} from the checkout"
        else: assert any(r.startswith(READS_CHECKOUT[name]) for r in reads), f"{name} no longer reads the checkout"


def _row(r, job):
    "One line of the table: where a chapter ran, its seconds, its exercises and how its checks did"
    checked = [e for e in r["exercises"] if e.get("checks")]
    return dict(chapter=r["chapter"], environment="course" if job[1] else "dev",
                where="checkout" if job[2] else "alone", parts="whole" if job[3] else "lesson, exercises",
                seconds=r["seconds"], exercises=len(r["exercises"]),
                checks=sum(e["checks"] for e in checked),
                fail_on_blank=sum(all(e["on_blank"]) for e in checked),
                pass_on_answer=sum(not any(e["on_answer"]) and not e["answer_error"] for e in checked))


@pytest.fixture(scope="module")
def verified():
    """Every chapter's student copy verified, two at a time. A core chapter's lesson and exercises run in the student's
    environment, outside a checkout; an optional chapter runs whole, in this environment (inside the checkout if it
    reads files of it). The optional sections of the core chapters run in tests/test_notebooks.py."""
    names = CORE if os.environ.get("GRCI_COURSE_CORE_ONLY") else [n for n in CHAPTERS if n not in PENDING]
    core = lambda n: course.COURSE[n]["core"]
    jobs = [(n, COURSE_PYTHON if core(n) else None, not core(n) and n in READS_CHECKOUT, not core(n)) for n in names]
    def run(j):
        r = course.verify_many([NBS / f"{j[0]}.ipynb"], 1, j[2], j[1], j[3])[0]
        if not r["error"]: return r
        # a lesson cell failed, not a check: once, fit_seeds(n_jobs=2) of chapter 08 lost a joblib worker's result
        # (BrokenProcessPool) while another chapter ran; a second run tells a flake from an error
        again = course.verify_many([NBS / f"{j[0]}.ipynb"], 1, j[2], j[1], j[3])[0]
        print(f"\n{j[0]} was run twice; the first run stopped at {r['error']}")
        return again
    with ThreadPoolExecutor(2) as pool: reports = list(pool.map(run, jobs))
    print("\n" + course._table([_row(r, j) for r, j in zip(reports, jobs)], list(_row(reports[0], jobs[0]))))
    return {r["chapter"]: r for r in reports}


@pytest.mark.parametrize("name", [n for n in CHAPTERS if n not in PENDING])
def test_checks_fail_on_the_blank_and_pass_on_the_answer(verified, name):
    if name not in verified: pytest.skip("GRCI_COURSE_CORE_ONLY: the core chapters only")
    r = verified[name]
    assert course.problems(r) == [], "\n".join(course.problems(r))
    code = [e for e in r["exercises"] if e["kind"] == "code"]
    assert code and all(e["checks"] >= 1 and len(e["on_blank"]) == e["checks"] for e in code), name


@pytest.mark.skipif(not COURSE_PYTHON, reason="GRCI_COURSE_PYTHON names no student environment (.ci/run makes one)")
def test_the_course_environment_is_the_students():
    "It holds what constraints/course.txt pins and nothing else: no test tool, no browser driver."
    pins = {l.strip().lower() for l in (ROOT / "constraints" / "course.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")}
    frozen = subprocess.run([COURSE_PYTHON, "-m", "pip", "freeze", "--exclude-editable"], capture_output=True,
                            text=True, check=True).stdout
    unpinned = {l.strip().lower() for l in frozen.splitlines() if l.strip()} - pins
    assert not unpinned, f"installed without a pin in constraints/course.txt: {sorted(unpinned)}"
    probe = ("import importlib.util as u, grci_lit; "
             "print([m for m in ('pytest', 'playwright', 'dask') if u.find_spec(m)], grci_lit.__version__)")
    out = subprocess.run([COURSE_PYTHON, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[]", __version__], out


def test_one_version_everywhere():
    "The package, the citation and the changelog name the same release; the erratum template asks for chapter and cell."
    cff = re.search(r"^version:\s*(\S+)", (ROOT / "CITATION.cff").read_text(), re.M)[1]
    top = re.search(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)[1]
    assert cff == top == __version__, (cff, top, __version__)
    erratum = (ROOT / ".github" / "ISSUE_TEMPLATE" / "erratum.md").read_text()
    assert "name: Erratum" in erratum and "**Chapter**" in erratum and "**Cell**" in erratum
