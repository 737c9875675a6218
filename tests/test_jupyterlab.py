"""The course in JupyterLab, as a student meets it: JupyterLab runs headless on a free local port (no token, no
browser of its own), Debian's Chromium (driven by Playwright's Python API; no browser is downloaded) opens toy
chapters, runs every cell, and checks what the student sees: no dialog asking which kernel to use (every notebook
names its kernel), no error output, and on every toy exactly one figure, which each control changes.

The chapters are copied to a temporary folder first, so that JupyterLab's autosave cannot touch `nbs/`; the cells
the test suite skips (`#| slow`, `#| eval: false`) are left out of the copies, as `nbdev-test` leaves them out.
tools/check.sh installs Chromium when it is missing (as root, with apt-get); elsewhere this test fails with the
command that installs it. Run with -s to see the table (chapter, seconds, controls live, figures per toy)."""
import json, os, shutil, socket, subprocess, sys, time, urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
CHAPTERS = ["00_hnm.ipynb", "02_partial_out.ipynb", "03_mutual_info.ipynb", "06_skeleton.ipynb"]
SKIPPED = ("slow", "notest")                      # the flags `nbdev-test` skips (pyproject's tst_flags)


def _skipped(cell):
    "Does the test suite skip this cell (a tst_flags flag or `eval: false` among its leading directives)?"
    for line in "".join(cell["source"]).splitlines():
        if not line.startswith("#|"): break
        d = line[2:].strip()
        if d in SKIPPED or d.replace(" ", "") == "eval:false": return True
    return False


def test_notebooks_name_their_kernel():
    "Every notebook names the python3 kernel, and nbdev's clean keeps it (JupyterLab then asks nothing)."
    from nbdev.clean import clean_nb
    nbs = sorted(NBS.rglob("*.ipynb"))
    missing = [p.relative_to(NBS).as_posix() for p in nbs
               if json.loads(p.read_text())["metadata"].get("kernelspec", {}).get("name") != "python3"]
    assert not missing, f"notebooks without the python3 kernelspec: {missing}"
    nb = json.loads(nbs[0].read_text())
    clean_nb(nb, **_clean_args())
    assert nb["metadata"]["kernelspec"]["name"] == "python3", "nbdev-clean dropped the kernelspec"


def _clean_args():
    "The keyword arguments nbdev-clean passes from the project's config"
    from nbdev.config import get_config
    cfg = get_config(ROOT)
    return {k: cfg.get(k) for k in ("allowed_metadata_keys", "allowed_cell_metadata_keys") if cfg.get(k)}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    "JupyterLab serving copies of the chapters (slow cells left out), on a free local port"
    root = tmp_path_factory.mktemp("lab")
    for name in CHAPTERS:
        nb = json.loads((NBS / name).read_text())
        nb["cells"] = [c for c in nb["cells"] if not (c["cell_type"] == "code" and _skipped(c))]
        for c in nb["cells"]:
            if c["cell_type"] == "code": c.update(outputs=[], execution_count=None)   # a fresh run shows only its own
        (root / name).write_text(json.dumps(nb))
    settings = root / ".settings" / "@jupyterlab"
    for ext, values in (("notebook-extension/tracker", {"windowingMode": "none"}),   # every cell in the page, to be read
                        ("apputils-extension/notification", {"fetchNews": "false", "checkForUpdates": False})):
        (settings / ext).parent.mkdir(parents=True, exist_ok=True)
        (settings / ext).with_suffix(".jupyterlab-settings").write_text(json.dumps(values))
    port = _free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               IN_TEST="1",                       # as under nbdev-test: the chapters' closing nbdev_export() does nothing
               JUPYTER_CONFIG_DIR=str(root / ".config"), JUPYTER_RUNTIME_DIR=str(root / ".runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(root / ".settings"), JUPYTERLAB_WORKSPACES_DIR=str(root / ".workspaces"))
    env.pop("MPLBACKEND", None)                   # the kernel's own inline backend, as for a student
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--ServerApp.root_dir={root}", "--IdentityProvider.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True", "--allow-root", "--LabApp.news_url=",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2); break
            except OSError:
                if proc.poll() is not None: pytest.fail(f"JupyterLab exited: {proc.stdout.read()[-2000:]}")
                time.sleep(0.5)
        else: pytest.fail("JupyterLab did not answer within a minute")
        yield url
    finally:
        proc.terminate()
        try: proc.wait(timeout=20)
        except subprocess.TimeoutExpired: proc.kill()


_ALL_RUN = """() => {
  const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim());
  return prompts.length > 0 && prompts.every(t => /^\\[\\d+\\]:$/.test(t));
}"""


_IDLE = """() => document.querySelector('.jp-Notebook-ExecutionIndicator[data-status="idle"]') !== null
   && ![...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].some(p => p.textContent.includes('*'))"""


def _run_all(page, name):
    "Run every cell of the open notebook through JupyterLab's Run menu; wait until the kernel has finished"
    page.locator(".jp-Notebook .jp-Cell").first.click()          # the notebook has the focus: the menu acts on it
    page.click("li.lm-MenuBar-item:has-text('Run')")
    page.click("li.lm-Menu-item:has-text('Run All Cells')")
    page.wait_for_function("() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
                           ".some(p => p.textContent.trim() !== '[ ]:')", timeout=180_000)     # it started (slow on a busy machine)
    page.wait_for_function(_IDLE, timeout=240_000, polling=500)                                 # ... and stopped


def _figures(toy):
    return toy.locator(".widget-output img, .widget-output .jp-RenderedImage img")


def _move(page, control):
    "Change one control of a toy: another option of a dropdown, one step of a slider; False if it has none"
    select = control.locator("select")
    if select.count():
        options = select.locator("option")
        current = select.evaluate("s => s.selectedIndex")
        assert current >= 0, "a dropdown shows no value (ipywidgets shows none for value=None: give index=0)"
        if options.count() < 2: return False
        select.select_option(index=(current + 1) % options.count())
        return True
    handle = control.locator(".noUi-handle")
    if handle.count():
        handle.first.focus(); page.keyboard.press("ArrowRight"); return True
    box = control.locator("input[type=checkbox]")
    if box.count():
        box.first.click(); return True
    return False


def _check_toys(page, name):
    "Every toy shows one figure, and each of its controls redraws it (still one). Returns (controls live, figures per toy)"
    toys = page.locator(".jp-OutputArea-output .widget-interact")
    assert toys.count() > 0, f"{name}: no toy rendered"
    live, per_toy = 0, []
    for t in range(toys.count()):
        toy = toys.nth(t)
        toy.scroll_into_view_if_needed()
        page.wait_for_function("t => t.querySelectorAll('.widget-output img').length > 0", arg=toy.element_handle(),
                               timeout=60_000)
        figs = _figures(toy)
        assert figs.count() == 1, f"{name}: toy {t} shows {figs.count()} figures"
        per_toy.append(figs.count())
        controls = toy.locator(":scope > .widget-inline-hbox, :scope > .widget-dropdown, :scope > .widget-hslider, "
                               ":scope > .widget-checkbox")
        for k in range(controls.count()):
            before = figs.first.get_attribute("src")
            if not _move(page, controls.nth(k)): continue
            label = controls.nth(k).locator(".widget-label").first.inner_text()
            try:
                page.wait_for_function(
                    """([t, before]) => { const imgs = t.querySelectorAll('.widget-output img');
                       return imgs.length === 1 && imgs[0].getAttribute('src') !== before; }""",
                    arg=[toy.element_handle(), before], timeout=120_000)
            except Exception as e:                        # Playwright's TimeoutError
                if "Timeout" not in type(e).__name__: raise
                pytest.fail(f"{name}: toy {t}, moving {label!r} does not redraw its one figure "
                            f"({_figures(toy).count()} figures shown)")
            assert _figures(toy).count() == 1, f"{name}: toy {t} shows {_figures(toy).count()} figures after a move"
            live += 1
    return live, per_toy


def test_toy_chapters_in_jupyterlab(lab, browser):
    """Each chapter opens with its kernel (no dialog), runs without an error output, and every toy shows one figure
    that each of its controls changes."""
    rows = []
    for k, name in enumerate(CHAPTERS):
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = ctx.new_page()
        t0 = time.time()
        try:
            page.goto(f"{lab}/lab/workspaces/test{k}/tree/{name}?reset", wait_until="load")   # one tab: this chapter
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=120_000)   # its kernel runs
            page.wait_for_timeout(1500)                   # a kernel dialog would show by now
            dialogs = page.locator(".jp-Dialog")
            assert dialogs.count() == 0, f"{name}: a dialog opened: {dialogs.first.inner_text()[:200]}"
            _run_all(page, name)
            errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')
            assert errors.count() == 0, f"{name}: error output: {errors.first.inner_text()[:500]}"
            assert page.evaluate(_ALL_RUN), f"{name}: not every cell ran"
            live, per_toy = _check_toys(page, name)
            assert page.locator(".jp-Dialog").count() == 0, f"{name}: a dialog opened while running"
            rows.append((name, time.time() - t0, live, per_toy))
        finally:
            ctx.close()
    print("\n| chapter | seconds | controls live | figures per toy |\n|---|---|---|---|")
    for name, secs, live, per_toy in rows: print(f"| {name} | {secs:.0f} | {live} | {', '.join(map(str, per_toy))} |")
