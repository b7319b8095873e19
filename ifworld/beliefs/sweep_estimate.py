"""How long a sweep will take, from measured speed on this machine.

The old estimate timed one small batch of the heaviest configuration, cold, and charged every task at that
price: the first call paid the kernel's warm-up (imports, compilation, caches), and light configurations were
billed as heavy ones — 305 s estimated for a sweep that took 8.6 s. Here a task's cost is modelled as
``fixed + per_unit × work`` with ``work = agents × 2K facts × round cap × runs``; ``fixed`` and ``per_unit`` are
fitted from two timed tasks (the lightest and the heaviest configuration, each timed after a warm-up call),
the total is spread over the workers that can actually run at once, and starting the worker pool — timed by
starting one, a second or more on a small machine — is added when the sweep uses one.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.sweep import SweepSpec, run_chunk, run_local, run_sweep

CALIBRATION_WORK = 4_000_000
"""A timed calibration task does at most this much work (agents × facts × rounds × runs); larger tasks are
timed on fewer runs and scaled, so the estimate itself stays well under a second or two."""

Timer = Callable[[BeliefConfig, int], float]


class SweepEstimate(BaseModel):
    """Seconds a sweep should take here, and what the figure rests on."""

    model_config = ConfigDict(frozen=True)

    seconds: float
    tasks: int
    workers: int
    """Workers that can run at once: the requested number, capped by cores and by chunks."""
    fixed_s: float
    """Measured cost of a task apart from its size (process and Python overhead)."""
    per_unit_s: float
    """Measured seconds per agent × fact × round × run."""
    pool_s: float
    """Measured cost of starting the worker pool (0 when the sweep runs in this process)."""
    overhead_s: float
    """Measured cost of a sweep apart from its tasks: resume parts, the output table."""


def work(config: BeliefConfig, runs: int) -> int:
    """A task's size in the units the simulation's cost grows with (an upper bound: runs may stop early)."""
    return config.agents * 2 * config.facts * config.rounds * runs


def time_task(config: BeliefConfig, runs: int) -> float:
    """Seconds for one sweep task of ``runs`` runs (simulation and its rows), after an untimed warm-up task."""
    task = (tuple(sorted(config.to_dict().items())), 0)
    run_chunk([task], 1)
    start = time.perf_counter()
    run_chunk([task], runs)
    return time.perf_counter() - start


@functools.lru_cache(maxsize=8)
def pool_start_seconds(workers: int) -> float:
    """Seconds to start ``workers`` pool workers and get an (empty) chunk back from each, the sweep's own way."""
    start = time.perf_counter()
    run_local([(str(i), []) for i in range(workers)], 1, workers, None, lambda key, rows: None)
    return time.perf_counter() - start


@functools.lru_cache(maxsize=1)
def sweep_overhead_seconds() -> float:
    """Seconds of a one-task, one-run sweep written to a table, less its task: what every sweep pays once."""
    tiny = {"agents": 2, "facts": 1, "true_facts": 1, "false_facts": 0, "rounds": 1}
    spec = SweepSpec.from_dict({"base": tiny, "seeds": [0], "runs": 1})
    task = time_task(BeliefConfig(**tiny), 1)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_sweep(spec, out=os.path.join(tmp, "rows.csv"), workers=1)
        return max(0.0, time.perf_counter() - start - task)


def estimate_sweep(spec: SweepSpec, workers: int, timer: Timer = time_task,
                   pool_timer: Callable[[int], float] = pool_start_seconds,
                   overhead: Callable[[], float] = sweep_overhead_seconds) -> SweepEstimate:
    """Fit ``fixed + per_unit × work`` on the lightest and heaviest configuration and sum over every task."""
    configs = [BeliefConfig.from_dict(c) for c in spec.configs()]
    sizes = [work(c, spec.runs) for c in configs]
    light, heavy = configs[sizes.index(min(sizes))], configs[sizes.index(max(sizes))]
    points = []
    for config in {id(light): light, id(heavy): heavy}.values():
        runs = max(1, min(spec.runs, CALIBRATION_WORK // work(config, 1)))
        points.append((work(config, runs), timer(config, runs)))
    if len(points) == 2 and points[1][0] > points[0][0]:
        (w0, t0), (w1, t1) = points
        per_unit = max(0.0, (t1 - t0) / (w1 - w0))
        fixed = max(0.0, t0 - per_unit * w0)
    else:  # one configuration (or all the same size): no fixed cost can be told apart
        (w0, t0), per_unit, fixed = points[0], points[0][1] / points[0][0], 0.0
    n_tasks = len(configs) * len(spec.seeds)
    chunks = len(spec.chunks())
    usable = max(1, min(workers, os.cpu_count() or 1, chunks))
    pool = pool_timer(min(workers, chunks)) if workers > 1 and chunks > 1 else 0.0  # as run_local decides
    total = sum(fixed + per_unit * size for size in sizes) * len(spec.seeds)
    fixed_sweep = overhead()
    return SweepEstimate(seconds=fixed_sweep + pool + total / usable, tasks=n_tasks, workers=usable, fixed_s=fixed,
                         per_unit_s=per_unit, pool_s=pool, overhead_s=fixed_sweep)
