"""Child processes that never outlive their parent, whatever signal ends it (SIGKILL included).

A parent cannot clean up after SIGKILL, and Python's default SIGTERM / SIGHUP handling runs no ``atexit`` hook,
so the child takes care of itself, twice over:

* **the kernel** — on Linux the child arms ``PR_SET_PDEATHSIG`` (``prctl`` through ctypes) with SIGKILL, so it
  dies the moment its parent does, even inside a C loop (sympy, a regex) where no Python thread could run;
* **a watch thread** — every :data:`PARENT_POLL_S` it compares ``getppid()`` with the parent it started under
  (a child is re-parented when its parent dies); this covers platforms without ``prctl``.

One Linux subtlety decides the parent side: the parent-death signal fires when the *thread* that forked the
child ends, not the process. Streamlit runs each script in a thread that ends after the rerun, and warm-ups
run in short-lived threads, so :func:`spawn` forks every child from one daemon thread that lives as long as
the process. The child learns its parent's pid from :data:`PARENT_ENV`, to catch a parent that died before
the signal was armed.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any

__all__ = ["PARENT_ENV", "PARENT_POLL_S", "die_with_parent", "spawn"]

PARENT_ENV = "IFWORLD_PARENT_PID"
"""Environment variable carrying the parent's pid to a child started with :func:`spawn`."""
PARENT_POLL_S = 0.2
"""How often a child's watch thread checks that its parent is still there."""
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

_requests: queue.SimpleQueue[tuple[list[str], dict[str, Any], Future]] = queue.SimpleQueue()
_spawner: threading.Thread | None = None
_spawner_lock = threading.Lock()


def _spawn_loop() -> None:
    while True:
        cmd, kwargs, future = _requests.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(subprocess.Popen(cmd, **kwargs))  # noqa: S603 - our own interpreter and module
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, who raises it
                future.set_exception(exc)


def spawn(cmd: list[str], **popen_kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **popen_kwargs)`` forked from the process's long-lived spawner thread, with
    :data:`PARENT_ENV` set, for a child that calls :func:`die_with_parent` at start."""
    global _spawner
    env = dict(popen_kwargs.pop("env", None) or os.environ)
    env[PARENT_ENV] = str(os.getpid())
    with _spawner_lock:
        if _spawner is None or not _spawner.is_alive():
            _spawner = threading.Thread(target=_spawn_loop, name="ifworld-spawner", daemon=True)
            _spawner.start()
    future: Future[subprocess.Popen] = Future()
    _requests.put((cmd, {**popen_kwargs, "env": env}, future))
    return future.result()


def _arm_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl: the watch thread still ends the child


def die_with_parent(parent_pid: int | None = None) -> None:
    """In a child: end this process as soon as its parent ends (kernel signal plus a watch thread).

    ``parent_pid`` defaults to :data:`PARENT_ENV`, then to the current parent."""
    parent = parent_pid or int(os.environ.get(PARENT_ENV) or 0) or os.getppid()
    _arm_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="ifworld-watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)  # a background poll in the child; nothing waits on it
        if os.getppid() != parent:
            os._exit(1)
