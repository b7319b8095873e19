#!/usr/bin/env bash
# Set up (first time) and run every test tier, printing each tier's time; exits non-zero if any check fails.
#   checks   ruff, mypy on ifworld/, mkdocs build --strict
#   fast     plain `pytest`: unit and page (AppTest) tests            (what to run while working)
#   slow     tests/reliability and other `slow` tests (processes, kills, fault injection, statistics)
#   postgres the store contract, resume across processes and a Postgres restart on a throwaway cluster
#   browser  Chromium + Playwright against `streamlit run`            (tests/browser)
#   realserver  llama-cpp-python + a 270M GGUF model                  (tests/realserver)
# Extra arguments go to every pytest call (e.g. -x, -k name).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,cluster,fast,docs,postgres || exit 1
bash scripts/browser.sh
bash scripts/postgres.sh
results=$(mktemp -d)
failed=0
summary=()

step() {  # step NAME COMMAND…: run, time and record one tier
  local name=$1; shift
  local start=$SECONDS
  echo "== $name"
  "$@"
  local rc=$?
  [ "$rc" -eq 5 ] && rc=0  # pytest: no test selected in this tier (e.g. -k narrowed it away)
  [ "$rc" -ne 0 ] && failed=1
  summary+=("$(printf '%-11s %5d s  %s' "$name" $((SECONDS - start)) "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")")")
}

py=.venv/bin/python
step ruff $py -m ruff check ifworld ui app_pages tests benchmarks app.py
step mypy $py -m mypy ifworld
step docs $py -m mkdocs build --strict --quiet --site-dir "$results/site"
step fast $py -m pytest --junitxml="$results/fast.xml" "$@"
step slow $py -m pytest -m "slow and not browser and not realserver and not postgres" --junitxml="$results/slow.xml" "$@"
step postgres $py -m pytest -m "postgres and not browser and not realserver" --junitxml="$results/postgres.xml" "$@"
step browser $py -m pytest -m browser --junitxml="$results/browser.xml" "$@"
step realserver $py -m pytest -m realserver --junitxml="$results/realserver.xml" "$@"

echo
echo "== tiers"
printf '%s\n' "${summary[@]}"
$py scripts/junit_total.py "$results"/*.xml
rm -rf "$results"
exit $failed
