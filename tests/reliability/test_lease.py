"""Run liveness: one driver per run, a stopped driver leaves the run resumable, cancel and delete are clean.

Model calls go to the fake server; "slow" calls wait on a gate the test opens, so every ordering below is
forced by conditions, never by sleeping and hoping.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ifworld import runs
from ifworld.runs import lease as lease_mod
from ifworld.runs.store import RunLive, RunStore

ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"topic": "the Moon", "workers": 3}


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``condition`` until true (fails the test after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def gated(fake, role: str, match: str | None = None) -> threading.Event:  # noqa: ANN001
    """Requests of ``role`` (whose prompt matches ``match``, when given) wait until the returned gate is set."""
    gate = threading.Event()

    def reply(body: dict) -> str:
        gate.wait(60)
        return "a gated answer"

    fake.add_rule(role, reply, match=match)
    return gate


def fingerprints(fake) -> list[str]:  # noqa: ANN001
    return [hashlib.sha1(json.dumps(r.body.get("messages"), sort_keys=True).encode()).hexdigest()
            for r in fake.requests]


def test_second_process_cannot_drive_a_live_run(fake_server, tmp_path: Path) -> None:  # noqa: ANN001
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    run_id = runs.start_run("demo.fanout", PARAMS, store=store)
    gate = gated(fake_server, "demo.worker")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_")}, "IFWORLD_DB": str(db),
           "IFWORLD_BASE_URL": fake_server.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_MAX_RETRIES": "0",
           "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "ifworld.cli", "runs", "resume", run_id]
    first = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: fake_server.count(status=None) >= 3, 60, "the first driver's worker calls")
    assert store.get_run(run_id).status == "running"
    second = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert second.returncode == 1
    assert f"run {run_id} is live in process {first.pid} on host {os.uname().nodename}" in second.stderr
    gate.set()
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err[-2000:]
    assert json.loads(out)["summary"]
    prints = fingerprints(fake_server)
    assert len(prints) == 4 and len(set(prints)) == 4  # 3 workers + summary, nothing sent twice
    assert store.get_run(run_id).status == "completed"


def test_two_threads_one_process_cannot_both_drive(store: RunStore) -> None:
    run_id = store.create_run("whatif", "demo.fanout", PARAMS)
    token = store.acquire_lease(run_id)
    with pytest.raises(RunLive, match=f"run {run_id} is live in process {os.getpid()}"):
        store.acquire_lease(run_id)
    store.release_lease(run_id, token, "interrupted")
    assert store.get_run(run_id).status == "interrupted"
    store.release_lease(run_id, store.acquire_lease(run_id), "cancelled")  # a stopped run can be taken again
    assert store.get_run(run_id).status == "cancelled"


def test_closed_stream_leaves_the_run_interrupted_at_once(store: RunStore, settings, fake_server) -> None:  # noqa: ANN001
    """Leaving the page closes the event stream (GeneratorExit): the run must not stay 'running'."""
    gate = gated(fake_server, "demo.worker")
    run_id = runs.start_run("demo.fanout", PARAMS, store=store)
    stream = runs.stream_run(run_id, store=store, settings=settings)
    assert next(stream).type == "run_started"
    assert store.get_run(run_id).status == "running"
    while next(stream).type != "progress":  # a worker has started (its model call is under way)
        pass
    wait_for(lambda: fake_server.count(status=None) >= 1, what="a worker call")
    closer = threading.Thread(target=stream.close)  # close() waits for in-flight workers; open the gate
    closer.start()
    gate.set()
    closer.join(30)
    assert not closer.is_alive()
    wait_for(lambda: store.get_run(run_id).status == "interrupted", 5, "status interrupted")
    record = runs.drive(run_id, store=store, settings=settings)  # and it resumes from the page / CLI
    assert record["summary"] and store.get_run(run_id).status == "completed"


def test_abandoned_stream_goes_stale(store: RunStore, settings, fake_server,  # noqa: ANN001
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A consumer that stops pulling without closing (a stopped script keeping a reference): after the lease
    TTL the heartbeat stops and the run reads as interrupted, although this process is alive."""
    monkeypatch.setattr(lease_mod, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(lease_mod, "LEASE_TTL_S", 1.0)
    run_id = runs.start_run("demo.fanout", PARAMS, store=store)
    stream = runs.stream_run(run_id, store=store, settings=settings)
    next(stream)
    assert store.get_run(run_id).status == "running"
    started = time.monotonic()
    wait_for(lambda: store.get_run(run_id).status == "interrupted", 10, "a stale lease")
    assert time.monotonic() - started >= 1.0  # not before the TTL
    assert os.getpid() == store._conn.execute("SELECT pid FROM ifw_runs WHERE id=?", (run_id,)).fetchone()[0]
    record = runs.drive(run_id, store=store, settings=settings)
    assert record["summary"]
    stream.close()
    assert store.get_run(run_id).status == "completed"  # the old driver's cleanup does not clobber it


def test_cancel_stops_at_a_step_boundary_and_resumes(store: RunStore, settings, fake_server) -> None:  # noqa: ANN001
    gate = gated(fake_server, "demo.worker", "demo worker 2")
    run_id = runs.start_run("demo.fanout", PARAMS, store=store)
    events: list = []
    result: dict = {}

    def drive() -> None:
        try:
            runs.drive(run_id, store=store, settings=settings, on_event=events.append)
        except runs.RunCancelled as exc:
            result["cancelled"] = str(exc)

    worker = threading.Thread(target=drive)
    worker.start()
    wait_for(lambda: sum(1 for r in fake_server.requests if r.end) >= 2, what="two finished worker calls")
    assert runs.request_cancel(run_id, store=store) is True
    gate.set()
    worker.join(60)
    assert "was cancelled" in result["cancelled"] and events[-1].type == "run_cancelled"
    assert store.get_run(run_id).status == "cancelled"
    assert fake_server.count("demo summar", status=None) == 0  # stopped before the next step
    sent = fingerprints(fake_server)
    record = runs.drive(run_id, store=store, settings=settings)
    assert record["summary"] and len(record["answers"]) == 3
    resent = fingerprints(fake_server)[len(sent):]
    assert not set(resent) & set(sent), "a finished call was sent again after the cancel"
    assert store.get_run(run_id).status == "completed"


def test_deleting_a_live_run_leaves_no_rows(store: RunStore, settings, fake_server) -> None:  # noqa: ANN001
    gate = gated(fake_server, "demo.worker", "demo worker 2")
    run_id = runs.start_run("demo.fanout", PARAMS, store=store)
    worker = threading.Thread(target=lambda: list(runs.stream_run(run_id, store=store, settings=settings)))
    worker.start()
    wait_for(lambda: len(store.calls(run_id)) >= 2, what="two stored calls")
    store.delete_run(run_id)
    gate.set()  # the last worker finishes after the delete and tries to store its call and checkpoint
    worker.join(60)
    assert not worker.is_alive()
    db = sqlite3.connect(store.path)
    leftovers = {table: db.execute(f"SELECT COUNT(*) FROM {table} WHERE {col}=?", (run_id,)).fetchone()[0]
                 for table, col in (("ifw_runs", "id"), ("ifw_calls", "run_id"), ("checkpoints", "thread_id"),
                                    ("writes", "thread_id"))}
    assert leftovers == {"ifw_runs": 0, "ifw_calls": 0, "checkpoints": 0, "writes": 0}
    assert fake_server.count("demo summar", status=None) == 0


def test_runs_page_resume_and_cancel_buttons(store: RunStore, monkeypatch: pytest.MonkeyPatch, llm_env) -> None:  # noqa: ANN001
    from tests.security.helpers import open_page

    monkeypatch.setenv("IFWORLD_DB", str(store.path))
    live = store.create_run("rws", "demo.fanout", PARAMS, "live one")  # what-if runs go to their own page
    token = store.acquire_lease(live)
    stopped = store.create_run("rws", "demo.fanout", PARAMS, "cancelled one")
    store.release_lease(stopped, store.acquire_lease(stopped), "cancelled")
    crashed = store.create_run("rws", "demo.fanout", PARAMS, "crashed one")
    store.acquire_lease(crashed)
    with store._tx() as c:  # its driver process is gone
        c.execute("UPDATE ifw_runs SET pid=? WHERE id=?", (2**22 + 4321, crashed))
    at = open_page("runs")
    for run_id, resumable in ((live, False), (stopped, True), (crashed, True)):
        at.selectbox(key="runs_open").set_value(run_id).run()
        assert not at.exception, at.exception
        assert at.button(key="runs_resume").disabled is (not resumable), run_id
        assert any(b.key == "runs_cancel" for b in at.button) is (not resumable), run_id  # only a live run
    at.selectbox(key="runs_open").set_value(live).run()
    at.button(key="runs_cancel").click().run()
    assert store.cancel_requested(live) is True
    store.release_lease(live, token, "interrupted")


def test_a_live_sweep_cannot_be_driven_twice(store: RunStore, tmp_path: Path) -> None:
    from ifworld.beliefs import workflows

    spec = {"base": {"agents": 4, "facts": 4, "rounds": 2, "true_facts": 1, "false_facts": 1},
            "grid": {"bandwidth": [1]}, "seeds": [0], "runs": 2}
    run_id = workflows.start_sweep(spec, out=tmp_path / "s.csv", workers=1, store=store)
    token = store.acquire_lease(run_id)
    with pytest.raises(RunLive, match=f"run {run_id} is live"):
        workflows.run_sweep_run(run_id, store=store)
    store.release_lease(run_id, token, "interrupted")
    assert workflows.run_sweep_run(run_id, store=store)["rows"] == 2
    assert store.get_run(run_id).status == "completed"
