#!/usr/bin/env bash
# Set up (first time) and run the whole test suite, browser tests included. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,cluster,fast
bash scripts/browser.sh
.venv/bin/python -m ruff check ifworld ui app_pages tests benchmarks app.py
exec .venv/bin/python -m pytest "$@"
