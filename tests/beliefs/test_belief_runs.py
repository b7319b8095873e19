"""Heuristic simulations and sweeps as runs in the store: save, list, partial progress, resume."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ifworld import runs
from ifworld.beliefs import workflows
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.sweep import parts_dir, read_table
from ifworld.cli import app
from ifworld.runs.store import get_store

GRID = {"base": {"facts": 6, "rounds": 4, "agents": 6}, "grid": {"bandwidth": [1, 2], "rule": ["additive", "bounded"]},
        "seeds": [0, 1], "runs": 2, "chunk_size": 2}


def test_simulation_saved_as_completed_beliefs_run():
    result = simulate(BeliefConfig(agents=6, facts=5, rounds=5), seed=2, runs=3)
    run_id = workflows.save_simulation(result)
    info = get_store().get_run(run_id)
    assert info.kind == "beliefs" and info.status == "completed" and info.workflow == "beliefs.simulate"
    assert info.record["summary"]["runs"] == 3 and len(info.record["rows"]) == 3
    assert run_id in [r.id for r in get_store().list_runs(kind="beliefs")]
    assert "Belief simulation" in runs.export_run(run_id, "md")


def test_sweep_progress_saved_and_resumed(tmp_path: Path):
    run_id = workflows.start_sweep(GRID, out=tmp_path / "sweep.csv", workers=1)
    assert workflows.run_sweep_run(run_id, max_chunks=1) is None
    info = get_store().get_run(run_id)
    assert info.status == "interrupted" and info.record["chunks_done"] == 1 and info.record["chunks_total"] == 4
    assert len(list(parts_dir(tmp_path / "sweep.csv").glob("*.jsonl"))) == 1
    result = CliRunner().invoke(app, ["runs", "resume", run_id])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["rows"] == 4 * 2 * 2 and record["chunks_done"] == 4
    assert len(read_table(tmp_path / "sweep.csv")) == 16
    assert get_store().get_run(run_id).status == "completed"
    assert workflows.resume_run(run_id) is not None  # idempotent: all parts are reused


def test_sweep_default_out_beside_store_and_bad_grid():
    run_id = workflows.start_sweep(GRID)
    assert Path(workflows.sweep_out(run_id)).parent.name == "sweeps"
    try:
        workflows.start_sweep({"grid": {"agentz": [1]}})
    except ValueError as exc:
        assert "agentz" in str(exc)
    else:
        raise AssertionError("bad grid accepted")
