"""Run store: index, resume without re-running finished nodes, multi-process writers, no secrets, cache."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ifworld import runs
from ifworld.runs.store import RunStore, scrub

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-test-DO-NOT-STORE-8c1f"


@pytest.fixture
def store(any_store: RunStore) -> RunStore:
    """The contract tests below run on both backends: a SQLite file and a throwaway PostgreSQL database."""
    return any_store


def demo_params(**extra):
    return {"topic": "the Moon", "workers": 3, **extra}


def test_create_list_get_delete(store: RunStore) -> None:
    a = store.create_run("whatif", "demo.fanout", {"x": 1}, "First")
    b = store.create_run("rws", "rws.single", {"x": 2}, "Second thing")  # same clock tick: newest first still
    assert [r.id for r in store.list_runs()] == [b, a]
    assert [r.id for r in store.list_runs(kind="whatif")] == [a]
    assert [r.id for r in store.list_runs(search="second")] == [b]
    assert store.get_run(a).summary()["title"] == "First"
    store.delete_run(a)
    with pytest.raises(KeyError):
        store.get_run(a)
    with pytest.raises(ValueError, match="unknown run kind"):
        store.create_run("nope", "x", {})


def test_dead_process_shows_interrupted(store: RunStore) -> None:
    run_id = store.create_run("whatif", "demo.fanout", {})
    store.set_status(run_id, "running")
    with store._tx() as c:
        c.execute("UPDATE ifw_runs SET pid=? WHERE id=?", (2**22 + 12345, run_id))
    assert store.get_run(run_id).status == "interrupted"


def test_full_run_record_and_export(store: RunStore, settings) -> None:
    record = runs.execute("demo.fanout", demo_params(), store=store, settings=settings)
    assert len(record["answers"]) == 3 and record["calls"] == 4
    (info,) = store.list_runs()
    assert info.status == "completed" and info.usage["calls"] == 4
    md = runs.export_run(info.id, "md", store=store)
    assert md.startswith("# Demo: the Moon") and "## Summary" in md
    data = json.loads(runs.export_run(info.id, "json", store=store))
    assert data["usage"]["calls"] == 4 and len(data["calls"]) == 4
    steps = runs.replay(info.id, store=store, settings=settings)
    assert any("summarise" in s.nodes for s in steps)
    assert steps[-1].values["summary"]


def test_failed_sibling_resumes_only_itself(store: RunStore, settings, fake_server) -> None:
    """Worker 1 fails after its siblings have finished (its reply is held until both are done: on a loaded machine
    a failure that came first ended the step before their writes were saved, and they ran again)."""
    fake_server.inject("500", times=1, match="demo worker 1")
    fake_server.hold(match="demo worker 1")
    events: list = []
    releaser = fake_server.release_when(
        lambda: sum(e.type == "step_finished" and e.node == "worker" for e in list(events)) >= 2)
    with pytest.raises(runs.RunFailed, match="resume"):
        runs.execute("demo.fanout", demo_params(), store=store, settings=settings, on_event=events.append)
    releaser.join(5)
    run_id = store.list_runs()[0].id
    assert store.get_run(run_id).status == "failed"
    assert any(e.type == "run_failed" for e in events)
    assert any(e.type == "step_failed" for e in events)
    sent_before = fake_server.count(status=None)
    record = runs.drive(run_id, store=store, settings=settings)
    new = fake_server.requests[sent_before:]
    assert sorted(r.system.split(".")[0] for r in new) == ["You are demo worker 1", "You are the demo summariser"]
    assert len(record["answers"]) == 3
    assert store.get_run(run_id).status == "completed"


CHILD = """
import sys
import threading
from ifworld import runs
from ifworld.runs.store import RunStore
runs.execute("demo.fanout", {"topic": "kill", "workers": 4}, store=RunStore(sys.argv[1]))
"""


def test_kill_9_mid_run_then_resume(tmp_path: Path, fake_server, settings) -> None:
    """Workers 0 and 1 answer, 2 and 3 wait on a gate; once the child has checkpointed two workers' writes we
    kill it, then resume in this process: only workers 2 and 3 (and the summary) may be sent again."""
    gate = threading.Event()

    def reply(body):
        i = int(body["messages"][0]["content"].split("worker ")[1][0])
        if i >= 2:
            gate.wait(60)
        return f"answer {i}"

    fake_server.add_rule("demo.worker", reply)
    db = tmp_path / "kill.sqlite"
    env = {**os.environ, "IFWORLD_BASE_URL": fake_server.url, "IFWORLD_MODEL": "fake-model",
           "IFWORLD_MAX_RETRIES": "0", "IFWORLD_MAX_CONCURRENCY": "8", "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], env=env, cwd=ROOT, stderr=subprocess.PIPE)

    def checkpointed_workers() -> int:
        try:
            with sqlite3.connect(db, timeout=1) as conn:
                return conn.execute("SELECT COUNT(DISTINCT task_id) FROM writes WHERE channel='answers'").fetchone()[0]
        except sqlite3.OperationalError:  # not created yet, or busy
            return 0

    deadline = time.monotonic() + 180  # generous: a loaded machine starts the child slowly
    while checkpointed_workers() < 2:
        if time.monotonic() > deadline or child.poll() is not None:
            child.kill()
            raise AssertionError(f"the child never checkpointed two workers: {child.stderr.read()[-1500:]!r}")
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    gate.set()  # the server's waiting handlers may finish now; their answers never reach the dead child
    with sqlite3.connect(db) as conn:  # what the dead child had checkpointed, read from the file itself
        blobs = [row[0] for row in conn.execute("SELECT value FROM writes WHERE channel='answers'")]
    finished = {f"answer {i}" for i in range(4) if any(f"answer {i}".encode() in bytes(b) for b in blobs)}
    assert finished and finished <= {"answer 0", "answer 1"}
    store = RunStore(db)
    (info,) = store.list_runs()
    assert info.status == "interrupted"
    before = len(fake_server.requests)
    record = runs.drive(info.id, store=store, settings=settings)
    resent = {r.content for r in fake_server.requests[before:] if r.role == "demo.worker"}
    assert not (resent & finished), f"checkpointed workers sent again: {sorted(resent & finished)}"
    assert resent >= {"answer 2", "answer 3"}
    assert [a["text"] for a in record["answers"]] == [f"answer {i}" for i in range(4)]


WRITER = """
import sys
import threading
from ifworld.runs.store import RunStore
s = RunStore(sys.argv[1])
for i in range(40):
    rid = s.create_run("beliefs", "beliefs.sweep", {"i": i, "who": sys.argv[2]})
    s.add_call(rid, {"call_id": str(i), "role": "r", "prompt_tokens": i})
    s.finish_run(rid, {"ok": i})
"""


def test_two_processes_write_concurrently(tmp_path: Path) -> None:
    db = tmp_path / "multi.sqlite"
    RunStore(db).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), who], env=env, stderr=subprocess.PIPE)
             for who in ("a", "b")]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    store = RunStore(db)
    rows = store.list_runs()
    assert len(rows) == 80 and all(r.status == "completed" for r in rows)
    assert sorted({r.params["who"] for r in rows}) == ["a", "b"]


def test_no_secret_reaches_the_file(tmp_path: Path, fake_server, monkeypatch) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", SECRET)
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_MAX_RETRIES", "0")
    db = tmp_path / "secret.sqlite"
    store = RunStore(db)
    record = runs.execute("demo.fanout", demo_params(api_key=SECRET, nested={"token": SECRET}), store=store)
    assert record["summary"]
    run_id = store.list_runs()[0].id
    exports = runs.export_run(run_id, "md", store=store) + runs.export_run(run_id, "json", store=store)
    store.close()
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("secret.sqlite*"))
    assert SECRET.encode() not in blob and SECRET not in exports
    assert fake_server.requests[0].body  # the key was really used for calls
    assert scrub({"API_KEY": 1, "openai_api_key": 2, "keep": {"password": 3, "x": 4}}) == {"keep": {"x": 4}}
    assert scrub({"access_token": 1, "prompt_tokens": 2, "completion_tokens": 3}) == {"prompt_tokens": 2,
                                                                                      "completion_tokens": 3}


def test_key_echoed_by_the_model_is_redacted(tmp_path: Path, fake_server, monkeypatch) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", SECRET)
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    fake_server.add_rule("demo", f"my key is {SECRET}")  # every demo.* role
    store = RunStore(tmp_path / "echo.sqlite")
    runs.execute("demo.fanout", demo_params(), store=store)
    store.close()
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("echo.sqlite*"))
    assert SECRET.encode() not in blob.replace(b"\x00", b"")


def test_node_cache_makes_rerun_free(store: RunStore, settings, fake_server) -> None:
    runs.execute("demo.fanout", demo_params(cache=True), store=store, settings=settings)
    first = fake_server.count()
    record = runs.execute("demo.fanout", demo_params(cache=True), store=store, settings=settings)
    assert fake_server.count() == first == 4
    assert len(record["answers"]) == 3


def test_repaired_call_inside_a_graph_is_marked(store: RunStore, settings, fake_server) -> None:
    from langgraph.graph import END, START, StateGraph
    from pydantic import BaseModel

    from ifworld import llm
    from ifworld.runs import Workflow, register

    class Out(BaseModel):
        ok: bool

    def node(state: dict) -> dict:
        llm.structured("demo.structured", [("system", "You are the structured demo."), ("user", "go")], Out,
                       settings=settings)
        return {"done": True}

    def build(params, _settings):
        g = StateGraph(dict)
        g.add_node("node", node)
        g.add_edge(START, "node")
        g.add_edge("node", END)
        return g

    register(Workflow("demo.structured", "whatif", build, lambda p: {"done": False}, lambda s, p, c: {"ok": True}))
    fake_server.add_rule("demo.structured", {"ok": True})
    fake_server.inject("malformed", times=1)
    runs.execute("demo.structured", {}, store=store, settings=settings)
    (call,) = store.calls(store.list_runs()[0].id)
    assert call["status"] == "repaired" and call["retries"] == 1
