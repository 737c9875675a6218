"""The offline docs site builds, every chapter has its page with its figures, and no page shows an error.
Also: the README is the index notebook rendered, and its test command is the one CI runs."""
import json, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb")
             if not any(s.startswith(("_", ".")) for s in p.relative_to(ROOT / "nbs").parts))


def _page(nb):
    "The page of a notebook: nbs/06_skeleton.ipynb -> skeleton.html, nbs/bench/02_skeleton.ipynb -> bench_skeleton.html"
    folders = list(nb.relative_to(ROOT / "nbs").parent.parts)
    return "_".join(folders + [("index" if nb.stem == "index" else re.sub(r"^\d+_", "", nb.stem)) + ".html"])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "tools/build_docs.py", "--out", str(out), "--no-readme"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def test_every_notebook_has_a_page(site):
    for nb in NBS:
        assert (site / _page(nb)).exists(), f"no page for {nb.name}"


def test_chapters_show_their_figures_and_no_errors(site):
    for nb in NBS:
        html = (site / _page(nb)).read_text()
        assert "Traceback (most recent call last)" not in html, f"{_page(nb)} shows a traceback"
        if nb.stem != "index":
            assert re.search(r'<img[^>]+src="data:image/png', html), f"{_page(nb)} has no figure"
            assert "grci-side" in html and 'href="index.html"' in html, f"{_page(nb)} has no navigation"


def test_appendix_comes_after_the_chapters(site):
    "The sidebar lists the index, the numbered chapters in order, the benchmark harness, then the appendix on the R code."
    side = re.search(r'<nav class="grci-side">(.*?)</nav>', (site / "index.html").read_text(), re.S)[1]
    pages = re.findall(r'href="([^"]+)"', side)
    def order(nb):   # index, the chapters, the harness's pages (nbs/bench/), the appendices (numbered 90 and up)
        rel = nb.relative_to(ROOT / "nbs")
        appendix = len(rel.parts) == 1 and nb.name[:2].isdigit() and int(nb.name[:2]) >= 90
        return (0 if nb.stem == "index" else 3 if appendix else len(rel.parts), str(rel))
    expected = [_page(nb) for nb in sorted(NBS, key=order)]
    assert pages == expected and pages[-1] == "r_code.html", pages


def test_math_renders_offline(site):
    html = (site / _page(NBS[0])).read_text()
    assert "mathjax/MathJax.js" in html and (site / "mathjax" / "MathJax.js").exists()


def test_stored_outputs_have_no_errors():
    "The docs show the outputs stored in the notebooks: none of them may be an error."
    for nb in NBS:
        cells = json.loads(nb.read_text())["cells"]
        errs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
        assert not errs, f"{nb.name} stores an error output"


def _quick_start():
    md = (ROOT / "README.md").read_text()
    sec = md.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", sec, re.S)


def test_readme_quick_start_has_two_commands_and_ci_runs_the_test_one():
    cmds = _quick_start()
    assert len(cmds) == 2 and all("\n" not in c for c in cmds), cmds
    assert "grci-lit demo" in cmds[0]
    assert cmds[1] in (ROOT / ".ci" / "run").read_text(), "the README's test command is not what .ci/run runs"


def test_readme_is_the_index_notebook():
    "README.md is written from nbs/index.ipynb by tools/build_docs.py: its prose must not drift."
    src = json.loads((ROOT / "nbs" / "index.ipynb").read_text())
    md = (ROOT / "README.md").read_text()
    for c in src["cells"]:
        if c["cell_type"] == "markdown":
            first = "".join(c["source"]).strip().splitlines()[0].lstrip("#> ").strip()
            assert first in md, f"README.md lacks {first!r}: run python tools/build_docs.py"


def _chromium():
    import shutil
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not _chromium(), reason="Debian's chromium is not installed (apt-get install chromium)")
def test_pages_render_math_in_headless_chromium(site, tmp_path):
    "Open every page in headless Chromium, offline: MathJax typesets the math with no processing error."
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path}", "--virtual-time-budget=15000", "--dump-dom"]
    for nb in NBS:
        dom = subprocess.run([_chromium(), *flags, (site / _page(nb)).as_uri()], capture_output=True,
                             text=True, timeout=120).stdout
        assert 'class="grci-main"' in dom, f"{_page(nb)} did not load"
        assert 'class="MathJax_Error"' not in dom, f"{_page(nb)} has a math processing error"
        assert 'class="MathJax"' in dom or 'class="MathJax_Display"' in dom, f"{_page(nb)} typeset no math"
