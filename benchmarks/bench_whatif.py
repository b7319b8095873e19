"""IF-World performance figures against the fake OpenAI server (a script, not a timed test).

Human pauses (review, between rounds) are off here, so the figures exclude them. Streamed and non-streamed
replies are timed side by side in one run: streaming parses every SSE chunk in the client (≈170 chunks per
expert reply), which costs CPU that parallel experts share under the GIL.

Prints, for 9 experts × 2 rounds at 0.3 s latency per call and max_concurrency 9:
  - wall time vs the critical path of the call graph (target ≤ 1.15×), and vs the same calls run one after
    another (target ≥ 4× faster);
and, for 3 / 6 / 9 experts, mean prompt tokens of expert calls per round (round-2 prompts must not grow with
the number of experts beyond the bounded shared frame).

    .venv/bin/python -m benchmarks.bench_whatif [--latency 0.3] [--experts 9] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import default_params, estimate_calls, service  # noqa: E402
from ifworld.whatif.propositions import DEFAULT_EXPERTS  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402

LEVELS_PER_BOUNDARY = 2  # (resolver ∥ debate pro ∥ con) → debate judge


def call_level(call: dict, rounds: int, final_resolver_end: float) -> int:
    """Dependency level of a call in the default IF-World graph (refine=0, experts of round r, …). In the
    last round the scenarios part of the report waits for the final resolver (it is written from the
    adjudicated branches), and a consistency repair turn comes after every report part."""
    role, r = call["role"], call["round"] or 0
    expert_level = 1 + (r - 1) * (1 + LEVELS_PER_BOUNDARY)
    if role == "whatif.refiner":
        return 0
    if role == "whatif.expert":
        return expert_level
    if role == "whatif.debate.judge":
        return expert_level + 2
    if role == "whatif.report" and r == rounds and call["start"] >= final_resolver_end - 1e-3:
        return expert_level + 2  # the scenarios part
    if role == "whatif.repair":
        return expert_level + 3
    return expert_level + 1  # resolver, debate pro/con, report core / analysis


def critical_path(calls: list[dict], rounds: int) -> tuple[float, int]:
    """(Σ over dependency levels of the slowest call's latency, number of levels)."""
    levels: dict[int, float] = defaultdict(float)
    final_end = max((c["end"] for c in calls if c["role"] == "whatif.resolver" and c["round"] == rounds),
                    default=float("inf"))
    for c in calls:
        lvl = call_level(c, rounds, final_end)
        levels[lvl] = max(levels[lvl], c["end"] - c["start"])
    return sum(levels.values()), len(levels)


def timing(latency: float, n_experts: int, rounds: int, store: RunStore, stream: bool = True) -> dict[str, float]:
    with FakeOpenAI(latency=latency) as fake:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "timeout_s": 30,
                                  "max_concurrency": n_experts, "stream": stream})
        params = default_params("What if the Moon disappeared overnight?", experts=DEFAULT_EXPERTS[:n_experts],
                                rounds=rounds)
        service.run({**params, "proposition": "warm-up: " + params["proposition"], "experts": ["physics"],
                     "rounds": 1}, settings=settings, store=store)
        start = time.perf_counter()
        record = service.run(params, settings=settings, store=store)
        wall = time.perf_counter() - start
        peak = fake.peak_concurrency
    calls = record["calls"]
    crit, levels = critical_path(calls, rounds)
    sequential = sum(c["end"] - c["start"] for c in calls)
    return {"calls": len(calls), "expected_calls": estimate_calls(params), "wall_s": wall, "critical_s": crit,
            "levels": levels, "levels_x_latency_s": levels * latency, "sequential_s": sequential,
            "peak_concurrency": peak}


def prompt_sizes(store: RunStore, rounds: int) -> dict[int, dict[int, float]]:
    out: dict[int, dict[int, float]] = {}
    with FakeOpenAI() as fake:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "timeout_s": 30,
                                  "max_concurrency": 9})
        for n in (3, 6, 9):
            params = default_params("What if the Moon disappeared overnight?", experts=DEFAULT_EXPERTS[:n],
                                    rounds=rounds)
            calls = service.run(params, settings=settings, store=store)["calls"]
            out[n] = {r: statistics.mean(c["prompt_tokens"] for c in calls
                                         if c["role"] == "whatif.expert" and c["round"] == r)
                      for r in range(1, rounds + 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--experts", type=int, default=9)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "bench.sqlite")
        t = timing(args.latency, args.experts, args.rounds, store)
        plain = timing(args.latency, args.experts, args.rounds, store, stream=False)
        sizes = prompt_sizes(store, args.rounds)
        store.close()
    print(f"IF-World {args.experts} experts × {args.rounds} rounds, latency {args.latency} s/call, "
          f"max_concurrency {args.experts}")
    print(f"  calls                     {t['calls']} (estimate_calls: {t['expected_calls']}), "
          f"peak concurrency at server {t['peak_concurrency']}")
    print(f"  wall time                 {t['wall_s']:.2f} s")
    print(f"  critical path (recorded)  {t['critical_s']:.2f} s over {t['levels']} dependency levels "
          f"(levels × latency = {t['levels_x_latency_s']:.2f} s)")
    print(f"  sequential (Σ latencies)  {t['sequential_s']:.2f} s")
    print(f"  wall / critical path      {t['wall_s'] / t['critical_s']:.2f}×   (target ≤ 1.15×)")
    print(f"  wall / (levels × latency) {t['wall_s'] / t['levels_x_latency_s']:.2f}×")
    print(f"  speed-up vs sequential    {t['sequential_s'] / t['wall_s']:.2f}×   (target ≥ 4×)")
    print(f"  same run, replies not streamed (IFWORLD_STREAM=false): wall {plain['wall_s']:.2f} s, critical path "
          f"{plain['critical_s']:.2f} s, wall / critical path {plain['wall_s'] / plain['critical_s']:.2f}×, "
          f"speed-up vs sequential {plain['sequential_s'] / plain['wall_s']:.2f}×")
    print("SUMMARY " + json.dumps({"IF-World wall / critical path": round(t["wall_s"] / t["critical_s"], 2),
                                   "IF-World speed-up vs sequential": round(t["sequential_s"] / t["wall_s"], 2),
                                   "IF-World wall / critical path (not streamed)":
                                   round(plain["wall_s"] / plain["critical_s"], 2)}))
    print("Mean prompt tokens per expert call (fake-server count ≈ chars/4):")
    print("  experts  " + "  ".join(f"round {r:>2}" for r in range(1, args.rounds + 1)))
    for n, per_round in sizes.items():
        print(f"  {n:>7}  " + "  ".join(f"{per_round[r]:>8.0f}" for r in range(1, args.rounds + 1)))


if __name__ == "__main__":
    main()
