"""kill -9 the CLI in the middle of a what-if run and of a sweep, then resume.

The resumed result must equal an uninterrupted run's, and no step that had finished before the kill may
be sent to the model again (requests are counted and fingerprinted at the fake server).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.reliability.conftest import OUTCOMES

ROOT = Path(__file__).resolve().parents[2]
IFWORLD = [sys.executable, "-m", "ifworld.cli"]
PROPOSITION = "What if Earth's rotation slowed?"
WHATIF_ARGS = ["whatif", "run", PROPOSITION, "--experts", "physics,economics,medicine", "--rounds", "2"]
SETTLE_S = 0.5  # a request finished this long before the kill has had its result checkpointed


def _env(fake, db: Path | str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_")}
    env.update({"IFWORLD_BASE_URL": fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_DB": str(db),
                "IFWORLD_MAX_RETRIES": "0", "IFWORLD_MAX_CONCURRENCY": "8", "PYTHONPATH": str(ROOT)})
    return env


def _fingerprint(body: dict) -> str:
    msgs = body.get("messages", [])
    return hashlib.sha1(json.dumps(msgs, sort_keys=True).encode()).hexdigest()


def _content(record: dict) -> dict:
    """What must match between a resumed and an uninterrupted run (not timings or ids)."""
    return {"scenario": record["scenario"], "report": record["report"],
            "rounds": [{k: r[k] for k in ("round", "experts", "frame", "debate")} for r in record["rounds"]]}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_kill_whatif_cli_then_resume(fake_server, tmp_path: Path, backend: str, request) -> None:
    """On PostgreSQL the resuming process is another process reaching the run through the server only."""
    fake_server.latency = 0.3
    db = request.getfixturevalue("pg_server").create_db() if backend == "postgres" else tmp_path / "runs.sqlite"
    env = _env(fake_server, db)
    clean = subprocess.run(IFWORLD + WHATIF_ARGS + ["--out", str(tmp_path / "clean.json")], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0, clean.stderr[-2000:]
    baseline = fake_server.count(status=None)
    fake_server.reset()

    child = subprocess.Popen(IFWORLD + WHATIF_ARGS + ["--out", str(tmp_path / "killed.json")], env=env, cwd=ROOT,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and sum(1 for r in fake_server.requests if r.end) < baseline // 2:
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    child.wait()
    run_id = re.search(r"run id: (\S+)", child.stderr.read()).group(1)
    finished = {_fingerprint(r.body) for r in fake_server.requests if r.end and r.end < killed_at - SETTLE_S}
    sent_before = len(fake_server.requests)
    assert 0 < len(finished) < baseline

    resumed = subprocess.run(IFWORLD + ["runs", "resume", run_id, "--out", str(tmp_path / "resumed.json")], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    resent = [r for r in fake_server.requests[sent_before:] if _fingerprint(r.body) in finished]
    assert resent == [], f"{len(resent)} finished steps were sent to the model again"
    a = json.loads((tmp_path / "clean.json").read_text())
    b = json.loads((tmp_path / "resumed.json").read_text())
    assert _content(a) == _content(b)
    total = len(fake_server.requests)
    OUTCOMES.append({"workflow": "whatif (kill -9)", "scenario": "CLI killed mid-run", "outcome": "resumed",
                     "requests": total, "baseline": baseline, "wasted": max(0, total - baseline)})


GRID = {"base": {"agents": 20, "facts": 20, "rounds": 20}, "grid": {"bandwidth": [1, 2, 3, 4],
        "strategy": ["highest_confidence", "strategic"], "rule": ["additive", "bounded"]},
        "seeds": [0, 1, 2, 3], "runs": 200, "chunk_size": 4}


def test_kill_sweep_cli_then_resume(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(GRID))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}
    clean_out, out = tmp_path / "clean.csv", tmp_path / "results.csv"
    cmd = IFWORLD + ["beliefs", "sweep", "--grid", str(grid), "--backend", "local"]
    done = subprocess.run(cmd + ["--out", str(clean_out)], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]

    parts = Path(str(out) + ".parts")
    child = subprocess.Popen(cmd + ["--out", str(out)], env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(list(parts.glob("*.jsonl"))) < 2 and child.poll() is None:
        time.sleep(0.05)
    assert child.poll() is None, f"the sweep ended before it could be killed: {child.stderr.read()[-2000:]}"
    os.killpg(child.pid, signal.SIGKILL)  # the CLI and its worker processes
    child.wait()
    run_id = re.search(r"run id: (\S+)", child.stderr.read()).group(1)
    # finished chunks only: a chunk being written at the kill is a .tmp file that resume (rightly) replaces
    kept = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.jsonl")}
    total_chunks = 16 * 4 // GRID["chunk_size"]
    assert 2 <= len(kept) < total_chunks and not out.exists()

    listed = subprocess.run(IFWORLD + ["runs", "list", "--json"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert {"id": run_id, "status": "interrupted"}.items() <= next(
        r for r in json.loads(listed.stdout) if r["id"] == run_id).items()
    resumed = subprocess.run(IFWORLD + ["runs", "resume", run_id], env=env, cwd=ROOT, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert all(Path(parts, name).stat().st_mtime_ns == m for name, m in kept.items()), "a finished chunk was redone"
    a = pd.read_csv(clean_out).sort_values(list(pd.read_csv(clean_out).columns)).reset_index(drop=True)
    b = pd.read_csv(out).sort_values(list(a.columns)).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    OUTCOMES.append({"workflow": "sweep (kill -9)", "scenario": "CLI killed mid-sweep", "outcome": "resumed",
                     "requests": total_chunks, "baseline": total_chunks, "wasted": 0})
