"""A warm, killable grading worker — one hard time limit per item without ``signal.alarm``.

Why a process: sympy can hang (``simplify((x+1)**99999999)``), a 1 MB gold can keep a regex busy, and
``signal.alarm`` only works on the main thread while Streamlit runs scripts on other threads (Math-Verify's
own timeouts are off for that reason). Every stage of an item runs in the worker; the parent waits
``timeout_s`` and kills it beyond that.

Time limits, precisely:

* an item's limit counts only its own grading: it starts when the request is written to a worker that is
  ready (and, for items that need sympy and Math-Verify, warm);
* starting a worker (python, pint, then sympy and Math-Verify imported and exercised once in the worker's
  background) has its own budget :data:`STARTUP_TIMEOUT_S`, spent once per worker process, outside every
  item's limit;
* a worker killed at an item's limit is replaced at once; the replacement warms up in the background while
  the caller moves on, and the next item waits for it outside its own limit — so the same answer gets the
  same verdict whether or not a kill came just before it.

No worker outlives this process, whatever signal ends it (SIGKILL included): workers are started through
:func:`ifworld.procs.spawn` and arm the kernel's parent-death signal at start (:func:`ifworld.procs.die_with_parent`).

Each worker's lock serialises its requests, so any number of threads may call :func:`run_check` at once; a
batch uses a pool of up to :data:`POOL_SIZE` workers in parallel (one per core).
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

from ifworld import stopping
from ifworld.procs import spawn
from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S

STARTUP_TIMEOUT_S = 60.0
"""Budget for a worker process to become ready and warm (python + pint + sympy + Math-Verify imports)."""
NEEDS_WARM = frozenset({"symbolic", "numeric"})
"""Answer types whose grading may use sympy / Math-Verify (textual never does)."""

STOP_POLL_S = 0.2
"""How often a wait for the worker looks whether the process was told to stop (:mod:`ifworld.stopping`)."""


class SymbolicWorker:
    """One worker process speaking the JSON-lines protocol of :mod:`ifworld.rws.grading.symworker`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self._next_id = 0
        self._ready = False
        self.restarts = 0
        self.sympy_warm = False
        self.last_failure = ""

    def _spawn(self) -> None:
        """Start a process (no waiting: it becomes ready and warm on its own)."""
        self._proc = spawn(  # from the long-lived spawner thread: the worker dies with this process
            [sys.executable, "-m", "ifworld.rws.grading.symworker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )
        self._buffer = b""
        self._ready = False
        self.sympy_warm = False

    def _readline(self, deadline: float) -> bytes | None:
        """Read one line from the worker before the deadline; None on timeout or EOF."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], min(remaining, STOP_POLL_S))
            if not ready:
                stopping.check()  # a stopped process does not wait out a worker's start (seconds of sympy import)
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _message(self, deadline: float) -> dict | None:
        """The next message; notices ("ready", "warm") update the state as they pass."""
        line = self._readline(deadline)
        if line is None:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            return {}
        if message.get("ready"):
            self._ready = True
        if message.get("warm"):
            self.sympy_warm = True
        return message

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
        self._ready = False
        self.sympy_warm = False

    def _ensure(self, need_warm: bool) -> bool:
        """A live worker that is ready (and warm if asked), waiting outside any item's limit."""
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self._kill()
                self.restarts += 1
            self._spawn()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._ready or (need_warm and not self.sympy_warm):
            if self._message(deadline) is None:
                self.last_failure = "the grading worker did not start in time"
                self._kill()
                return False
        return True

    def warm(self) -> bool:
        """Start the worker now (e.g. in the background before a batch); it warms sympy by itself, while
        textual items can already be graded."""
        with self._lock:
            return self._ensure(need_warm=False)

    def request(self, payload: dict, timeout_s: float, need_warm: bool = True) -> dict | None:
        """Send one request; the reply dict, or None if it did not answer within timeout_s.

        The limit starts once the worker is ready (and warm when `need_warm`); see the module docstring.
        """
        with self._lock:
            if not self._ensure(need_warm):
                return None
            assert self._proc is not None and self._proc.stdin is not None
            self._next_id += 1
            line_out = json.dumps({**payload, "id": self._next_id}) + "\n"
            try:
                self._proc.stdin.write(line_out.encode("utf-8"))
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self.last_failure = "the grading worker closed its input"
                self._replace()
                return None
            deadline = time.monotonic() + timeout_s
            while True:
                reply = self._message(deadline)
                if reply is None:
                    code = self._proc.poll() if self._proc is not None else None
                    self.last_failure = "timeout" if code is None else f"worker exited with code {code}"
                    self._replace()
                    return None
                if reply.get("id") == self._next_id:
                    reply.pop("warm", None)
                    return reply

    def _replace(self) -> None:
        """Kill the worker and start its replacement at once, so it warms while the caller moves on."""
        self._kill()
        self.restarts += 1
        self._spawn()

    def close(self) -> None:
        """Stop the worker."""
        with self._lock:
            self._kill()

    @property
    def pid(self) -> int | None:
        """Process id of the live worker, if any (for tests and diagnostics)."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None


POOL_SIZE = max(1, min(2, os.cpu_count() or 1))
"""Workers a batch may use at once (one per core, at most two): sympy-bound grading runs in parallel."""
_POOL = [SymbolicWorker() for _ in range(POOL_SIZE)]
for _member in _POOL:
    atexit.register(_member.close)


def worker(index: int = 0) -> SymbolicWorker:
    """A worker of the shared pool (the first serves single checks: the CLI, the pages)."""
    return _POOL[index % len(_POOL)]


def run_check(pred: str, gold: str, kind: str, units: str | None = None, hint: str | None = None,
              timeout_s: float = DEFAULT_TIMEOUT_S, worker_index: int = 0) -> dict | None:
    """Grade one item in a pool worker; None means it went past `timeout_s` or the worker died (see
    ``worker(worker_index).last_failure``) — it was killed and its replacement is already starting."""
    payload = {"op": "check", "pred": pred, "gold": gold, "type": kind, "units": units, "hint": hint,
               "timeout_s": timeout_s}
    return worker(worker_index).request(payload, timeout_s, need_warm=kind in NEEDS_WARM)


def run_validate(golds: list[tuple[str, str]], timeout_s: float) -> dict | None:
    """Check many gold answers in one request (load-time validation); None on timeout."""
    return worker().request({"op": "validate", "golds": [list(g) for g in golds]}, timeout_s, need_warm=True)


def warm_up_async(workers: int = 1) -> list[threading.Thread]:
    """Start `workers` pool workers in background threads (join them if you must)."""
    threads = [threading.Thread(target=worker(index).warm, name=f"ifworld-symworker-warmup-{index}", daemon=True)
               for index in range(min(workers, len(_POOL)))]
    for thread in threads:
        thread.start()
    return threads
