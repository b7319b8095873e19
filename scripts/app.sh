#!/usr/bin/env bash
# Set up (first time) and launch IF-World Studio on http://127.0.0.1:8501 (arguments go to `ifworld app`, e.g.
# --address 0.0.0.0 for a class on one network; it prints the facilitator's sign-in link).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh fast,postgres  # postgres: IFWORLD_DB=postgresql://… (docs/deploy.md)
exec .venv/bin/ifworld app "$@"  # ui/asgi.py: app.py with the CSP header, the sign-in route and device cookies
