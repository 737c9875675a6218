"""The offline docs site builds, every chapter has its page with its figures and its live toys, no page shows an
error or asks another host for anything, the API reference is clean and its links land on anchors that exist.
Also: the README is the index notebook rendered, its links resolve in a checkout, and its test command is the one
CI runs. (The browser checks are in tests/test_site.py; both use the one build of tests/conftest.py.)"""
import html, json, re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS_ROOT = ROOT / "nbs"
NBS = sorted(p for p in NBS_ROOT.rglob("*.ipynb")
             if not any(x.startswith(("_", ".")) for x in p.relative_to(NBS_ROOT).parts))
REFERENCE = {"glossary"}   # reference pages beside the chapters (the glossary): words alone, no figure, no chapter number


def _page(nb):
    "Page of a notebook: nbs/06_skeleton.ipynb -> skeleton.html, nbs/bench/02_skeleton.ipynb -> bench_skeleton.html"
    cells = json.loads(nb.read_text())["cells"]
    fm = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "raw" else ""
    m = re.search(r"^output-file:\s*(\S+)", fm, re.M)
    name = m[1] if m else ("index" if nb.stem == "index" else re.sub(r"^\d+_", "", nb.stem)) + ".html"
    return "_".join([*nb.parent.relative_to(NBS_ROOT).parts, name])


def _interact_cells(nb):
    return sum(1 for c in json.loads(nb.read_text())["cells"]
               if c["cell_type"] == "code" and re.search(r"^\s*interact\(\w+", "".join(c["source"]), re.M))


def _pages(site):
    return sorted(p for p in site.rglob("*.html") if "mathjax" not in p.parts)


def test_every_notebook_has_a_page_and_its_notebook(site):
    for nb in NBS:
        assert (site / _page(nb)).exists(), f"no page for {nb.name}"
        if nb.stem != "index":
            html = (site / _page(nb)).read_text()
            assert f'href="{nb.name}" download' in html and (site / _page(nb)).with_name(nb.name).exists(), \
                f"{_page(nb)} does not offer its notebook"


def test_chapters_show_their_figures_and_no_errors(site):
    for nb in NBS:
        html = (site / _page(nb)).read_text()
        assert "Traceback (most recent call last)" not in html, f"{_page(nb)} shows a traceback"
        if nb.stem != "index":
            assert nb.stem in REFERENCE or re.search(r'<img[^>]+src="data:image/png', html), f"{_page(nb)} has no figure"
            assert "grci-side" in html and re.search(r'href="(\.\./)*index.html"', html), f"{_page(nb)} has no navigation"


def test_appendix_comes_after_the_chapters(site):
    "The sidebar lists the index, the syllabus, the chapters in order, the harness, then the appendices (90 and up)."
    side = re.search(r'<ol class="grci-chapters">(.*?)</ol>', (site / "index.html").read_text(), re.S)[1]
    pages = [p for p in re.findall(r'href="([^"]+)"', side) if p != "results.html"]   # the results page closes the list
    def order(nb):   # index, the syllabus, the chapters, the harness's pages (nbs/bench/), the appendices (90 and up)
        rel = nb.relative_to(NBS_ROOT)
        appendix = len(rel.parts) == 1 and nb.name[:2].isdigit() and int(nb.name[:2]) >= 90
        first = {"index": 0, "syllabus": 0.5}.get(nb.stem) if len(rel.parts) == 1 else None
        return (first if first is not None else 3 if appendix else len(rel.parts), str(rel))
    expected = [_page(nb) for nb in sorted(NBS, key=order)]
    assert pages == expected and pages[1] == "syllabus.html", pages
    assert pages[-3:] == ["r_code.html", "core.html", "teaching.html"], pages


def test_every_interact_cell_is_a_live_toy(site):
    "Each `interact(...)` cell of a notebook is, on its page, a toy with controls and a figure for every state."
    for nb in NBS:
        html = (site / _page(nb)).read_text()
        toys = re.findall(r'<div class="grci-toy".*?<script type="application/json">(.*?)</script>', html, re.S)
        assert len(toys) == _interact_cells(nb), f"{_page(nb)}: {len(toys)} toys for {_interact_cells(nb)} interact cells"
        for t in toys:
            spec = json.loads(t.replace("<\\/", "</"))
            assert spec["controls"], f"{_page(nb)}: a toy without controls"
            n = 1
            for c in spec["controls"]: n *= len(c["labels"])
            assert len(spec["states"]) == n, f"{_page(nb)}: {len(spec['states'])} states for {n} combinations"
            for s in spec["states"].values():
                assert s["png"] and ((site / _page(nb)).parent / s["png"]).exists(), f"{_page(nb)}: missing {s['png']}"


def test_page_and_site_weights(site):
    """A page with the figures of its toys weighs at most 4 MB; the whole site at most 70 MB (61 MB with the chapters
    ranking, stability and support, the appendices, the syllabus and the slide decks, MathJax 10 MB of it)."""
    for p in _pages(site):
        text = p.read_text()
        figs = set(re.findall(r'"png": "([^"]+)"', text)) | {
            s for s in re.findall(r'<img[^>]+src="([^"]+)"', text) if not s.startswith("data:")}
        size = len(text.encode()) + sum((p.parent / f).stat().st_size for f in figs if (p.parent / f).exists())
        assert size <= 4e6, f"{p.name} weighs {size / 1e6:.1f} MB with its figures"
    total = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    assert total <= 70e6, f"the site weighs {total / 1e6:.0f} MB"


def test_no_page_asks_another_host(site):
    "No script, style, font or image comes from another host; no widget embed, no require.js."
    for p in _pages(site):
        html = p.read_text()
        ext = re.findall(r'<(?:script|img|link|iframe|source)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]+)"', html)
        assert not ext, f"{p.name} loads {ext[:3]}"
        assert "require.js" not in html and "@jupyter-widgets" not in html, f"{p.name} loads require.js or widgets"
        assert not re.search(r'url\(["\']?(?:https?:)?//', html), f"{p.name} has a CSS url() to another host"


def test_math_is_served_locally_with_its_fonts(site):
    html = (site / "index.html").read_text()
    assert 'src="mathjax/MathJax.js' in html and (site / "mathjax" / "MathJax.js").exists()
    assert (site / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").is_dir()


def test_solutions_are_folded(site):
    "Cells tagged `#| code-fold: true` are inside a closed <details>."
    for nb in NBS:
        n = sum(1 for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"
                and re.search(r"^#\|\s*code-fold:\s*(true|show)", "".join(c["source"]), re.M))
        html = (site / _page(nb)).read_text()
        assert html.count('<details class="grci-fold">') == n, f"{_page(nb)}: {n} folded cells expected"


def test_pages_have_toc_numbered_sidebar_prev_next_and_search(site):
    idx = (site / "search_index.js").read_text()
    for nb in NBS:
        html = (site / _page(nb)).read_text()
        assert html.count('class="grci-pn"') == 2, f"{_page(nb)}: previous/next at the top and the foot"
        assert 'class="grci-toc"' in html and 'id="grci-search"' in html, f"{_page(nb)}: no contents or search"
        if nb.stem not in ("index", "syllabus", *REFERENCE):
            num = re.match(r"\d+", nb.name)[0]
            assert f'<span class="grci-num">{num}</span>' in html, f"{_page(nb)}: no chapter number {num}"
        assert f'"u": "{_page(nb)}#' in idx, f"{_page(nb)} is not in the search index"


def test_results_page_replaces_the_readme_link(site):
    html = (site / "index.html").read_text()
    assert 'href="results.html"' in html and 'href="results/README.md"' not in html
    res = (site / "results.html").read_text()
    for img in re.findall(r'<img[^>]+src="([^"]+)"', res):
        if not img.startswith("data:"): assert (site / img).exists(), f"results.html: missing {img}"


def test_api_reference_is_clean(site):
    "Classes as classes, no `__main__.`, no `NoneType`; the GRCI class is rendered as a class."
    for p in _pages(site):
        html = p.read_text()
        assert "__main__." not in html, f"{p.name} shows __main__."
        assert "NoneType" not in html, f"{p.name} shows NoneType"
    grci = (site / "grci.html").read_text()
    assert re.search(r'<span class="k">class</span>(<span class="w"> </span>| )<span class="nc">GRCI</span>', grci), \
        "GRCI is not shown as a class"


def test_links_are_relative_and_land_on_anchors(site):
    "Every link between pages is relative and names an anchor that exists on its target."
    pages = _pages(site)
    ids = {p: {html.unescape(x) for x in re.findall(r'\bid="([^"]+)"', p.read_text())} for p in pages}
    n = 0
    for p in pages:
        text = p.read_text()
        assert "grci-lit.github.io" not in re.sub(r'<script type="application/json">.*?</script>', "", text, flags=re.S), \
            f"{p.name} links the published site instead of itself"
        for href in re.findall(r'<a\b[^>]*\bhref="([^"]+)"', text):
            if re.match(r"[a-z]+:", href): continue
            url, _, anchor = html.unescape(href).partition("#")
            target = (p.parent / unquote(url)).resolve() if url else p
            assert target.exists(), f"{p.name}: broken link {href}"
            if anchor and target.suffix == ".html":     # a browser tries the fragment as written, then decoded
                assert anchor in ids[target] or unquote(anchor) in ids[target], \
                    f"{p.name}: {href} names no anchor of {target.name}"
                n += 1
    assert n > 100, f"only {n} cross-references checked"


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


def test_readme_quick_start_has_three_commands_and_ci_runs_the_course_and_test_ones():
    "The student's line (CI installs the course environment as it does), the demo, the test command (CI runs it)."
    cmds = _quick_start()
    assert len(cmds) == 3 and all("\n" not in c for c in cmds), cmds
    assert cmds[0].endswith("jupyter lab nbs/") and "grci-lit demo" in cmds[1]
    install = re.search(r'pip install (-e "\.\[course\]" -c constraints/course\.txt)', cmds[0])
    ci = (ROOT / ".ci" / "run").read_text()
    assert install and install[1] in ci, "the README's course line is not how .ci/run installs the course"
    assert cmds[2] in ci, "the README's test command is not what .ci/run runs"


def test_readme_is_the_index_notebook():
    "README.md is written from nbs/index.ipynb by tools/build_docs.py: its prose must not drift."
    src = json.loads((ROOT / "nbs" / "index.ipynb").read_text())
    md = (ROOT / "README.md").read_text()
    for c in src["cells"]:
        if c["cell_type"] == "markdown":
            first = "".join(c["source"]).strip().splitlines()[0].lstrip("#> ").strip()
            first = re.sub(r"\]\([^)]*\)", "]", first)          # links are rewritten for the checkout
            assert re.sub(r"\]\([^)]*\)", "]", md).count(first), f"README.md lacks {first!r}: run python tools/build_docs.py"


def test_readme_links_resolve_in_a_checkout():
    "Every relative link of README.md names a file of the repository (chapters link their notebooks)."
    md = (ROOT / "README.md").read_text()
    links = [u for u in re.findall(r"\]\(([^)\s]+)\)", md) if not re.match(r"[a-z]+:", u)]
    assert links, "README.md has no relative links"
    for u in links:
        path = u.split("#")[0]
        assert path and (ROOT / path).exists(), f"README.md links {u}, which is not in the checkout"
