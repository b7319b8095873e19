"""``ifworld runs copy``: every run with its checkpoints, calls, transitions and workshop from a SQLite file to
PostgreSQL and back, verified by counts and a replay; existing ids refused unless ``--overwrite``; and a failed
run copied mid-way resumes on the other store re-sending only the step that had failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ifworld import runs
from ifworld.cli import app
from ifworld.runs.copy import RunsExist, copy_runs, run_counts
from ifworld.runs.store import RunStore
from tests.fixtures.postgres import PASSWORD

pytestmark = pytest.mark.postgres
PARAMS = {"topic": "the Moon", "workers": 3}


def _fill(store: RunStore, settings, fake_server) -> tuple[str, str]:
    """One completed run with a workshop and transitions, one failed run (a sibling's write pending)."""
    runs.execute("demo.fanout", PARAMS, store=store, settings=settings)
    done = store.list_runs()[0].id
    store.add_workshop(done, token="tok-copy", code="COPY1")
    for n in range(5):
        store.add_workshop_event(done, "contribution", {"text": f"idea {n}"}, actor=f"p{n}", ref=f"c{n}")
    store.add_transition(done, from_state="draft", to_state="round", action="start", source="test")
    fake_server.inject("500", times=1, match="demo worker 1")
    with pytest.raises(runs.RunFailed):
        runs.execute("demo.fanout", PARAMS, store=store, settings=settings)
    failed = store.list_runs()[0].id
    return done, failed


def test_copy_to_postgres_and_back(tmp_path: Path, pg_url: str, settings, fake_server) -> None:
    source = RunStore(tmp_path / "laptop.sqlite")
    done, failed = _fill(source, settings, fake_server)
    cli = CliRunner()
    result = cli.invoke(app, ["runs", "copy", "--from", str(source.path), "--to", pg_url])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["runs"] == 2 and summary["ifw_workshop_events"] == 5 and summary["checkpoints"] > 4
    assert summary["replayed_steps"] > 0 and PASSWORD not in result.output and "[redacted]" in summary["to"]
    target = RunStore(pg_url)
    for run_id in (done, failed):
        assert run_counts(target, run_id) == run_counts(source, run_id)
    assert target.get_run(done).record == source.get_run(done).record

    again = cli.invoke(app, ["runs", "copy", "--from", str(source.path), "--to", pg_url])
    assert again.exit_code == 2 and "already holds 2" in again.output and PASSWORD not in again.output
    assert cli.invoke(app, ["runs", "copy", "--from", str(source.path), "--to", pg_url, "--overwrite"]).exit_code == 0

    back = RunStore(tmp_path / "back.sqlite")
    report = copy_runs(target, back)
    assert sorted(report.runs) == sorted([done, failed])
    assert run_counts(back, done) == run_counts(source, done)
    with pytest.raises(RunsExist):
        copy_runs(target, back, [done])

    sent = fake_server.count(status=None)  # the failed run resumes on PostgreSQL: only worker 1 and the summary
    record = runs.drive(failed, store=target, settings=settings)
    new = fake_server.requests[sent:]
    assert sorted(r.system.split(".")[0] for r in new) == ["You are demo worker 1", "You are the demo summariser"]
    assert len(record["answers"]) == 3 and target.get_run(failed).status == "completed"
    target.close()
