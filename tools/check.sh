#!/usr/bin/env bash
# The one test command, for developers and CI: notebooks clean, library in sync with them, every test.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 MPLBACKEND=Agg
nbdev-clean                       # strip execution counts and metadata (outputs stay: the docs show them)
nbdev-export                      # regenerate grci_lit/ from nbs/
if [ -n "${CI:-}" ] && [ -n "$(git status --porcelain -- nbs grci_lit)" ]; then
  git status --short -- nbs grci_lit
  echo "check.sh: the notebooks are not clean or grci_lit/ is out of sync with nbs/: run tools/check.sh and commit."
  exit 1
fi
# the browser test (tests/test_site.py) drives Debian's Chromium: install it where we may (root, apt-get)
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "check.sh: installing chromium for the browser test"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
exec python -m pytest -q --durations=10 "$@"
