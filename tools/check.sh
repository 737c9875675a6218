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
exec python -m pytest -q --durations=10 "$@"
