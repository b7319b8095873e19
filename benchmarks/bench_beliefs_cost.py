"""Calibrate and check ifworld.beliefs.cost: measured peak RSS and time of small simulations against the estimate.

Each size runs in its own process (peak RSS from ``ru_maxrss``; wall and CPU time of ``simulate`` alone, after a tiny
warm-up call so numba's compilation is not counted; rounds actually played),
then prints estimate and measurement side by side; the per-round time is scaled by rounds played over the cap,
since the estimate is an upper bound for runs that stop early. The coefficients in ``ifworld/beliefs/cost.py`` are
read off these rows (memory: the biggest rows, where the base no longer dominates; time: per cell-round and per
edge-round). Run: ``.venv/bin/python benchmarks/bench_beliefs_cost.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys, time
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
params, runs = json.loads(sys.argv[1]), int(sys.argv[2])
config = BeliefConfig(**params)
simulate(config.replace(agents=min(config.agents, 50), degree=min(config.degree, 4), rounds=2))  # JIT, caches
start, cpu = time.perf_counter(), time.process_time()
result = simulate(config, seed=1, runs=runs)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": elapsed, "cpu": cpu, "rounds": int(result.rounds.max()),
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""
# stop_share 1 and threshold 1: runs seldom stop early, so the round cap is what is measured
SIZES = [
    ({"agents": 1_000, "facts": 100, "rounds": 20, "stop_share": 1.0}, 100),
    ({"agents": 10_000, "facts": 100, "rounds": 10, "stop_share": 1.0}, 50),
    ({"agents": 20_000, "facts": 250, "rounds": 3, "stop_share": 1.0}, 20),
    ({"agents": 20_000, "facts": 10, "rounds": 3, "topology": "ring", "degree": 20, "stop_share": 1.0}, 10),
    ({"agents": 50_000, "facts": 10, "rounds": 2, "topology": "scale_free", "degree": 20, "stop_share": 1.0}, 5),
    ({"agents": 100_000, "facts": 5, "rounds": 2, "topology": "small_world", "degree": 16, "stop_share": 1.0}, 4),
]


def measure(params: dict, runs: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(params), str(runs)], cwd=ROOT,
                         capture_output=True, text=True, check=True, env={"PYTHONPATH": str(ROOT)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from ifworld.beliefs.config import BeliefConfig
    from ifworld.beliefs.cost import estimate_cost

    rows = []
    print(f"{'size':<62} {'est MB':>8} {'RSS MB':>8} {'est s':>8} {'wall s':>8} {'CPU s':>8} {'rounds':>7}")
    for params, runs in SIZES:
        config = BeliefConfig(**params)
        est = estimate_cost(config, runs)
        got = measure(params, runs)
        scaled = est.seconds * got["rounds"] / config.rounds  # rounds played, not the cap
        label = (f"{params.get('topology', 'complete')} N={config.agents:,} K={config.facts} "
                 f"k={config.degree} runs={runs} E={est.edges:,}")
        print(f"{label:<62} {est.memory_bytes / 1e6:>8,.0f} {got['rss'] / 1e6:>8,.0f} {scaled:>8.2f} "
              f"{got['seconds']:>8.2f} {got['cpu']:>8.2f} {got['rounds']:>7}")
        rows.append({"size": label, "est_mb": est.memory_bytes / 1e6, "rss_mb": got["rss"] / 1e6,
                     "est_s": scaled, "s": got["cpu"]})
    # time against CPU seconds: wall time on a shared machine measures its load (load average 20 on 2 cores seen)
    ratios = [r["rss_mb"] / r["est_mb"] for r in rows] + [r["s"] / r["est_s"] for r in rows if r["est_s"] > 0.2]
    print("SUMMARY " + json.dumps({"name": "beliefs_cost", "rows": len(rows),
                                   "worst_measured_over_estimate": round(max(ratios), 2)}))


if __name__ == "__main__":
    main()
