"""The run store's workshop tables: a workshop row per run and its append-only event log, plus rate limits.

Rows are written and read by :mod:`ifworld.whatif.workshop`. Each event carries two indexed columns besides
its JSON: ``actor`` (the participant it is by) and ``ref`` (what it is about: a contribution id, a device's key
hash). The checks that guard a write (one vote per person, a closed workshop, a person's bounds) ask
:class:`EventLog` for exactly the rows they need through that index, inside the write lock, so one write
costs the same with 100 events or 10,000 — it used to read and parse the whole log under the lock, so each
write got slower as the room talked and a second process waited into ``database is locked``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ifworld.runs import schema

SCHEMA, INDEXES = schema.WORKSHOPS, schema.INDEXES  # the tables live in :mod:`ifworld.runs.schema`
LATER_COLUMNS = {"ifw_workshop_events": schema.LATER_COLUMNS["ifw_workshop_events"]}


def _row(seq: int, at: float, kind: str, data: str) -> dict[str, Any]:
    return {"seq": seq, "at": at, "kind": kind, "data": json.loads(data)}


class EventLog:
    """Indexed look-ups into one workshop's events, for checks that run inside the write lock."""

    def __init__(self, conn: Any, run_id: str) -> None:
        self._conn, self.run_id = conn, run_id

    def _where(self, kind: str, actor: str | None, ref: str | None) -> tuple[str, list[Any]]:
        sql, args = " FROM ifw_workshop_events WHERE run_id=? AND kind=?", [self.run_id, kind]
        for column, value in (("actor", actor), ("ref", ref)):
            if value is not None:
                sql += f" AND {column}=?"
                args.append(value)
        return sql, args

    def find(self, kind: str, *, actor: str | None = None, ref: str | None = None) -> list[dict[str, Any]]:
        """Events of ``kind`` by ``actor`` and/or about ``ref``, oldest first (an indexed range, not the log)."""
        where, args = self._where(kind, actor, ref)
        return [_row(*r) for r in self._conn.execute(f"SELECT seq, at, kind, data{where} ORDER BY seq", args)]

    def count(self, kind: str, *, actor: str | None = None, ref: str | None = None) -> int:
        where, args = self._where(kind, actor, ref)
        return int(self._conn.execute(f"SELECT COUNT(*){where}", args).fetchone()[0])


class WorkshopTables:
    """Mixed into :class:`~ifworld.runs.store.RunStore` (which supplies ``_tx``, ``_read`` and ``_lock``).

    Write checks lock the one workshop (``key=run_id``): on PostgreSQL two rooms never wait for each other."""

    _tx: Callable[..., AbstractContextManager[Any]]
    _read: Callable[..., tuple[list[str], list[tuple[Any, ...]]]]

    def add_workshop(self, run_id: str, *, token: str, code: str, secret_hash: str = "") -> None:
        """Register a run's workshop (join token, short code)."""
        with self._tx() as c:
            c.execute("INSERT INTO ifw_workshops VALUES (?, ?, ?, ?, ?)", (run_id, token, code, secret_hash,
                                                                           time.time()))

    def workshop_row(self, *, run_id: str | None = None, token: str | None = None,
                     code: str | None = None) -> dict[str, Any] | None:
        """The workshop found by run id, join token or short code (None when there is none)."""
        column, value = next((k, v) for k, v in (("run_id", run_id), ("token", token), ("code", code))
                             if v is not None)
        cols, rows = self._read(f"SELECT run_id, token, code, created FROM ifw_workshops WHERE {column}=?",
                                (value,))
        return dict(zip(cols, rows[0], strict=True)) if rows else None

    def add_workshop_event(self, run_id: str, kind: str, data: dict[str, Any],
                           check: Callable[[EventLog], None] | None = None, *, actor: str = "",
                           ref: str = "") -> int:
        """Append one event; ``check(log)`` runs inside the write lock first (it may refuse by raising), so
        read-decide-write is atomic across processes. Returns the event's number."""
        with self._tx(immediate=True, key=run_id) as c:
            if check is not None:
                check(EventLog(c, run_id))
            (seq,) = c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM ifw_workshop_events WHERE run_id=?",
                               (run_id,)).fetchone()
            c.execute("INSERT INTO ifw_workshop_events (run_id, seq, at, kind, data, actor, ref) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)",
                      (run_id, seq, time.time(), kind, json.dumps(data, ensure_ascii=False), actor, ref))
            return int(seq)

    def workshop_events(self, run_id: str, *, after: int = 0) -> list[dict[str, Any]]:
        """The run's workshop events, oldest first (``after``: only those numbered above it)."""
        _, rows = self._read("SELECT seq, at, kind, data FROM ifw_workshop_events WHERE run_id=? AND seq>? "
                             "ORDER BY seq", (run_id, after))
        return [_row(*r) for r in rows]

    def workshop_find(self, run_id: str, kind: str, *, actor: str | None = None,
                      ref: str | None = None) -> list[dict[str, Any]]:
        """Indexed look-up outside a write (see :meth:`EventLog.find`)."""
        with self._tx() as c:
            return EventLog(c, run_id).find(kind, actor=actor, ref=ref)

    def hit_rate(self, key: str, *, limit: int, window_s: float, add: bool = True) -> bool:
        """Count one attempt under ``key`` (``add=False``: only look); False when there are more than ``limit``
        attempts in ``window_s`` seconds. Stored, so the limit holds across reruns, sessions and processes."""
        now = time.time()
        with self._tx(immediate=True, key=f"rate:{key}") as c:
            row = c.execute('SELECT "window", hits FROM ifw_rate_limits WHERE key=?', (key,)).fetchone()
            start, hits = (row if row and now - row[0] < window_s else (now, 0))
            if add:
                hits += 1
                c.execute('INSERT INTO ifw_rate_limits (key, "window", hits) VALUES (?, ?, ?) ON CONFLICT (key) '
                          'DO UPDATE SET "window"=excluded."window", hits=excluded.hits', (key, start, hits))
        return hits <= limit if add else hits < limit

