"""Store faults during a run: another process holding the write lock, a store that refuses every call record
(full disk), and one row whose JSON nests 10⁵ deep. No answered call goes missing without the run saying so,
and one bad row never breaks the others."""

from __future__ import annotations

import json
import logging
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
from ifworld.runs import store as store_module
from ifworld.runs.store import RunStore, store_error

ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"topic": "the Moon", "workers": 3}
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
print("released", flush=True)
"""


def _wait(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _callback_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "Error in" in r.getMessage() and "callback" in r.getMessage()]


def test_a_call_finishing_while_another_process_holds_the_lock_is_recorded(
        fake_server, settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 200)  # the lock outlasts the busy timeout
    db = tmp_path / "locked.sqlite"
    store = RunStore(db)
    arrived, go = threading.Event(), threading.Event()

    def summary(body: dict) -> str:
        arrived.set()
        go.wait(60)
        return "One line joining the workers' sentences about the Moon."

    fake_server.add_rule("demo.summary", summary)
    outcome: dict = {}

    def drive() -> None:
        try:
            outcome["record"] = runs.execute("demo.fanout", PARAMS, store=store, settings=settings)
        except Exception as exc:  # noqa: BLE001 — the assertion below reports it
            outcome["error"] = exc

    runner = threading.Thread(target=drive)
    runner.start()
    assert arrived.wait(60), "the summariser's request never reached the server"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        go.set()  # the reply goes out; its call record now meets the lock
        _wait(lambda: getattr(store, "busy_waits", 0) >= 3, 10)  # the write found the lock and is waiting
    finally:
        holder.communicate("release\n", timeout=30)
    runner.join(120)
    assert "error" not in outcome, outcome.get("error")
    answered = fake_server.count()
    calls = store.calls(store.list_runs()[0].id)
    assert len(calls) == answered == 4, f"{answered} answered, {len(calls)} recorded"
    assert outcome["record"]["calls"] == 4 and "warnings" not in outcome["record"]
    assert store.list_runs()[0].usage["calls"] == 4
    assert not _callback_errors(caplog)
    store.close()


def test_a_store_refusing_every_call_record_says_so_once(
        fake_server, settings, store: RunStore, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    def full(run_id: str, call: dict) -> None:
        raise store_error(store.path, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(store, "add_call", full)
    caplog.set_level(logging.WARNING)
    record = runs.execute("demo.fanout", PARAMS, store=store, settings=settings)
    assert not _callback_errors(caplog), "one clear message, not one callback error per call"
    (warning,) = record["warnings"]
    assert "4 answered call(s) could not be written" in warning and "disk is full" in warning
    assert record["calls"] == 4  # taken from memory: usage is not undercounted
    info = store.list_runs()[0]
    assert info.status == "completed" and info.usage["calls"] == 4 and info.record["warnings"] == [warning]
    err = capsys.readouterr().err
    assert err.count("warning: run ") == 1 and "could not be written" in err


def test_one_record_nested_too_deep_breaks_only_itself(tmp_path: Path) -> None:
    db = tmp_path / "nested.sqlite"
    store = RunStore(db)
    good = store.create_run("whatif", "demo.fanout", PARAMS, title="good run")
    store.finish_run(good, {"summary": "fine"})
    bad = store.create_run("whatif", "demo.fanout", PARAMS, title="bad run")
    store.close()
    depth = 100_000
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE ifw_runs SET record=?, status='completed' WHERE id=?", ("[" * depth + "]" * depth, bad))
    store = RunStore(db)
    rows = {r.id: r for r in store.list_runs()}
    assert rows[good].record == {"summary": "fine"} and rows[good].error is None
    assert rows[bad].record is None and "nested too deep" in (rows[bad].error or "")
    store.close()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_")}, "IFWORLD_DB": str(db),
           "PYTHONPATH": str(ROOT)}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ifworld.cli", *args], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=120)

    listed = cli("runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {r["id"] for r in json.loads(listed.stdout)} == {good, bad}
    exported = cli("runs", "export", good, "--format", "json")
    assert exported.returncode == 0 and json.loads(exported.stdout)["record"] == {"summary": "fine"}
    for fmt in ("json", "md"):
        broken = cli("runs", "export", bad, "--format", fmt)
        assert "Traceback" not in broken.stderr and "RecursionError" not in broken.stderr + broken.stdout
