"""One build of the docs site for every test that looks at it (tests/test_docs.py, tests/test_site.py)."""
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
