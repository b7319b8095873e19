"""No child outlives its parent, whatever signal ends the parent (issue #22 item 4).

Two parents: ``ifworld rws check`` busy on a slow symbolic item (its grading worker was seen at 100 % CPU under
PID 1 for minutes after ``timeout 8`` killed the command) and ``ifworld app`` (Streamlit kept serving its port
after SIGTERM). For each of SIGTERM, SIGINT, SIGHUP and SIGKILL the parent is signalled once it is busy, then
the test waits on the condition "none of the processes that were its descendants, nor the parent, is still
running" with a deadline. The orphan counts per signal are printed (``-s``) and must all be 0.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.reliability.test_worker_death import alive, descendants

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL]
GONE_WITHIN_S = 5.0
# (x+1)^999 against (x+2)^999 keeps sympy busy for about 10 s of CPU; warming the worker takes about 1 s.
SLOW_ITEM = ["(x+1)^{999}", "(x+2)^{999}", "--type", "symbolic", "--timeout", "120"]
BUSY_CPU_S = 3.0

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait(condition, timeout_s: float, what: str):  # noqa: ANN001, ANN202 - a small polling helper
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _orphans_after(parent: subprocess.Popen, procs: set[int], sig: signal.Signals) -> int:
    """Signal the parent, reap it, and count the processes still running after GONE_WITHIN_S."""
    os.kill(parent.pid, sig)
    try:
        parent.wait(timeout=30)
    except subprocess.TimeoutExpired:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(alive(p) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in procs if alive(p)]
    for pid in left:  # clean up, so a failure does not leave a process computing
        os.kill(pid, signal.SIGKILL)
    return len(left)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_grading_worker_dies_with_rws_check(tmp_path: Path, sig: signal.Signals) -> None:
    cli = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "rws", "check", *SLOW_ITEM], env=_env(tmp_path),
                           cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = _wait(lambda: {p for p in descendants(cli.pid) if alive(p)}, 60, "the grading worker")
    # busy on the item: past the warm-up's CPU, so the request was sent and sympy is working on it
    _wait(lambda: any(_cpu_seconds(p) >= BUSY_CPU_S for p in workers), 60, "the worker to be busy")
    left = _orphans_after(cli, workers, sig)
    print(f"orphans after {sig.name} of `ifworld rws check`: {left}")
    assert left == 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serving(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_streamlit_stops_with_ifworld_app(tmp_path: Path, sig: signal.Signals) -> None:
    port = _free_port()
    app = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "app", "--port", str(port)],
                           env={**_env(tmp_path), "STREAMLIT_SERVER_HEADLESS": "true"}, cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait(lambda: _serving(port), 90, "the app to serve")
    procs = {p for p in descendants(app.pid) if alive(p)}
    left = _orphans_after(app, procs, sig)
    print(f"orphans after {sig.name} of `ifworld app`: {left}")
    assert left == 0
    _wait(lambda: not _serving(port), GONE_WITHIN_S, "the port to close")


def test_worker_started_from_a_short_lived_thread_survives_the_thread() -> None:
    """The kernel's parent-death signal follows the *thread* that forked the child: a worker warmed up in a
    thread (or from a Streamlit script thread) must not die when that thread ends."""
    from ifworld.rws.grading import sandbox

    worker = sandbox.SymbolicWorker()
    try:
        thread = threading.Thread(target=worker.warm)
        thread.start()
        thread.join()
        pid = worker.pid
        assert pid is not None
        reply = worker.request({"op": "check", "pred": "2", "gold": "2", "type": "numeric"}, 30, need_warm=False)
        assert reply is not None and reply["verdict"] == "correct" and worker.pid == pid
    finally:
        worker.close()
