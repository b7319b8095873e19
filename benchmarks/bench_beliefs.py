"""Belief-exchange benchmarks: runs/s (vectorised vs per-agent reference) and one large run.

Prints measured figures; targets: >= 20,000 runs/s and >= 50x the reference at paper defaults;
N=100,000, K=100, 20 rounds in seconds with peak memory ~2x the belief array.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_per_agent import simulate_reference  # noqa: E402

from ifworld.beliefs.config import BeliefConfig  # noqa: E402
from ifworld.beliefs.engine import simulate  # noqa: E402

VECTOR_RUNS = 10_000
REFERENCE_RUNS = 300
SCALE = BeliefConfig(agents=100_000, facts=100, rounds=20, domain="abstract")


def runs_per_second() -> None:
    cfg = BeliefConfig()
    simulate(cfg, seed=0, runs=200)  # warm-up
    t = time.perf_counter()
    simulate(cfg, seed=1, runs=VECTOR_RUNS)
    vec = VECTOR_RUNS / (time.perf_counter() - t)
    t = time.perf_counter()
    simulate_reference(cfg, seed=1, runs=REFERENCE_RUNS)
    ref = REFERENCE_RUNS / (time.perf_counter() - t)
    print(f"paper defaults: vectorised {vec:,.0f} runs/s | reference {ref:,.0f} runs/s"
          f" | ratio {vec / ref:,.0f}x")


def scale_run() -> None:
    array_mb = SCALE.agents * 2 * SCALE.facts * 2 / 1e6  # int16 beliefs
    tracemalloc.start()
    t = time.perf_counter()
    res = simulate(SCALE, seed=0, runs=1)
    elapsed = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"scale N={SCALE.agents:,} K={SCALE.facts} rounds={int(res.rounds[0])}: {elapsed:.1f} s, "
          f"peak {peak / 1e6:,.0f} MB vs belief array {array_mb:,.0f} MB ({peak / 1e6 / array_mb:.1f}x); "
          f"F1 {res.f1[0]:.3f}")


if __name__ == "__main__":
    runs_per_second()
    scale_run()
