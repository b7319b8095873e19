"""Memory and time of a simulation, estimated from its parameters before anything is allocated.

Why: sizes inside the documented bounds still exploded (issue #22 item 6) — ``--agents 100000 --topology ring
--degree 1000`` reached 7.8 GB building a 50 M-edge graph that was refused only once built; ``--agents 100000
--facts 500 --rounds 1000`` ran for minutes without a word. A command or page asks for this estimate first, refuses
a graph over :data:`~ifworld.beliefs.topology.MAX_EDGES` at once (its edge count is exact:
:func:`~ifworld.beliefs.topology.edge_count`), and asks for confirmation
(CLI ``--yes``, a page checkbox) above :data:`CONFIRM_SECONDS` or :data:`CONFIRM_BYTES`.

The model is linear in what the engine allocates and loops over, with coefficients measured on this project's
2-core machine by ``benchmarks/bench_beliefs_cost.py`` (which prints estimate against measurement):

* memory = interpreter and imports + bytes per belief cell (runs × N × 2K) + per graph edge while networkx
  builds it + per (run, edge) for a round's random matching order;
* time = per round: belief cells (each dearer as K grows) + edges (one vectorised step per edge) + (run, edge)
  pairs; plus building the graph. ``rounds`` is the cap; runs that stop earlier take less, so the time is an
  upper bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.topology import edge_count

__all__ = ["CONFIRM_BYTES", "CONFIRM_SECONDS", "CostEstimate", "estimate_cost", "sweep_cost"]

CONFIRM_SECONDS = 10.0
"""Simulations estimated to run longer than this need confirmation (CLI ``--yes``, a page checkbox)."""
CONFIRM_BYTES = 2_000_000_000
"""Simulations estimated to need more memory than this need confirmation."""
PROGRESS_SECONDS = 3.0
"""Simulations estimated longer than this show a progress bar."""

# Coefficients read off benchmarks/bench_beliefs_cost.py (2026-11-25, 2-core shared machine, numba kernel), in CPU
# seconds (wall time there measured the machine's load: load average 20 on 2 cores); rounded up.
BASE_BYTES = 250e6  # python, numpy, numba (its compiler loaded), networkx, pydantic imported
BYTES_PER_CELL = 3.0  # int8 beliefs + facts-major copies + scratch at the peak of a round (measured 2.2)
BYTES_PER_EDGE = 600.0  # networkx adjacency dicts while the graph is built (freed afterwards)
BYTES_PER_RUN_EDGE = 24.0  # float32 keys + int64 argsort + its transposed copy, per round
SECONDS_PER_CELL_ROUND = 1e-9  # measured 0.8-1.5e-9 at K = 100 ...
SECONDS_PER_CELL_ROUND_PER_PAIR = 7e-11  # ... and 1.7e-8 at K = 250: a column's 2K cells leave the cache
SECONDS_PER_EDGE_ROUND = 8e-6  # one Python-level vectorised step per edge (measured 6.4e-6 with its build)
SECONDS_PER_RUN_EDGE_ROUND = 3e-8
SECONDS_PER_EDGE_BUILT = 4e-6


@dataclass(frozen=True)
class CostEstimate:
    """Estimated peak memory (bytes), an upper bound on time (seconds) and the graph's edge count."""

    memory_bytes: float
    seconds: float
    edges: int

    @property
    def needs_confirmation(self) -> bool:
        """Above :data:`CONFIRM_SECONDS` or :data:`CONFIRM_BYTES`: ask before starting."""
        return self.seconds > CONFIRM_SECONDS or self.memory_bytes > CONFIRM_BYTES

    @property
    def shows_progress(self) -> bool:
        return self.seconds > PROGRESS_SECONDS

    def text(self) -> str:
        """``about 2.3 GB of memory and up to 1 min 40 s`` — for messages and pages."""
        time = "under 1 s" if self.seconds < 1 else f"up to {_duration(self.seconds)}"
        return f"about {_size(self.memory_bytes)} of memory and {time}"

    def confirmation_message(self) -> str:
        return (f"this simulation is estimated at {self.text()}, more than {_duration(CONFIRM_SECONDS)} or "
                f"{_size(CONFIRM_BYTES)}; confirm to start it (CLI: --yes), or use fewer runs, agents, facts, "
                "rounds or a smaller degree")


def _size(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n / 1e3:,.0f} kB"


def _duration(s: float) -> str:
    if s < 60:
        return f"{s:.0f} s"
    minutes, seconds = divmod(round(s), 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours:,} h {minutes} min"


def estimate_cost(config: BeliefConfig, runs: int = 1) -> CostEstimate:
    """Peak memory and time of ``simulate(config, runs=runs)``, from the parameters alone (see the module)."""
    cells = runs * config.agents * 2 * config.facts
    edges = edge_count(config.topology, config.agents, config.degree)
    memory = BASE_BYTES + cells * BYTES_PER_CELL + edges * BYTES_PER_EDGE + runs * edges * BYTES_PER_RUN_EDGE
    per_cell = SECONDS_PER_CELL_ROUND + config.facts * SECONDS_PER_CELL_ROUND_PER_PAIR
    per_round = cells * per_cell + edges * SECONDS_PER_EDGE_ROUND + runs * edges * SECONDS_PER_RUN_EDGE_ROUND
    seconds = config.rounds * per_round + edges * SECONDS_PER_EDGE_BUILT
    return CostEstimate(memory_bytes=memory, seconds=seconds, edges=edges)


def sweep_cost(configs: Iterable[BeliefConfig], seeds: int, runs: int, workers: int = 1) -> CostEstimate:
    """A sweep's estimate: its tasks' time summed and shared by ``workers``; memory of the largest task per
    worker (each worker holds one task at a time). Raises like :func:`check_size` for a task out of bounds."""
    from ifworld.beliefs.engine import check_size

    costs = []
    for config in configs:
        check_size(config, runs)
        costs.append(estimate_cost(config, runs))
    if not costs:
        return CostEstimate(memory_bytes=BASE_BYTES, seconds=0.0, edges=0)
    workers = max(1, workers)
    largest = max(c.memory_bytes for c in costs) - BASE_BYTES
    return CostEstimate(memory_bytes=BASE_BYTES + workers * largest,
                        seconds=seeds * sum(c.seconds for c in costs) / workers,
                        edges=max(c.edges for c in costs))
