"""The project speaks for itself: no tracked file a user reads (notebooks, the package, results, tools, the README,
the tests) points to the team's private notes, to issue numbers, or to "bars". What the authors' R code does is
stated in the appendix (nbs/90_r_code.ipynb, page r_code.html); a measured target is stated as what it is ("the paper
reports ...", "we require ...")."""
import re, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ["nbs", "grci_lit", "results", "tools", "tests", "README.md"]

FORBIDDEN = {
    "the team's notes on the R code": r"grci_reference|reference §|reference notes",
    "a path into the team's shared folder": r"shared/|ARCHITECTURE\.md|data_and_peers|nbdev3\.md",
    "an issue number": r"\b[Ii]ssues? ?#?\d",
    "the word Issue": r"\bIssue\b",
    "'the issue' (state the target instead)": r"(?i:\bthe issue\b)",
    "a bar (state the target instead)": r"bar \(issue|\b(own|measured|our|chapter's|RBO|each|these) bars?\b"
                                         r"|\bthe bars? (of|on|below|above)\b",
}
PATTERN = re.compile("|".join(f"(?:{p})" for p in FORBIDDEN.values()))


def tracked_files():
    "The tracked text files under SCANNED, this test file excepted."
    out = subprocess.run(["git", "ls-files", "-z", "--", *SCANNED], cwd=ROOT, capture_output=True, check=True).stdout
    me = Path(__file__).resolve()
    for name in filter(None, out.decode().split("\0")):
        path = ROOT / name
        if path.resolve() == me or not path.is_file(): continue
        data = path.read_bytes()
        if b"\0" in data: continue                       # images and other binary files
        yield name, data.decode("utf-8", errors="replace")


def offending_lines(text):
    "(line number, line, reason) for every line of `text` that matches a forbidden pattern."
    for i, line in enumerate(text.splitlines(), 1):
        if PATTERN.search(line):
            why = next(k for k, p in FORBIDDEN.items() if re.search(p, line))
            yield i, line.strip()[:160], why


@pytest.mark.parametrize("text, bad", [
    ("see grci_reference.md section 2", True), ("(reference §1.4)", True), ("shared/reference/x.md", True),
    ("**Issue 6 bar** met", True), ("fixed in issue 10", True), ("| bar (issue) | measured |", True),
    ("this package's own bars", True), ("the RBO bar of chapter grci", True), ("measures the bars on this machine", True),
    ("The issue here is speed", True),
    ("a tqdm progress bar", False), ("the error bars of the paper's Figure 3", False), ("red bars are root causes", False),
    ("ax.bar(i, h)", False), ("one dot per fit, the bar is the mean", False), ("$\\bar x$", False),
    ("what the authors' R code does (R/FindSink.R)", False), ("repo-actions: [issue]", False),
])
def test_pattern_catches_citations_not_ordinary_words(text, bad):
    assert bool(PATTERN.search(text)) == bad, text


def test_the_project_cites_no_private_notes_issues_or_bars():
    hits = [f"{name}:{i}: {line}  <- {why}" for name, text in tracked_files() for i, line, why in offending_lines(text)]
    assert not hits, "say it in the project's own words (see nbs/90_r_code.ipynb):\n" + "\n".join(hits[:30])


def test_the_scan_sees_the_project():
    "The scan is not vacuous: it reads the notebooks, the modules and the results page."
    names = {n for n, _ in tracked_files()}
    assert {"nbs/00_hnm.ipynb", "nbs/90_r_code.ipynb", "grci_lit/hnm.py", "results/README.md", "README.md"} <= names
