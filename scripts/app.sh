#!/usr/bin/env bash
# Set up (first time) and launch IF-World Studio on http://127.0.0.1:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh fast
exec .venv/bin/python -m streamlit run ui/asgi.py "$@"  # app.py, sent with a Content-Security-Policy header
