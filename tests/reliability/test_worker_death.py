"""Sweep pool workers die with the process that drives the sweep.

kill -9 of the driver (the CLI, or a server process holding a listening socket as Streamlit does) must take
its pool workers with it within seconds: no orphan keeps computing, holds the port, or ignores SIGTERM.
Workers are found as the driver's descendants in /proc before the kill and polled afterwards.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GRID = {"base": {"agents": 40, "facts": 40, "rounds": 40}, "grid": {"bandwidth": [1, 2, 3, 4, 5, 6]},
        "seeds": list(range(8)), "runs": 400, "chunk_size": 1}
GONE_WITHIN_S = 5.0

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            kids.setdefault(int(fields[1]), []).append(int(entry.name))
    return kids


def descendants(pid: int) -> set[int]:
    kids, found, todo = _children(), set(), [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has already died)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for_workers(driver: subprocess.Popen, n: int) -> set[int]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and driver.poll() is None:
        procs = {p for p in descendants(driver.pid) if alive(p)}
        if len(procs) >= n:
            return procs
        time.sleep(0.05)
    detail = driver.stderr.read()[-2000:] if driver.stderr else ""
    raise AssertionError(f"the sweep never started {n} workers: {detail}")


def _assert_all_gone(procs: set[int]) -> float:
    killed = time.monotonic()
    while any(alive(p) for p in procs):
        assert time.monotonic() - killed < GONE_WITHIN_S, f"orphans still alive: {[p for p in procs if alive(p)]}"
        time.sleep(0.05)
    return time.monotonic() - killed


def test_kill_9_of_the_cli_takes_its_workers(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(GRID))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}
    cli = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "beliefs", "sweep", "--grid", str(grid),
                            "--out", str(tmp_path / "out.csv"), "--workers", "2"], env=env, cwd=ROOT,
                           stderr=subprocess.PIPE, text=True)
    procs = _wait_for_workers(cli, 2)
    os.kill(cli.pid, signal.SIGKILL)
    cli.wait()
    _assert_all_gone(procs)


SERVER = """
import socket, sys
from ifworld.beliefs.sweep import SweepSpec, run_sweep
import yaml
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[2])))
server.listen()
run_sweep(SweepSpec.from_dict(yaml.safe_load(open(sys.argv[1]))), workers=2)
"""


def _open_files(pid: int) -> set[str]:
    """What ``pid``'s descriptors point at now. A descriptor closed between listing and reading (a worker
    opens and closes files as it runs) is skipped: it holds nothing any more."""
    found = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except FileNotFoundError:  # the process has ended
        return found
    for fd in fds:
        try:
            found.add(os.readlink(fd))
        except FileNotFoundError:
            continue
    return found


def test_kill_9_of_a_server_frees_its_port(tmp_path: Path) -> None:
    """Like `streamlit run` driving a sweep from a page: the server holds a listening socket. Forked
    workers used to inherit it and keep the port after the server died."""
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(GRID))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(grid), str(port)],
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    procs = _wait_for_workers(server, 2)
    for pid in procs:  # no worker holds a listening socket of the server
        inodes, server_inodes = _open_files(pid), _open_files(server.pid)
        assert not {i for i in inodes & server_inodes if i.startswith("socket:")}, f"worker {pid} shares a socket"
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    _assert_all_gone(procs)
    with socket.socket() as again:  # a restarted app can bind the port
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))


def test_workers_obey_sigterm(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(GRID))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}
    cli = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "beliefs", "sweep", "--grid", str(grid),
                            "--out", str(tmp_path / "out.csv"), "--workers", "2"], env=env, cwd=ROOT,
                           stderr=subprocess.PIPE, text=True)
    procs = _wait_for_workers(cli, 2)
    workers = procs
    for pid in workers:
        os.kill(pid, signal.SIGTERM)
    _assert_all_gone(workers)
    os.kill(cli.pid, signal.SIGKILL)
    cli.wait()
    _assert_all_gone(procs)


def _spin(seconds: float) -> float:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return seconds


def test_a_stopped_pool_has_no_thread_left_for_the_exit_to_race() -> None:
    """``stop_pool`` returns with the pool's manager thread ended, its wake-up pipe closed by itself: the
    interpreter's exit hook then writes nothing to it. Left running, the thread could close the pipe while the
    hook wrote to it, and a Ctrl-C'd sweep printed "Exception ignored … Bad file descriptor" under its resume
    hint (tests/reliability/test_stop_signals.py caught it once in CI)."""
    from concurrent.futures import ProcessPoolExecutor

    from ifworld.beliefs.sweep import _worker_init, stop_pool

    pool = ProcessPoolExecutor(max_workers=2, initializer=_worker_init, initargs=(os.getpid(),))
    futures = [pool.submit(_spin, 30.0) for _ in range(4)]
    workers = list(pool._processes.values())
    deadline = time.monotonic() + 60
    while not all(w.is_alive() for w in workers) and time.monotonic() < deadline:  # both computing
        time.sleep(0.05)
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive()
    stop_pool(pool)
    assert not manager.is_alive(), "the pool's manager thread outlived stop_pool"
    assert not any(w.is_alive() for w in workers)
    assert all(f.cancelled() or f.done() for f in futures)
