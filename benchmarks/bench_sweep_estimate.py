"""The Belief sweep page's time estimate against the sweep's measured time, side by side in one run.

Each grid is estimated (``beliefs.estimate_sweep``, what the page shows) and then run the way the page runs it
(a stored ``beliefs.sweep`` run on a local process pool, the page's default of min(4, cores) workers, without the
page's live table); the last column is measured ÷ estimated. The first sweep also pays the imports a page has
already paid, so a warm-up sweep runs first.

    python benchmarks/bench_sweep_estimate.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from ifworld.beliefs import SweepSpec, estimate_sweep, run_sweep_run, start_sweep
from ifworld.runs import RunStore

GRIDS = {
    "page form (default)": {"grid": {"agents": [10, 20], "false_facts": [1, 3], "bandwidth": [1, 3],
                                     "strategy": ["highest_confidence", "strategic"]}, "seeds": [0], "runs": 10},
    "page YAML example": {"base": {"facts": 20, "rounds": 20},
                          "grid": {"agents": [10, 20], "bandwidth": [1, 3],
                                   "strategy": ["highest_confidence", "strategic"]}, "seeds": [0, 1], "runs": 20},
    "mixed sizes": {"grid": {"agents": [10, 200], "facts": [20, 80]}, "seeds": [0, 1, 2], "runs": 50},
    "large": {"grid": {"agents": [50, 500], "facts": [20, 100], "bandwidth": [1, 3]}, "seeds": [0, 1], "runs": 100},
}


def main() -> None:
    workers = int(os.environ.get("WORKERS", min(4, os.cpu_count() or 1)))
    store = RunStore(Path(tempfile.mkdtemp()) / "runs.sqlite")
    run_sweep_run(start_sweep({"grid": {"agents": [10, 20]}, "seeds": [0], "runs": 1}, store=store), store=store)
    print(f"{'grid':<22} {'tasks':>5} {'estimated s':>12} {'measured s':>11} {'ratio':>6}")
    for name, grid in GRIDS.items():
        spec = SweepSpec.from_dict(grid)
        est = estimate_sweep(spec, workers)
        start = time.perf_counter()
        run_sweep_run(start_sweep(grid, workers=workers, store=store), store=store)
        took = time.perf_counter() - start
        print(f"{name:<22} {est.tasks:>5} {est.seconds:>12.2f} {took:>11.2f} {took / est.seconds:>6.2f}")


if __name__ == "__main__":
    main()
