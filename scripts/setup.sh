#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install the project with the given extras; re-installs only when
# pyproject.toml changed. Usage: scripts/setup.sh [extras]   e.g. scripts/setup.sh test,cluster
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  for cand in python3.11 python3.12 python3.13 python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      py="$cand"; break
    fi
  done
fi
[ -n "$py" ] || { echo "setup: Python >= 3.11 is required" >&2; exit 1; }
[ -x .venv/bin/python ] || "$py" -m venv .venv
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-${extras//,/_}"
if [ ! -f "$stamp" ]; then
  echo "setup: installing ifworld${extras:+[$extras]} into .venv" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}"
  rm -f .venv/.installed-*; touch "$stamp"
fi
