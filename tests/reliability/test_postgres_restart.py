"""PostgreSQL restarts (``pg_ctl restart``) while a what-if run is going on the fake model server: the run either
completes by itself or is left resumable, and resuming finishes it with nothing lost — every call answered (and
checkpointed) before the restart is kept, none is sent to the model again, the record is whole.

Both shutdown modes: ``fast`` (what an operator's restart or a package upgrade does: open connections are
terminated) and ``immediate`` (a crash: recovery from the WAL on start). Outcomes are printed (``-s``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.fixtures.postgres import PgServer, pg_bindir
from tests.reliability.conftest import OUTCOMES
from tests.reliability.test_kill_resume import IFWORLD, ROOT, SETTLE_S, WHATIF_ARGS, _env, _fingerprint

pytestmark = pytest.mark.postgres


@pytest.fixture
def own_server(pg_server: PgServer) -> PgServer:  # noqa: ARG001 — pg_server: skip when PostgreSQL is missing
    """A durable cluster of its own (restarting the session's would cut other tests' connections; the session's
    acknowledges commits before writing them, which a crash would rightly lose)."""
    server = PgServer(pg_bindir(), durable=True)
    server.start()
    yield server
    server.remove()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgres_restart_mid_run_loses_nothing(own_server: PgServer, fake_server, tmp_path: Path, mode: str,
                                                capsys) -> None:
    fake_server.latency = 0.4
    env = _env(fake_server, own_server.create_db())
    child = subprocess.Popen(IFWORLD + WHATIF_ARGS + ["--out", str(tmp_path / "run.json")], env=env, cwd=ROOT,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and sum(1 for r in fake_server.requests if r.end) < 6:
        time.sleep(0.02)
    restart_at = time.monotonic()
    own_server.restart(mode, down_s=1.0)
    finished = {_fingerprint(r.body) for r in fake_server.requests if r.end and r.end < restart_at - SETTLE_S}
    sent_before = len(fake_server.requests)
    err = child.communicate(timeout=300)[1]
    found = re.search(r"run id: (\S+)", err)
    assert found, err[-3000:]
    run_id = found.group(1)
    outcome = "completed by itself" if child.returncode == 0 else "resumable"
    if child.returncode != 0:
        listed = subprocess.run(IFWORLD + ["runs", "list", "--json"], env=env, cwd=ROOT, capture_output=True,
                                text=True, timeout=120)
        status = next(r for r in json.loads(listed.stdout) if r["id"] == run_id)["status"]
        assert status in ("interrupted", "failed"), status
        outcome += f" ({status}: {err.strip().splitlines()[-1][:160]})"
        resumed = subprocess.run(IFWORLD + ["runs", "resume", run_id, "--out", str(tmp_path / "run.json")],
                                 env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
    resent = [r for r in fake_server.requests[sent_before:] if _fingerprint(r.body) in finished]
    assert resent == [], f"{len(resent)} calls answered before the restart were sent again"
    record = json.loads((tmp_path / "run.json").read_text())
    assert len(record["rounds"]) == 2 and all(len(r["experts"]) == 3 for r in record["rounds"]) and record["report"]
    answered = sum(1 for r in fake_server.requests if r.end)
    assert len(record["calls"]) >= 15 and answered >= len(record["calls"])
    OUTCOMES.append({"workflow": "whatif (postgres)", "scenario": f"pg_ctl restart -m {mode} mid-run",
                     "outcome": outcome[:40], "requests": answered, "baseline": 15, "wasted": answered - 15})
    with capsys.disabled():
        print(f"\n[postgres restart -m {mode}] {outcome}; requests {answered} (uninterrupted: 15)")
    assert os.path.exists(tmp_path / "run.json")
