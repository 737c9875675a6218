"""The site in a real browser: headless Chromium (Debian's `chromium`, driven by Playwright's Python API; no browser
is downloaded) opens every page from a local HTTP server and checks what a reader meets: the math is typeset with
no error, no request fails, no request goes to another host, the console stays clean; on every live toy, moving
each control changes the figure; at 400 px the sidebar is a drawer and the text column does not overflow.
tools/check.sh installs Chromium when it is missing (as root, with apt-get); elsewhere this test fails with the
command that installs it."""
import functools, http.server, re, shutil, threading
from pathlib import Path
from urllib.parse import urlparse

import pytest


MATHJAX_DONE = """() => window.MathJax && MathJax.isReady && MathJax.Hub.queue.pending === 0
                       && MathJax.Hub.queue.running === 0"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass


@pytest.fixture(scope="module")
def server(site):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _pages(site):
    "The site's pages (the slides are decks, checked on their own below)"
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if "mathjax" not in p.parts and "slides" not in p.parts)


def _open(browser, url, width):
    "Open `url` at `width` px; return the page and the lists of events it records"
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    ev = {"external": [], "failed": [], "console": []}
    host = urlparse(url).netloc
    page.on("request", lambda r: urlparse(r.url).netloc not in (host, "") and not r.url.startswith("data:")
            and ev["external"].append(r.url))
    page.on("requestfailed", lambda r: ev["failed"].append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and ev["failed"].append(f"{r.url} ({r.status})"))
    page.on("console", lambda m: m.type == "error" and ev["console"].append(m.text))
    page.on("pageerror", lambda e: ev["console"].append(str(e)))
    page.goto(url, wait_until="load")
    page.wait_for_function(MATHJAX_DONE, timeout=60_000)
    page.wait_for_load_state("networkidle")
    return ctx, page, ev


def _set(el, v):
    el.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", v)


def _size(el):
    return el.evaluate("e => e.tagName === 'SELECT' ? e.options.length : +e.max + 1")


def _check_toys(page, name):
    """Move each control of each toy through its values: the figure must change (and load). Where a control changes
    nothing in the default state (e.g. a switch that only matters after the first step), the other controls are moved
    first. Returns the number of controls checked."""
    n = 0
    for t in range(page.locator(".grci-toy").count()):
        toy = page.locator(".grci-toy").nth(t)
        img = toy.locator("img.toy-fig")
        controls = toy.locator(".toy-controls input, .toy-controls select")
        assert controls.count() > 0, f"{name}: toy {t} has no controls"
        els = [controls.nth(k) for k in range(controls.count())]
        defaults = [e.evaluate("e => e.value") for e in els]
        for k, el in enumerate(els):
            others = [None] + [(j, w) for j in range(len(els)) if j != k for w in range(_size(els[j]))]
            changed = False
            for other in others:
                if other: _set(els[other[0]], other[1])
                start = img.get_attribute("src")
                for v in range(_size(el)):
                    _set(el, v)
                    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
                    if img.get_attribute("src") != start: changed = True; break
                for e, d in zip(els, defaults): _set(e, d)
                if changed: break
            assert changed, f"{name}: toy {t}, moving {el.get_attribute('name')} never changes the figure"
            n += 1
    return n


def _narrow(page, name):
    "At 400 px: no horizontal overflow of the text column, and the sidebar is a drawer the header's button opens"
    page.set_viewport_size({"width": 400, "height": 900})
    page.wait_for_timeout(100)
    over = page.evaluate("""() => { const a = document.querySelector('.grci-article');
        return [a.scrollWidth - a.clientWidth, document.documentElement.scrollWidth - innerWidth]; }""")
    assert over[0] <= 1 and over[1] <= 1, f"{name}: at 400 px the text column overflows by {over} px"
    right = "() => document.querySelector('#grci-side').getBoundingClientRect().right"
    page.wait_for_function(f"() => ({right})() <= 1", timeout=3000)   # after the drawer's slide
    assert page.evaluate(right) <= 1, f"{name}: the sidebar covers the text at 400 px"
    page.click(".grci-burger")
    page.wait_for_function("() => document.querySelector('#grci-side').getBoundingClientRect().left >= -1",
                           timeout=3000)                                 # the header's button opens it
    page.click(".grci-burger")


def test_every_page_in_chromium(site, server, browser):
    """Every page at 1280 px: math typeset without error, every toy control changes its figure, no failed or
    outside request, no console error; then at 400 px: no overflow, the sidebar a drawer."""
    report = []
    for name in _pages(site):
        ctx, page, ev = _open(browser, f"{server}/{name}", 1280)
        try:
            assert page.locator(".MathJax_Error, merror").count() == 0, f"{name}: a math processing error"
            if "$" in re.sub(r"<script.*?</script>", "", (site / name).read_text(), flags=re.S):   # math in the text, not the config
                assert page.locator(".MathJax, .MathJax_Display").count() > 0, f"{name}: no math typeset"
            controls = _check_toys(page, name)
            _narrow(page, name)
            page.wait_for_load_state("networkidle")
            assert not ev["external"], f"{name}: requests to another host: {ev['external'][:3]}"
            assert not ev["failed"], f"{name}: failed requests: {ev['failed'][:3]}"
            assert not ev["console"], f"{name}: console errors: {ev['console'][:3]}"
            report.append(f"{name}: {page.locator('.grci-toy').count()} toys, {controls} live controls (each "
                          f"changes its figure); 0 external, 0 failed requests; no overflow at 400 px")
        finally:
            ctx.close()
    print("\n" + "\n".join(report))


def test_search_works_offline(site, server, browser):
    ctx, page, ev = _open(browser, f"{server}/index.html", 1280)
    try:
        page.fill("#grci-search", "skeleton stable")
        hits = page.locator("#grci-search-results a")
        assert hits.count() > 0, "no search results for 'skeleton stable'"
        hits.first.click()
        page.wait_for_load_state("load")
        assert "skeleton" in page.url or "Skeleton" in page.content(), page.url
        assert not ev["external"] and not ev["failed"], ev
    finally:
        ctx.close()


def _chapter_pages(site):
    "(page, its notebook) of every page that offers a notebook to download"
    out = []
    for name in _pages(site):
        m = re.search(r'<a href="([^"]+\.ipynb)" download>', (site / name).read_text())
        if m: out.append((name, m[1]))
    return out


def test_every_chapter_page_has_an_errata_link(site):
    """Each page with a notebook links a new erratum (.github/ISSUE_TEMPLATE/erratum.md) whose title names the chapter:
    its number and its title."""
    from urllib.parse import parse_qs, urlparse
    import html as html_mod
    pages = _chapter_pages(site)
    assert len(pages) >= 20, pages
    for name, _ in pages:
        text = (site / name).read_text()
        m = re.search(r'<a class="grci-erratum" href="([^"]+)"', text)
        assert m, f"{name}: no 'Report an error' link"
        url = urlparse(html_mod.unescape(m[1]))
        q = parse_qs(url.query)
        assert url.path.endswith("/issues/new") and q["template"] == ["erratum.md"], f"{name}: {m[1]}"
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.S)
        title = html_mod.unescape(re.sub(r"<[^>]+>", "", h1[1])).replace("¶", "").strip() if h1 else ""
        own = re.search(r'class="cur" href="[^"]*"><span class="grci-num">(\w+)</span>', text)   # its sidebar number
        expect = f"Erratum: chapter {own[1]} {title}" if own else f"Erratum: {title}"
        assert title and q["title"] == [expect], (name, q["title"], expect)
    template = Path(__file__).resolve().parents[1] / ".github" / "ISSUE_TEMPLATE" / "erratum.md"
    assert "**Chapter**" in template.read_text() and "**Cell**" in template.read_text()


def _page_of(chapter):
    "The page a chapter of the course becomes: its front matter's output-file, else its name without the number."
    import json
    cells = json.loads((Path(__file__).resolve().parents[1] / "nbs" / f"{chapter}.ipynb").read_text())["cells"]
    fm = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "raw" else ""
    m = re.search(r"^output-file:\s*(\S+)", fm, re.M)
    return m[1] if m else re.sub(r"^\d+_", "", chapter) + ".html"


def test_answers_are_folded_and_their_markers_hidden(site):
    "A worked answer shows without nbgrader's marker lines, folded; an answer key folds under 'Answer key'."
    from grci_lit import course
    assert _page_of("08a_support") == "support.html" and _page_of("08_grci") == "grci.html"
    for n in course.COURSE:
        name = _page_of(n)
        text = (site / name).read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, f"{name} shows a solution marker"
    grci = (site / "grci.html").read_text()
    assert '<details class="grci-answer"><summary>Answer key</summary>' in grci
    assert re.search(r'<details class="grci-answer">(?:(?!</details>).)*reproducible is not correct', grci, re.S)


def test_slides_of_every_core_chapter_in_chromium(site, server, browser):
    """Each core chapter's page links its deck; the deck opens offline (reveal.js and MathJax from the site), has its
    slides (title, goals, the key equation typeset, a figure that loads, the toy, the exercises, a way back), moves
    through all of them, and makes no outside or failed request and no console error."""
    from grci_lit import course
    core = [n for n, s in course.COURSE.items() if s["core"]]
    report = []
    for n in core:
        page = re.sub(r"^\d+_", "", n) + ".html"
        assert f'href="slides/{page}"' in (site / page).read_text(), f"{page} links no slides"
        ctx, p, ev = _open(browser, f"{server}/slides/{page}", 1280)
        try:
            p.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
            total = p.evaluate("() => Reveal.getTotalSlides()")
            titles = p.evaluate("() => [...document.querySelectorAll('.slides > section > h1, .slides > section > h2')]"
                                ".map(h => h.textContent)")
            assert titles[1:6] == ["What you will learn", "The key equation", "A figure", "The toy",
                                   "Exercises"], titles
            for _ in range(total - 1): p.evaluate("() => Reveal.next()")
            assert p.evaluate("() => Reveal.isLastSlide()"), f"{page}: the deck does not reach its last slide"
            assert p.evaluate("() => [...document.querySelectorAll('img.deck-fig')]"
                              ".every(i => i.complete && i.naturalWidth > 0)"), f"{page}: the figure does not load"
            p.wait_for_function(MATHJAX_DONE, timeout=60_000)
            assert p.locator(".MathJax_Error, merror").count() == 0, f"slides/{page}: a math processing error"
            assert p.locator(".MathJax, .MathJax_Display").count() > 0, f"slides/{page}: no math typeset"
            p.wait_for_load_state("networkidle")
            assert not ev["external"], f"slides/{page}: requests to another host: {ev['external'][:3]}"
            assert not ev["failed"], f"slides/{page}: failed requests: {ev['failed'][:3]}"
            assert not ev["console"], f"slides/{page}: console errors: {ev['console'][:3]}"
            report.append(f"slides/{page}: {total} slides; 0 external, 0 failed requests, 0 console errors")
        finally:
            ctx.close()
    print("\n" + "\n".join(report))
