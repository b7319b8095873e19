"""Run every benchmark and print one summary table of the headline figures.

Each benchmark script prints its own detailed figures and ends with a line ``SUMMARY {json}`` holding its
headline numbers; this runner collects those lines. Usage:

    .venv/bin/python benchmarks/run_all.py            # all
    .venv/bin/python benchmarks/run_all.py grader     # those whose name contains "grader"
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["bench_beliefs.py", "bench_beliefs_variants.py", "bench_whatif.py", "bench_grader.py",
              "bench_patterns.py", "bench_app_start.py", "bench_typed_records.py", "bench_cli_start.py"]
TIMEOUT_S = 1800


def run(script: str) -> tuple[dict, float, int]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / script)], cwd=HERE.parent, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    wall = time.perf_counter() - start
    sys.stdout.write(proc.stdout)
    if proc.returncode:
        sys.stdout.write(proc.stderr[-3000:])
    summary: dict = {}
    for line in proc.stdout.splitlines():
        if line.startswith("SUMMARY "):
            summary.update(json.loads(line[len("SUMMARY "):]))
    return summary, wall, proc.returncode


def main() -> int:
    wanted = [b for b in BENCHMARKS if not sys.argv[1:] or any(a in b for a in sys.argv[1:])]
    rows, failed = [], 0
    for script in wanted:
        print(f"\n===== {script} =====", flush=True)
        summary, wall, code = run(script)
        failed += code != 0
        rows += [(script, k, v) for k, v in summary.items()] or [(script, "(no summary)", f"exit {code}")]
        rows.append((script, "script wall time (s)", round(wall, 1)))
    print("\n===== summary =====")
    width = max(len(k) for _, k, _ in rows)
    for script, key, value in rows:
        print(f"{script:<22} {key:<{width}}  {value}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
