"""Sizes inside the documented bounds that exploded (issue #22 item 6) are refused from their parameters alone.

``--agents 100000 --topology ring --degree 1000`` reached 7.8 GB (small-world 7.1 GB, scale-free 8.3 GB) building a
graph refused only once built; a 9.75 M-edge scale-free graph took 38 s and 2.7 GB to refuse; ``--agents 100000
--facts 500 --rounds 1000`` ran for minutes without a word. Each is refused here with the estimate in the message,
allocating next to nothing (tracemalloc follows numpy's and networkx's allocations), and ``--yes`` is what lets a
long simulation start.
"""

from __future__ import annotations

import tracemalloc

import pytest
from typer.testing import CliRunner

from ifworld.beliefs import (
    TOPOLOGIES,
    cost,
    sweep as _sweep,  # noqa: F401 - pandas imported outside the measured allocations
)
from ifworld.beliefs.cli import app
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.topology import MAX_EDGES, edge_count
from ifworld.errors import BeliefConfigError

PEAK_BYTES = 20_000_000
EXPLODED = [
    (["--agents", "100000", "--topology", "ring", "--degree", "1000"], "50,000,000 edges"),
    (["--agents", "100000", "--topology", "small_world", "--degree", "1000"], "50,000,000 edges"),
    (["--agents", "100000", "--topology", "scale_free", "--degree", "1000"], "49,750,000 edges"),
    (["--agents", "100000", "--topology", "scale_free", "--degree", "196"], "9,790,396 edges"),
    (["--agents", "100000", "--facts", "500", "--rounds", "1000", "--runs", "4"], "estimated at"),
    (["--agents", "20000", "--topology", "ring", "--degree", "100", "--rounds", "1000"], "estimated at"),
]


def _invoke(args: list[str]) -> tuple[int, str, int]:
    tracemalloc.start()
    try:
        result = CliRunner().invoke(app, ["run", *args])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result.exit_code, result.output, peak


@pytest.mark.parametrize("args, words", EXPLODED, ids=[" ".join(a) for a, _ in EXPLODED])
def test_exploding_sizes_are_refused_before_allocating(args: list[str], words: str) -> None:
    code, output, peak = _invoke(args)
    assert code == 2 and words in output, output
    assert peak < PEAK_BYTES, f"{peak:,} bytes allocated before refusing"


def test_the_refusal_names_the_estimate_and_yes() -> None:
    code, output, _ = _invoke(["--agents", "100000", "--facts", "500", "--rounds", "1000", "--runs", "4"])
    assert code == 2 and "GB of memory and up to 4 h" in output and "--yes" in output


def test_yes_is_what_starts_a_long_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cost, "CONFIRM_SECONDS", 0.0)  # every simulation now counts as long
    monkeypatch.setattr(cost, "PROGRESS_SECONDS", 0.0)
    args = ["--agents", "20", "--facts", "5", "--rounds", "3", "--runs", "2", "--json"]
    code, output, _ = _invoke(args)
    assert code == 2 and "confirm to start it (CLI: --yes)" in output
    code, output, _ = _invoke([*args, "--yes"])
    assert code == 0 and "estimated about" in output and '"runs": 2' in output


@pytest.mark.parametrize("topology", [s.name for s in TOPOLOGIES if s.graph is not None])
@pytest.mark.parametrize("agents, degree", [(30, 4), (101, 10), (500, 2)])
def test_edge_count_is_exact(topology: str, agents: int, degree: int) -> None:
    """Every registered graph topology's declared edge count is the built graph's, without building it."""
    config = BeliefConfig(agents=agents, degree=degree, topology=topology, rewire=0.5)
    graph = TOPOLOGIES.get(topology).graph
    assert graph is not None
    assert edge_count(config.topology, agents, degree) == graph(agents, degree, 0.5, 3).number_of_edges()


def test_the_engine_refuses_a_large_graph_before_building_it() -> None:
    config = BeliefConfig(agents=100_000, degree=1_000, topology="scale_free")
    tracemalloc.start()
    try:
        with pytest.raises(BeliefConfigError, match="MAX_EDGES"):
            simulate(config)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES
    assert edge_count("ring", 100_000, 20) == 1_000_000 < MAX_EDGES  # the largest ring allowed is still built


def test_progress_is_called_once_per_round() -> None:
    seen: list[tuple[int, int]] = []
    result = simulate(BeliefConfig(agents=10, facts=3, rounds=4, stop_share=1.0), runs=2,
                      progress=lambda done, total: seen.append((done, total)))
    assert seen == [(t, 4) for t in range(1, int(result.rounds.max()) + 1)]


def test_estimate_text_is_human() -> None:
    estimate = cost.estimate_cost(BeliefConfig(agents=100_000, facts=500, rounds=1000), runs=4)
    assert estimate.needs_confirmation and "GB" in estimate.text() and "min" in estimate.text()


def test_sweep_cli_needs_yes_for_a_long_grid(tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    grid = tmp_path / "grid.yaml"
    grid.write_text("base: {agents: 100000, facts: 100, rounds: 1000}\ngrid: {bandwidth: [1, 2]}\nseeds: [0, 1]\n"
                    "runs: 2\n")
    tracemalloc.start()
    try:
        result = CliRunner().invoke(app, ["sweep", "--grid", str(grid), "--out", str(tmp_path / "o.csv")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 2 and "estimated at" in result.output and "--yes" in result.output
    assert peak < PEAK_BYTES and not (tmp_path / "o.csv.parts").exists()


def test_sweep_estimate_sums_tasks_over_workers() -> None:
    small = BeliefConfig(agents=100, facts=10, rounds=10)
    one = cost.estimate_cost(small, 5)
    both = cost.sweep_cost([small, small], seeds=3, runs=5, workers=2)
    assert both.seconds == pytest.approx(3 * one.seconds)
    with pytest.raises(BeliefConfigError, match="MAX_EDGES"):
        cost.sweep_cost([BeliefConfig(agents=100_000, degree=1000, topology="ring")], seeds=1, runs=1)
