"""Shared fixtures: one build of the docs site for every test that looks at it (tests/test_docs.py, tests/test_site.py),
and one headless Chromium for the tests that open pages (tests/test_site.py, tests/test_jupyterlab.py)."""
import subprocess, sys, time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    "The site built by tools/build_docs.py into a temporary folder (toy figures cached in _site_cache/)"
    out = tmp_path_factory.mktemp("site")
    t0 = time.time()
    r = subprocess.run([sys.executable, "tools/build_docs.py", "--out", str(out), "--no-readme"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    print(f"\nsite built in {time.time() - t0:.0f} s\n{r.stdout}")
    return out


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
CHROMIUM_INSTALL = "apt-get update && apt-get install -y chromium"


@pytest.fixture(scope="module")
def browser():
    "Debian's Chromium driven by Playwright's Python API (no browser is downloaded); a failure says how to install it."
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed; install it with: {CHROMIUM_INSTALL}")
    try: from playwright.sync_api import sync_playwright
    except ImportError: pytest.fail('Playwright is not installed; install it with: pip install -e ".[dev]"')
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
