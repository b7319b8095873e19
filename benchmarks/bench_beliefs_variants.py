"""Throughput of every topology and rule against the paper default, side by side.

Each repeat times the default (complete graph, additive rule) and every variant one after another
with the same seed, so all of them see the same machine load; the best of REPEATS is kept per
variant and the ratio variant / default is printed (target: >= 0.75, "within 25 % of today's").
Without ``--kernel`` the engine runs as configured (the numba kernel when installed: set
IFWORLD_BELIEFS_KERNEL=numpy to time the numpy path); with ``--kernel`` every variant is timed under
both, alternating, and the kernel / numpy ratios are printed.

    python benchmarks/bench_beliefs_variants.py [--runs 5000] [--repeats 5] [--kernel]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate

VARIANTS = {
    "default (complete, additive)": {},
    "ring": {"topology": "ring"},
    "small_world": {"topology": "small_world"},
    "scale_free": {"topology": "scale_free"},
    "bayes": {"rule": "bayes"},
    "discounted": {"rule": "discounted"},
    "bounded": {"rule": "bounded"},
}
DEFAULT = "default (complete, additive)"
KERNEL_ENV = "IFWORLD_BELIEFS_KERNEL"


def _rate(cfg: BeliefConfig, seed: int, runs: int) -> float:
    start = time.perf_counter()
    simulate(cfg, seed=seed, runs=runs)
    return runs / (time.perf_counter() - start)


def variants(runs: int, repeats: int, kernels: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Best runs/s per kernel and variant; each repeat times every variant under every kernel in turn."""
    configs = {name: BeliefConfig(**kw) for name, kw in VARIANTS.items()}
    for kernel in kernels:  # warm-up (graph cache, numba compilation or its disk cache)
        os.environ[KERNEL_ENV] = kernel
        for cfg in configs.values():
            simulate(cfg, seed=0, runs=100)
    best = {kernel: dict.fromkeys(configs, 0.0) for kernel in kernels}
    for rep in range(repeats):
        for name, cfg in configs.items():
            for kernel in kernels:
                os.environ[KERNEL_ENV] = kernel
                best[kernel][name] = max(best[kernel][name], _rate(cfg, 1 + rep, runs))
    return best


def report(best: dict[str, float], label: str) -> None:
    base = best[DEFAULT]
    print(f"{label}: best of repeats, {DEFAULT} = {base:,.0f} runs/s")
    for name, rate in best.items():
        print(f"  {name:<30} {rate:>9,.0f} runs/s  {rate / base:5.2f}x default")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--kernel", action="store_true", help="also time IFWORLD_BELIEFS_KERNEL=numpy vs numba")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    summary = {}
    if args.kernel:
        best = variants(args.runs, args.repeats, ("numpy", "numba"))
        report(best["numpy"], "numpy path")
        report(best["numba"], "numba kernel")
        for name in VARIANTS:
            ratio = best["numba"][name] / best["numpy"][name]
            print(f"  kernel / numpy, {name}: {ratio:.2f}x")
            summary[f"kernel/numpy {name}"] = round(ratio, 2)
    else:
        kernel = os.environ.get(KERNEL_ENV, "auto")
        best = variants(args.runs, args.repeats, (kernel,))[kernel]
        report(best, f"engine ({KERNEL_ENV}={kernel})")
        summary = {name: round(rate / best[DEFAULT], 2) for name, rate in best.items()}
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("SUMMARY " + json.dumps(summary))


if __name__ == "__main__":
    main()
