"""A warm, killable grading worker — one time limit per item without ``signal.alarm``.

Why a process: sympy can hang (``simplify((x+1)**99999999)``), a 1 MB gold can keep a regex busy, and
``signal.alarm`` only works on the main thread while Streamlit runs scripts on other threads. Every stage
of an item (extract, numeric, symbolic, textual) runs in the worker; the parent waits ``timeout_s`` and
kills it beyond that. The worker is spawned once and reused; starting it (python + pint) has its own
budget :data:`STARTUP_TIMEOUT_S`, and the first symbolic item also gets that budget while sympy warms.
A lock serialises requests, so any number of threads may call :func:`run_check` at once.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time

from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S  # noqa: F401 - re-exported

STARTUP_TIMEOUT_S = 60.0
"""Budget for starting the worker (python + sympy + antlr imports) — the "first call" budget."""


class SymbolicWorker:
    """One worker process speaking the JSON-lines protocol of :mod:`ifworld.rws.grading.symworker`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self._next_id = 0
        self.restarts = 0
        self.sympy_warm = False
        self.last_failure = ""

    def _spawn(self) -> None:
        """Start the process (no waiting)."""
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "ifworld.rws.grading.symworker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )
        self._buffer = b""
        self.sympy_warm = False

    def _readline(self, deadline: float) -> bytes | None:
        """Read one line from the worker before the deadline; None on timeout or EOF."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _kill(self) -> None:
        """Kill the current process (if any) and forget it."""
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for stream in (self._proc.stdin, self._proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        self._proc = None

    def _ensure(self) -> bool:
        """Make sure a warm worker is running; False when it failed to start in time."""
        if self._proc is not None and self._proc.poll() is None:
            return True
        if self._proc is not None:
            self._kill()
            self.restarts += 1
        self._spawn()
        line = self._readline(time.monotonic() + STARTUP_TIMEOUT_S)
        if line is None or b"ready" not in line:
            self._kill()
            return False
        return True

    def warm(self) -> bool:
        """Start the worker now (e.g. in the background before a batch) so the first check is fast."""
        with self._lock:
            return self._ensure()

    def request(self, payload: dict, timeout_s: float, cold_extra: bool = False) -> dict | None:
        """Send one request; the reply dict, or None if it did not answer within timeout_s.

        `cold_extra`: add the start-up budget while sympy is not warm yet (first symbolic item).
        """
        with self._lock:
            if not self._ensure():
                return None
            assert self._proc is not None and self._proc.stdin is not None
            self._next_id += 1
            line_out = json.dumps({**payload, "id": self._next_id}) + "\n"
            try:
                self._proc.stdin.write(line_out.encode("utf-8"))
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self._kill()
                return None
            budget = timeout_s + (STARTUP_TIMEOUT_S if cold_extra and not self.sympy_warm else 0.0)
            deadline = time.monotonic() + budget
            while True:
                line = self._readline(deadline)
                if line is None:
                    code = self._proc.poll() if self._proc is not None else None
                    self.last_failure = "timeout" if code is None else f"worker exited with code {code}"
                    self._kill()
                    self.restarts += 1
                    return None
                reply = json.loads(line)
                if reply.get("id") == self._next_id:
                    self.sympy_warm = bool(reply.pop("warm", False))
                    return reply

    def close(self) -> None:
        """Stop the worker."""
        with self._lock:
            self._kill()

    @property
    def pid(self) -> int | None:
        """Process id of the live worker, if any (for tests and diagnostics)."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None


_WORKER = SymbolicWorker()
atexit.register(_WORKER.close)


def worker() -> SymbolicWorker:
    """The shared worker used by :func:`run_symbolic`."""
    return _WORKER


def run_check(pred: str, gold: str, kind: str, units: str | None = None, hint: str | None = None,
              timeout_s: float = DEFAULT_TIMEOUT_S) -> dict | None:
    """Grade one item in the shared worker; None means it went past `timeout_s` or the worker died
    (see ``worker().last_failure``) — it was killed and the next call starts a fresh one."""
    payload = {"op": "check", "pred": pred, "gold": gold, "type": kind, "units": units, "hint": hint,
               "timeout_s": timeout_s}
    return _WORKER.request(payload, timeout_s, cold_extra=kind == "symbolic")


def run_validate(golds: list[tuple[str, str]], timeout_s: float) -> dict | None:
    """Check many gold answers in one request (load-time validation); None on timeout."""
    return _WORKER.request({"op": "validate", "golds": [list(g) for g in golds]}, timeout_s, cold_extra=True)


def warm_up_async() -> threading.Thread:
    """Start the shared worker in a background thread; returns the thread (join it if you must)."""
    thread = threading.Thread(target=_WORKER.warm, name="ifworld-symworker-warmup", daemon=True)
    thread.start()
    return thread
