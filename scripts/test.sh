#!/usr/bin/env bash
# Set up (first time) and run every test tier, printing each tier's time; exits non-zero if any check fails.
#   checks   ruff, mypy on ifworld/, mkdocs build --strict
#   fast     plain `pytest`: unit and page (AppTest) tests            (what to run while working)
#   slow     tests/reliability and other `slow` tests (processes, kills, fault injection, statistics)
#   postgres the store contract, resume across processes and a Postgres restart on a throwaway cluster
#   browser  Chromium + Playwright against `ifworld app` (the app as users start it)   (tests/browser)
#   realserver  llama-cpp-python + a 270M GGUF model                  (tests/realserver)
# Extra arguments go to every pytest call (e.g. -x, -k name).
# Two cores: the realserver tier (one llama.cpp thread) runs beside the checks and the fast tier, its output
# printed when it ends. The fast tier runs on two pytest-xdist workers beside it all the same: its 2,500 tests
# took 1,466 s in one process beside realserver's 982 s (CI, 2026-11-29), leaving a core idle once realserver
# ended; two workers share both cores to the end (872 s alone here). They run at `nice 10`: realserver is the
# critical path (one what-if run took 1,217 s of its 1,650 s on CI while three processes shared two cores), and
# llama.cpp's one thread at full priority keeps its pace while the fast tier takes what is left. Slow and browser then use both cores
# (-n 2, a file per worker: module fixtures such as the browser are set up once). Each tier prints its 15
# slowest tests, to see where CI's time goes.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,cluster,fast,docs,postgres || exit 1
bash scripts/browser.sh
bash scripts/postgres.sh
results=$(mktemp -d)
failed=0
summary=()

record() {  # record NAME SECONDS RC
  local rc=$3
  [ "$rc" -eq 5 ] && rc=0  # pytest: no test selected in this tier (e.g. -k narrowed it away)
  [ "$rc" -ne 0 ] && failed=1
  summary+=("$(printf '%-11s %5d s  %s' "$1" "$2" "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")")")
}

step() {  # step NAME COMMAND…: run, time and record one tier
  local name=$1; shift
  local start=$SECONDS
  echo "== $name"
  "$@"
  record "$name" $((SECONDS - start)) $?
}

beside() {  # beside NAME COMMAND…: start one tier in the background, its output kept for `joined`
  local name=$1; shift
  echo "== $name (started; runs beside the next tiers)"
  ( start=$SECONDS; "$@" >"$results/$name.out" 2>&1; echo "$? $((SECONDS - start))" >"$results/$name.rc" ) &
  beside_pid=$!
}

joined() {  # joined NAME: wait for the background tier, print its output, record it
  wait "$beside_pid"
  echo "== $1 (output)"
  cat "$results/$1.out"
  local rc secs
  read -r rc secs <"$results/$1.rc"
  record "$1" "$secs" "$rc"
}

py=.venv/bin/python
beside realserver $py -m pytest -m realserver --durations=15 --junitxml="$results/realserver.xml" "$@"
step ruff $py -m ruff check ifworld ui app_pages tests benchmarks app.py
step mypy $py -m mypy ifworld
step docs $py -m mkdocs build --strict --quiet --site-dir "$results/site"
step fast nice -n 10 $py -m pytest -n 2 --durations=15 --junitxml="$results/fast.xml" "$@"
joined realserver
step slow $py -m pytest -n 2 --dist loadfile --durations=15 -m "slow and not browser and not realserver and not postgres" \
  --junitxml="$results/slow.xml" "$@"
step postgres $py -m pytest --durations=15 -m "postgres and not browser and not realserver" --junitxml="$results/postgres.xml" "$@"
step browser $py -m pytest -n 2 --dist loadfile --durations=15 -m browser --junitxml="$results/browser.xml" "$@"

echo
echo "== tiers"
printf '%s\n' "${summary[@]}"
$py scripts/junit_total.py "$results"/*.xml
rm -rf "$results"
exit $failed
