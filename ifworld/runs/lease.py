"""Run liveness: which process drives a run, and whether it is still there.

A driver holds a lease on its run row (owner token = this process's boot token + a counter, pid, host) and
a daemon thread renews its heartbeat. Readers treat a ``running`` row as interrupted once its process is
gone (same host) or its heartbeat is older than :data:`LEASE_TTL_S`. The SQL lives in
:class:`ifworld.runs.store.RunStore` (``acquire_lease``, ``renew_lease``, ``release_lease``).
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

HEARTBEAT_S = 2.0
"""How often a live driver renews its lease."""
LEASE_TTL_S = 15.0
"""A lease not renewed for this long is stale: its run reads as interrupted and may be resumed."""
BOOT = secrets.token_hex(6)
"""This process's boot token: tells a restarted process apart from the one that took a lease (pid reuse)."""
DRIVEN_HERE: dict[str, None] = {}
"""Run ids this process took a lease on, oldest first (the CLI names them after a signal: resume hints)."""


class Lease:
    """A held lease: a daemon thread renews the heartbeat every :data:`HEARTBEAT_S` until :meth:`stop`.

    ``idle()`` / ``busy()`` tell it when the driver is parked at a ``yield`` (its consumer may have
    abandoned it — a Streamlit script stopped by navigation never closes the generator); after
    :data:`LEASE_TTL_S` parked the heartbeat stops, so the run reads as interrupted.
    """

    def __init__(self, store: Any, run_id: str, token: str) -> None:
        self.store, self.run_id, self.token = store, run_id, token
        DRIVEN_HERE[run_id] = None
        self.status: str = "completed"
        self.error: str | None = None
        self._stop = threading.Event()
        self._parked_since: float | None = None
        self._thread = threading.Thread(target=self._beat, name=f"lease-{run_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def idle(self) -> None:
        self._parked_since = time.monotonic()

    def busy(self) -> None:
        self._parked_since = None

    def stop(self) -> None:
        self._stop.set()

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            parked = self._parked_since
            if parked is not None and time.monotonic() - parked > LEASE_TTL_S:
                continue  # nobody is pulling events: let the lease go stale
            try:
                if not self.store.renew_lease(self.run_id, self.token):
                    return
            except Exception:  # noqa: BLE001 — StoreError
                continue  # a busy or briefly unwritable file: try again next beat


def lease_alive(row: dict[str, Any], now: float | None = None) -> bool:
    """Whether a ``running`` row's driver is still there: its process exists (same host) and, when the
    row has a heartbeat, it was renewed within :data:`LEASE_TTL_S`."""
    pid, host, beat = row.get("pid"), row.get("host"), row.get("heartbeat")
    if beat is not None and (now or time.time()) - float(beat) > LEASE_TTL_S:
        return False
    return _alive(pid, host)


def _alive(pid: int | None, host: str | None) -> bool:
    if not pid or host != os.uname().nodename:
        return True  # another machine's run: trust its status
    return process_alive(pid)


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (killed, not yet reaped — e.g. under a container's init) is dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: the kill(0) answer stands
