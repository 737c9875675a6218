"""Every numbered reference to the paper in the course ("Eq. 4", "Equation (9)", "Figure 2", "Algorithm 3",
"Theorem 1", "Lemma 2", "Definition 4", "Section 5.2.1", "Table 1(a)", "Step 3 of Algorithm 2") names something the paper has.

The paper's numbering is kept in tests/paper_refs.csv: kind, number, a few words on what it is, and for some entries a
regular expression of words that must stand near every reference to it (within WINDOW characters, in the same cell),
so that "Eq. 5" written beside the differential equation, or "Figure 1" beside the Y = X^2 + EX + 10 plot, fails.
References to other works ("KSG's Figure 4", "Theorem 2 of Peters et al.") are told apart by the author's name."""
import csv, json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 300
KINDS = {"Eq.": "Equation", "Eqs.": "Equation", "Equation": "Equation", "Equations": "Equation",
         "Figure": "Figure", "Figures": "Figure", "Fig.": "Figure", "Algorithm": "Algorithm", "Algorithms": "Algorithm",
         "Theorem": "Theorem", "Theorems": "Theorem", "Lemma": "Lemma", "Lemmas": "Lemma",
         "Definition": "Definition", "Section": "Section", "Sections": "Section", "Table": "Table", "Tables": "Table"}
NUM = r"\(?\d+(?:\.\d+)*\)?"
REF = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True)) + r")(?![\w.])"
                 + rf"\s*({NUM}(?:(?:\s*(?:,|and|or|-|–)\s*){NUM})*)")
STEP = re.compile(r"\b[Ss]teps? (\d+) of Algorithm (\d+)")
OTHER_AUTHORS = r"Balakrishnan|KSG|Kraskov|Johnson|Kotz|Peters|Colombo|Maathuis|Spirtes|Lundberg|Shimizu|Mooij|Hoyer|Zhang|Kalisch"
OTHER_BEFORE = re.compile(rf"(?:{OTHER_AUTHORS})[^.()\n]{{0,20}}\(?$")
OTHER_AFTER = re.compile(rf"^\s*(?:\(\w\)\s*)?of (?:{OTHER_AUTHORS}|[A-Z][a-z]+ et al)")
# numbered lines of Algorithms 1-4: Partial-Out 3; GRCI 3; Extract-Errors 3 set-up lines, then Find-Sink, remove, add,
# Partial-Out, update U, remove edges in the loop; Find-Sink: return, loop, Partial-Out, score, argmin
STEPS = {"1": 3, "2": 3, "3": 10, "4": 5}


def paper_table():
    "{(kind, number): (what, words regex or None)} from tests/paper_refs.csv."
    with open(ROOT / "tests" / "paper_refs.csv", newline="", encoding="utf-8") as f:
        return {(r["kind"], r["number"]): (r["what"], re.compile(r["words"], re.I) if r["words"] else None)
                for r in csv.DictReader(f)}


NOT_YET = set()   # notebooks not checked yet (none)


def notebooks():
    "The course's notebooks: nbs/ and its sub-folders."
    return sorted(p for p in (ROOT / "nbs").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and p.name not in NOT_YET)


def cell_texts(path):
    "(cell index, cell type, text) for the markdown cells and the code cells (comments, docstrings, help strings)."
    for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        if cell["cell_type"] in ("markdown", "code"): yield i, cell["cell_type"], "".join(cell["source"])


def references(text):
    "(start, end, kind, number) for every reference to the paper in `text`, lists like 'Algorithms 3 and 4' expanded."
    for m in REF.finditer(text):
        if OTHER_BEFORE.search(text[max(0, m.start() - 40):m.start()]) or OTHER_AFTER.match(text[m.end():m.end() + 40]):
            continue
        for n in re.findall(r"\d+(?:\.\d+)*", m.group(2)):
            yield m.start(), m.end(), KINDS[m.group(1)], n.rstrip(".")


@pytest.mark.parametrize("text, found", [
    ("the error formula (paper, Eq. 5)", [("Equation", "5")]), ("Equation (9)'s inner sum", [("Equation", "9")]),
    ("paper, Algorithms 3 and 4", [("Algorithm", "3"), ("Algorithm", "4")]), ("Section 5.2.1 design", [("Section", "5.2.1")]),
    ("the paper's Figure 2.", [("Figure", "2")]), ("(KSG, Eq. 8)", []), ("KSG's Figure 4 is the reason", []),
    ("Theorem 2 of Peters et al., 2011", []), ("Kotz & Balakrishnan (Table 18.6)", []),
    ("the paper's Table 1(a) and the supplement's Table 2", [("Table", "1"), ("Table", "2")]), ("plt.figure(1)", []), ("Sections 3.2 and 3.3", [("Section", "3.2"), ("Section", "3.3")]),
])
def test_references_are_found_and_other_works_skipped(text, found):
    assert [(k, n) for _, _, k, n in references(text)] == found


def test_the_table_matches_the_paper_counts():
    table = paper_table()
    count = lambda kind: sum(k == kind for k, _ in table)
    assert (count("Equation"), count("Figure"), count("Algorithm"), count("Theorem"), count("Lemma"), count("Definition")) \
        == (10, 8, 4, 4, 2, 4)
    assert {n for k, n in table if k == "Table"} == {"1", "2"}
    assert {n for k, n in table if k == "Section" and "." not in n} == {"1", "2", "3", "4", "5", "6"}


def problems(text, table, where=""):
    "One message per reference in `text` that the paper does not have, or whose referent's words are not near it."
    for start, end, kind, n in references(text):
        if (kind, n) not in table:
            yield f"{where}{text[start:end]!r} -> the paper has no {kind} {n}"
            continue
        what, words = table[kind, n]
        if words is not None and not words.search(text[max(0, start - WINDOW):end + WINDOW]):
            yield (f"{where}{text[start:end]!r} is {what!r}, but nothing near it says so: "
                   f"...{text[max(0, start - 60):end + 60]!r}...")


@pytest.mark.parametrize("text, ok", [
    ("The paper's Figure 1 shows $Y = X^2 + E X + 10$", False), ("The paper's Figure 2 shows $Y = X^2 + E X + 10$", True),
    ("Then (paper, Eq. 5) $$-\\frac{\\sigma(x)}{Q(x,y)}\\frac{\\partial^2 r}{\\partial x\\,\\partial y}$$", False),
    ("the error is recovered exactly (paper, Eq. 4): $E_i = (X_i - m_i)/\\sigma_i$", False),
    ("the error is recovered exactly (paper, Eq. 5): $E_i = (X_i - m_i)/\\sigma_i$", True),
    ("estimates $f$ with XGBoost (Step 3 of Algorithm 4)", False), ("the GRCI step (Step 3 of Algorithm 2)", True),
    ("as the paper's Section 7 says", False), ("Lemma 3", False),
    ("the paper's Table 3(a): GRCI's mean RBO", False), ("the paper's Table 1(a): GRCI's mean RBO", True),
    ("the supplement's Table 2 (PNL)", True), ("the paper's Table 2: mean RBO under HNM", False),
])
def test_wrong_references_are_caught(text, ok):
    assert (not list(problems(text, paper_table()))) == ok


def test_every_reference_names_something_the_paper_has():
    table, bad, checked = paper_table(), [], 0
    for path in notebooks():
        for i, _, text in cell_texts(path):
            checked += len(list(references(text)))
            bad += problems(text, table, f"{path.relative_to(ROOT / 'nbs')} cell {i}: ")
    print(f"{checked} references to the paper checked")
    assert checked > 150, checked
    assert not bad, "\n".join(bad)


def test_steps_of_algorithms_exist():
    bad = []
    for path in notebooks():
        for i, _, text in cell_texts(path):
            for m in STEP.finditer(text):
                step, alg = m.groups()
                if alg not in STEPS or int(step) > STEPS[alg]:
                    bad.append(f"{path.name} cell {i}: {m.group(0)!r}")
    assert not bad, "\n".join(bad)
