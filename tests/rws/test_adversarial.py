"""Hostile inputs end within the time limit, run no code and leave the symbolic worker usable."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from ifworld.rws.grading import sandbox
from ifworld.rws.grading.grader import check
from tests.rws.conftest import load_cases

LIMIT_S = 3.0
# The worker is killed at LIMIT_S; what may come on top is killing and restarting it, which a loaded machine
# slows. The bound only has to tell 'returned after the limit' from 'hung', so it is generous.
KILL_AND_RESTART_ALLOWANCE_S = 20.0


@pytest.fixture(scope="module", autouse=True)
def _warm_worker() -> None:
    """Time limits are about grading, not about starting the worker: start it before timing anything."""
    assert check("x", "x", "symbolic").verdict == "correct"


def _build(parts: list) -> str:
    return "".join(piece * times for piece, times in parts)


@pytest.mark.parametrize("row", load_cases("adversarial"))
def test_adversarial_input(row: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    pred = _build(row["pred_parts"])
    start = time.monotonic()
    result = check(pred, row["gt"], row["type"], timeout_s=LIMIT_S)
    elapsed = time.monotonic() - start
    assert result.verdict in ("incorrect", "not_sure"), result
    assert elapsed < LIMIT_S + KILL_AND_RESTART_ALLOWANCE_S, f"not bounded by the limit: {elapsed:.1f} s"
    assert not (tmp_path / "MARKER").exists()
    assert check("x + x", "2x", "symbolic").verdict == "correct"


def test_timeout_kills_and_restarts_worker() -> None:
    assert check("x+1", "1+x", "symbolic").verdict == "correct"
    before = sandbox.worker().pid
    result = check("\\frac{a}{b} + c", "c + a/b", "symbolic", timeout_s=0.001)
    assert result.verdict == "not_sure"
    assert result.reason == "time limit: timed out after 0.001 s" and result.decided_by == "time limit"
    assert "timeout" in result.annotations
    assert check("x+1", "1+x", "symbolic").verdict == "correct"
    assert sandbox.worker().pid not in (None, before)


def test_worker_has_memory_limit() -> None:
    check("x", "x", "symbolic")
    pid = sandbox.worker().pid
    limits = Path(f"/proc/{pid}/limits")
    if not limits.exists():
        pytest.skip("no /proc on this platform")
    line = next(row for row in limits.read_text().splitlines() if row.startswith("Max address space"))
    assert "unlimited" not in line


def test_many_threads_at_once() -> None:
    results: list[str] = []
    lock = threading.Lock()

    def work(index: int) -> None:
        verdict = check(f"{index} x + x", f"{index + 1} x", "symbolic").verdict
        with lock:
            results.append(verdict)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == ["correct"] * 8


def test_long_prediction_is_truncated_not_refused() -> None:
    result = check("blah " * 10_000 + "\nFinal Answer: 48.8 km/s", "48.8 km/s", "numeric")
    assert result.verdict == "correct"
    assert "input truncated" in result.annotations


def test_no_code_ran_in_cwd() -> None:
    assert not Path(os.getcwd(), "MARKER").exists()
