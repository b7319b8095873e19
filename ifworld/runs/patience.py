"""How long a store call may wait for an unreachable server, per thread (:func:`store_patience`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

STORE_WAIT: ContextVar[float | None] = ContextVar("ifworld_store_wait", default=None)
"""How long this thread's store calls may wait for the server (None: the backend's own, 30 s for PostgreSQL)."""


@contextmanager
def store_patience(seconds: float) -> Iterator[None]:
    """Store calls inside wait at most ``seconds`` for an unreachable server before :class:`StoreBusy` — a
    participant's page would rather say "reconnecting" at once than hang for the backend's 30 s. Per thread
    (a context variable): one Streamlit session's limit is not another's, nor a run driver's."""
    token = STORE_WAIT.set(float(seconds))
    try:
        yield
    finally:
        STORE_WAIT.reset(token)
