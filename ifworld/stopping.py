"""A process told to stop sends no further model call.

The CLI turns SIGINT / SIGTERM / SIGHUP into ``KeyboardInterrupt`` in the main thread, but a run's work goes on in
worker threads (LangGraph's fan-out: six RWS tasks, a panel of experts), and Python waits for them at exit: before
this flag, ``ifworld rws run`` sent 17 more requests after SIGTERM and stopped 9.8 s later (16–17 s on a busy
machine). :func:`request_stop` sets a process-wide flag; the model layer checks it before each request
(:func:`check`) and raises :class:`Stopping` — a ``KeyboardInterrupt``, so no ``except Exception`` in a pattern
turns it into a degraded answer that a resume would keep. Requests already under way finish (an HTTP request is
not torn mid-reply); nothing new starts. The app never sets the flag: one session's stop is not the server's.
"""

from __future__ import annotations

import threading

_STOPPING = threading.Event()


class Stopping(KeyboardInterrupt):
    """Raised in a worker thread at its next model call once the process was told to stop."""


def request_stop() -> None:
    """Send no further model call from this process (the CLI's signal handler calls it)."""
    _STOPPING.set()


def stopping() -> bool:
    return _STOPPING.is_set()


def check() -> None:
    """Raise :class:`Stopping` if the process was told to stop."""
    if _STOPPING.is_set():
        raise Stopping("the process is stopping: no further model call")
