"""Belief-exchange benchmarks: runs/s (vectorised vs per-agent reference) and one large run.

Prints measured figures; targets: >= 20,000 runs/s and >= 50x the reference at paper defaults;
N=100,000, K=100, 20 rounds in seconds with peak memory ~2x the belief array. The machine is
shared, so the engine and the reference are timed side by side in each of REPEATS repeats and the
best of each is kept (ratio = best / best; the per-repeat ratios are printed too).
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_per_agent import simulate_reference  # noqa: E402

from ifworld.beliefs.config import BeliefConfig  # noqa: E402
from ifworld.beliefs.engine import simulate  # noqa: E402
from ifworld.beliefs.rules import SCRATCH_ROWS, get_rule  # noqa: E402

VECTOR_RUNS = 10_000
REFERENCE_RUNS = 300
REPEATS = 3
SCALE = BeliefConfig(agents=100_000, facts=100, rounds=20, domain="abstract")
MB = 1e6


def _rate(fn, runs: int) -> float:
    start = time.perf_counter()
    fn()
    return runs / (time.perf_counter() - start)


def runs_per_second() -> None:
    """Paper defaults: vectorised and reference runs/s side by side, best of REPEATS."""
    cfg = BeliefConfig()
    simulate(cfg, seed=0, runs=200)  # warm-up
    vec, ref = [], []
    for rep in range(REPEATS):
        vec.append(_rate(lambda rep=rep: simulate(cfg, seed=1 + rep, runs=VECTOR_RUNS), VECTOR_RUNS))
        ref.append(_rate(lambda rep=rep: simulate_reference(cfg, seed=1 + rep, runs=REFERENCE_RUNS), REFERENCE_RUNS))
        print(f"  repeat {rep + 1}: vectorised {vec[-1]:,.0f} runs/s | reference {ref[-1]:,.0f} runs/s"
              f" | ratio {vec[-1] / ref[-1]:,.0f}x")
    print(f"paper defaults (best of {REPEATS}): vectorised {max(vec):,.0f} runs/s | reference {max(ref):,.0f} runs/s"
          f" | ratio {max(vec) / max(ref):,.0f}x")
    print("SUMMARY " + json.dumps({"belief engine runs/s (paper defaults)": round(max(vec)),
                                   "per-agent reference runs/s": round(max(ref)),
                                   "engine / reference": round(max(vec) / max(ref), 1)}))


def scale_run() -> None:
    """N=100,000, K=100, 20 rounds: best time of REPEATS, then peak traced memory of one run."""
    cells = SCALE.agents * 2 * SCALE.facts
    int16_mb = cells * 2 / MB  # a (runs, agents, 2K) int16 belief array
    dtype = np.dtype(get_rule(SCALE.rule).dtype(SCALE.rounds, SCALE.bandwidth))
    working_mb = SCALE.agents * (2 * SCALE.facts + SCRATCH_ROWS) * dtype.itemsize / MB
    best = min(_rate(lambda: simulate(SCALE, seed=0, runs=1), 1) ** -1 for _ in range(REPEATS))
    tracemalloc.start()
    res = simulate(SCALE, seed=0, runs=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"scale N={SCALE.agents:,} K={SCALE.facts} rounds={int(res.rounds[0])}: {best:.2f} s (best of {REPEATS}), "
          f"peak {peak / MB:,.0f} MB = {peak / MB / working_mb:.1f}x the {dtype.name} working belief array "
          f"({working_mb:,.0f} MB), {peak / MB / int16_mb:.1f}x an int16 belief array ({int16_mb:,.0f} MB); "
          f"F1 {res.f1[0]:.3f}")
    print("SUMMARY " + json.dumps({"N=100,000 K=100 20-round run (s)": round(best, 2),
                                   "its peak memory / belief array": round(peak / MB / working_mb, 2)}))


if __name__ == "__main__":
    runs_per_second()
    scale_run()
