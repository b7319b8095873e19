"""The run store: the run index and per-call usage, beside LangGraph's checkpointer in the same store.

Two backends, one contract: a SQLite file (the embedded default; several processes write at once with WAL and a
busy timeout) or PostgreSQL (:mod:`ifworld.runs.postgres`, for several app processes or machines). LangGraph's
own checkpointer of that backend gives durability and resume: every LLM workflow is a compiled ``StateGraph``
whose thread id is the run id. This module only adds what LangGraph does not keep: which runs exist (kind,
title, params, status, final record, usage) and each model call's accounting; the tables are in
:mod:`ifworld.runs.schema`. Secrets never reach the file: params are
scrubbed of anything that looks like a key, and every known secret (:mod:`ifworld.redact`) is masked in
records, errors, call logs and checkpoints.

A run being driven holds a *lease*: its owner (pid, host, a per-process boot token) and a heartbeat renewed
by a thread while the driver is alive. A second driver is refused while the heartbeat is fresh; a run whose
owner stopped (process gone, generator closed, heartbeat stale) reads as ``interrupted`` and is resumable.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.cache.base import BaseCache
from langgraph.cache.sqlite import SqliteCache
from langgraph.checkpoint.sqlite import SqliteSaver

from ifworld.config import load_settings, store_url
from ifworld.errors import StoreError, WorkflowError
from ifworld.files import private_file
from ifworld.limits import MAX_TITLE_CHARS
from ifworld.llm.reply import clean_text, cut_text
from ifworld.redact import MIN_SECRET_CHARS, redact, safe_error
from ifworld.runs import schema
from ifworld.runs.expert_tables import ExpertTables
from ifworld.runs.lease import BOOT, Lease, lease_alive
from ifworld.runs.rows import (
    KINDS as KINDS,
    RESUMABLE as RESUMABLE,
    SECRET_KEY_RE as SECRET_KEY_RE,
    STATUSES as STATUSES,
    RedactingSerializer as RedactingSerializer,
    RunInfo as RunInfo,
    configured_secret as configured_secret,
    dumps as _dumps,
    new_run_id as new_run_id,
    number as _number,
    scrub as scrub,
)
from ifworld.runs.workshop_tables import WorkshopTables
from ifworld.safe_text import clean_title

BUSY_TIMEOUT_MS = 30_000
WRITE_RETRY_S = 60.0
"""A call-log write that still finds the store busy after ``BUSY_TIMEOUT_MS`` (SQLite's lock held by another
process, a long backup; PostgreSQL restarting) is retried with backoff this long; past it the caller keeps the
record and retries."""
MAX_RETRY_SLEEP_S = 2.0
POSTGRES_MODULE = "ifworld.runs.postgres"
_lease_counter = itertools.count(1)
__all__ = ["MIN_SECRET_CHARS", "RunLive", "RunNotFound", "RunStore", "StoreBusy", "StoreError", "get_store"]
CALL_COLUMNS = ("call_id", "role", "system", "round", "model", "start", "end", "latency_s", "prompt_tokens",
                "completion_tokens", "retries", "status", "error", "output", "output_chars", "output_sha256", "inputs")


class RunLive(WorkflowError, RuntimeError):
    """The run is being driven by another live owner; it cannot be driven twice."""


class RunNotFound(WorkflowError, KeyError):
    """No run has this id (mistyped, or deleted); ``ifworld runs list`` shows the ids there are."""


class StoreBusy(StoreError):
    """Another connection held the store's write lock past the busy timeout (``database is locked``), or the
    PostgreSQL server could not be reached for a moment (restarting): a write may be retried."""


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def store_location(path: str | Path | None = None) -> str:
    """The store a path, URL or ``None`` (``IFWORLD_DB``) names: a PostgreSQL URL or a file path (ConfigError for
    any other URL)."""
    text = str(path) if path else load_settings().store
    return store_url(text) or text


def _migrate_sqlite(conn: sqlite3.Connection, where: str) -> None:
    """Create what is missing, bring an older file up to :data:`schema.SCHEMA_VERSION`, record the version."""
    conn.executescript(schema.RUNS + schema.WORKSHOPS + schema.CUSTOM_EXPERTS)
    found = conn.execute("SELECT value FROM ifw_meta WHERE key='schema_version'").fetchone()
    version = int(found[0]) if found else 1
    schema.check_version(version, where)
    if version < schema.SCHEMA_VERSION:
        for table, columns in schema.LATER_COLUMNS.items():
            have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            for name, sql_type in columns.items():
                if name not in have:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}")
    conn.executescript(schema.INDEXES)
    conn.execute("INSERT INTO ifw_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE "
                 "SET value=excluded.value", (str(max(version, schema.SCHEMA_VERSION)),))
    conn.commit()


class RunStore(WorkshopTables, ExpertTables):
    """The run store: run index + call log + workshop + LangGraph checkpoints (+ optional node cache).

    ``RunStore(path)`` opens a SQLite file; given a ``postgresql://`` URL (or ``IFWORLD_DB`` set to one) it is a
    :class:`ifworld.runs.postgres.PostgresStore`, the same contract on a server that several processes share.
    """

    backend = "sqlite"
    _order = "rowid"  # insertion order, for runs created in the same clock tick
    _like = "LIKE"  # case-insensitive for ASCII in SQLite
    _db_errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __new__(cls, path: str | Path | None = None) -> RunStore:
        if cls is RunStore and store_location(path).lower().startswith("postgres"):
            # by name: psycopg is an extra (imported only when asked for), and that module builds on this one
            backend: type[RunStore] = importlib.import_module(POSTGRES_MODULE).PostgresStore
            return super().__new__(backend)
        return super().__new__(cls)

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(store_location(path))
        self.label = str(self.path)
        """Where the store is, fit to show (a URL's password masked)."""
        self._lock = threading.RLock()
        try:
            private_file(self.path)  # 0600 in a 0700 folder; SQLite's -wal/-shm copy the file's mode
            for extra in ("-wal", "-shm", "-journal"):
                if Path(f"{self.path}{extra}").is_file():
                    private_file(f"{self.path}{extra}")
            self._conn = _connect(self.path)
            with self._lock:
                _migrate_sqlite(self._conn, str(self.path))
            self.checkpointer: Any = SqliteSaver(_connect(self.path), serde=RedactingSerializer())
        except (sqlite3.Error, OSError) as exc:
            raise store_error(self.path, exc) from None
        self._cache: BaseCache[Any] | None = None
        self.busy_waits = 0
        """Writes that found the store busy and waited to retry (read by tests and diagnostics)."""

    # -- plumbing --------------------------------------------------------------------------------
    @contextmanager
    def _tx(self, immediate: bool = False, key: str = "") -> Iterator[Any]:
        """One transaction. ``immediate``: take the write lock first (``key`` narrows it to one run or limit where
        the backend can: PostgreSQL's advisory lock on it; SQLite has one lock per file)."""
        with self._lock:
            try:
                if immediate:  # take the write lock before reading, so read-decide-write is atomic across processes
                    self._conn.execute("BEGIN IMMEDIATE")
                yield self._conn
                self._conn.commit()
            except BaseException as exc:
                self._conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise store_error(self.path, exc) from None
                raise

    def _retry_busy(self, write: Callable[[], None]) -> None:
        """Run ``write``; while it fails with :class:`StoreBusy`, retry with backoff for :data:`WRITE_RETRY_S`."""
        deadline, delay = time.monotonic() + WRITE_RETRY_S, 0.05
        while True:
            try:
                write()
                return
            except StoreBusy:
                if time.monotonic() + delay > deadline:
                    raise
                self.busy_waits += 1
                time.sleep(delay)
                delay = min(MAX_RETRY_SLEEP_S, delay * 2)

    def _read(self, sql: str, args: tuple[Any, ...] | list[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._lock:
            try:
                cur = self._conn.execute(sql, args)
                return [d[0] for d in cur.description], cur.fetchall()
            except self._db_errors as exc:
                raise self._error(exc) from None

    def schema_version(self) -> int:
        """The schema version recorded in the store (:data:`ifworld.runs.schema.SCHEMA_VERSION` once opened)."""
        _, rows = self._read("SELECT value FROM ifw_meta WHERE key='schema_version'")
        return int(rows[0][0]) if rows else 1

    def _error(self, exc: BaseException) -> StoreError:
        return store_error(self.path, exc)

    @property
    def cache(self) -> BaseCache[Any]:
        """LangGraph node cache in the same file (identical node inputs cost no model calls)."""
        if self._cache is None:
            self._cache = SqliteCache(path=str(self.path))
        return self._cache

    def compile(self, builder: Any, *, cache: bool = False) -> Any:
        """Compile a ``StateGraph`` with this store's checkpointer (and node cache if asked)."""
        return builder.compile(checkpointer=self.checkpointer, cache=self.cache if cache else None)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self.checkpointer.conn.close()

    # -- run index -------------------------------------------------------------------------------
    def create_run(self, kind: str, workflow: str, params: dict[str, Any], title: str = "",
                   run_id: str | None = None) -> str:
        if kind not in KINDS:
            raise ValueError(f"unknown run kind {kind!r}; expected one of {KINDS}")
        run_id = run_id or new_run_id(kind)
        now = time.time()
        with self._tx() as c:
            c.execute(
                "INSERT INTO ifw_runs (id, kind, workflow, title, status, params, created, updated, pid, host)"
                " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)",
                (run_id, kind, workflow, redact(clean_title(title, MAX_TITLE_CHARS)) or workflow, _dumps(params),
                 now, now, os.getpid(), os.uname().nodename),
            )
        return run_id

    def set_status(self, run_id: str, status: str, *, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        finished = time.time() if status in ("completed", "failed") else None
        with self._tx() as c:
            c.execute(
                "UPDATE ifw_runs SET status=?, error=?, updated=?, finished=COALESCE(?, finished), pid=?, host=?"
                " WHERE id=?",
                (status, safe_error(error) if error else None, time.time(), finished, os.getpid(),
                 os.uname().nodename, run_id),
            )

    def finish_run(self, run_id: str, record: dict[str, Any], usage: dict[str, Any] | None = None) -> None:
        """Mark completed and store the final record (scrubbed); the lease ends with it."""
        with self._tx() as c:
            c.execute(
                "UPDATE ifw_runs SET status='completed', record=?, usage=?, error=NULL, updated=?, finished=?,"
                " heartbeat=NULL, cancel=NULL WHERE id=?",
                (_dumps(record), _dumps(usage or {}), time.time(), time.time(), run_id),
            )

    def save_partial(self, run_id: str, record: dict[str, Any]) -> None:
        """Store a partial record (e.g. a sweep's finished rows) without changing the status."""
        with self._tx() as c:
            c.execute("UPDATE ifw_runs SET record=?, updated=? WHERE id=?",
                      (_dumps(record), time.time(), run_id))

    def get_run(self, run_id: str) -> RunInfo:
        cols, rows = self._read("SELECT * FROM ifw_runs WHERE id=?", (run_id,))
        if not rows:
            raise RunNotFound(f"no run with id {run_id!r}")
        return self._info(dict(zip(cols, rows[0], strict=True)))

    def list_runs(self, kind: str | None = None, search: str | None = None, limit: int = 500) -> list[RunInfo]:
        """Newest first; ``search`` matches id or title (case-insensitive). A damaged row is listed with its
        problem in ``error`` instead of hiding the others."""
        sql = "SELECT * FROM ifw_runs WHERE 1=1"
        args: list[Any] = []
        if kind:
            sql += " AND kind=?"
            args.append(kind)
        if search:
            sql += f" AND (title {self._like} ? OR id {self._like} ?)"
            args += [f"%{search}%", f"%{search}%"]
        sql += f" ORDER BY created DESC, {self._order} DESC LIMIT ?"
        args.append(limit)
        cols, rows = self._read(sql, args)
        return [self._info(dict(zip(cols, r, strict=True))) for r in rows]

    def _info(self, row: dict[str, Any]) -> RunInfo:
        problems: list[str] = []

        def load(name: str, empty: Any) -> Any:
            text = row.get(name)
            if not text:
                return empty
            try:
                value = json.loads(text)
            except (TypeError, ValueError) as exc:
                problems.append(f"stored {name} is unreadable ({type(exc).__name__})")
                return empty
            except RecursionError:  # JSON nested deeper than the parser reaches: this row only is unusable
                problems.append(f"stored {name} is unreadable (nested too deep)")
                return empty
            return value if isinstance(value, type(empty)) or value is None else empty

        status = str(row.get("status") or "pending")
        if status == "running" and not lease_alive(row):
            status = "interrupted"  # its driver stopped (kill -9, closed page, stale heartbeat): resumable
        error = row.get("error")
        info = RunInfo(
            id=str(row["id"]), kind=str(row.get("kind") or "?"), workflow=str(row.get("workflow") or "?"),
            title=clean_title(str(row.get("title") or ""), MAX_TITLE_CHARS), status=status,
            params=load("params", {}), created=_number(row.get("created")), updated=_number(row.get("updated")),
            finished=row.get("finished") if isinstance(row.get("finished"), int | float) else None,
            record=load("record", {}) or None, usage=load("usage", {}) or {}, error=error,
        )
        if problems:
            info.error = "; ".join([*problems, *([str(error)] if error else [])])
        return info

    def delete_run(self, run_id: str) -> None:
        """Remove the run, its calls and its checkpoints.

        A live driver notices the missing row at its next step, stops, and deletes what it wrote since
        (see :mod:`ifworld.runs`), so nothing is left behind; calls finishing meanwhile are not stored.
        """
        self.get_run(run_id)
        with self._tx(immediate=True, key=run_id) as c:
            c.execute("DELETE FROM ifw_runs WHERE id=?", (run_id,))
            c.execute("DELETE FROM ifw_calls WHERE run_id=?", (run_id,))
            c.execute("DELETE FROM ifw_transitions WHERE run_id=?", (run_id,))
            c.execute("DELETE FROM ifw_workshops WHERE run_id=?", (run_id,))
            c.execute("DELETE FROM ifw_workshop_events WHERE run_id=?", (run_id,))
        self.delete_checkpoints(run_id)

    # -- session transitions (what-if sessions record every move; see ifworld.whatif.session) -----------
    def add_transition(self, run_id: str, *, from_state: str, to_state: str, action: str, source: str,
                       round: int | None = None, detail: str = "") -> None:
        """Append one transition of the run's session (numbered in order; detail is redacted and capped)."""
        with self._tx(immediate=True, key=run_id) as c:
            (seq,) = c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM ifw_transitions WHERE run_id=?",
                               (run_id,)).fetchone()
            c.execute("INSERT INTO ifw_transitions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (run_id, seq, time.time(), from_state, to_state, action, source, round,
                       safe_error(detail) if detail else ""))

    def transitions(self, run_id: str) -> list[dict[str, Any]]:
        """The run's recorded session transitions, oldest first."""
        cols, rows = self._read("SELECT at, from_state, to_state, action, source, round, detail FROM "
                                "ifw_transitions WHERE run_id=? ORDER BY seq", (run_id,))
        return [dict(zip(cols, row, strict=True)) for row in rows]

    def delete_checkpoints(self, run_id: str) -> None:
        try:
            self.checkpointer.delete_thread(run_id)
        except self._db_errors as exc:
            raise self._error(exc) from None

    # -- lease and cancel ------------------------------------------------------------------------
    def acquire_lease(self, run_id: str) -> str:
        """Become the run's only driver: status running, owner = this process; returns the lease token.

        Raises :class:`RunLive` while another owner's lease is fresh, :class:`RunNotFound` (a ``KeyError``) for an
        unknown run. The check and the write happen in one write transaction, so two processes cannot both win.
        """
        token = f"{BOOT}:{next(_lease_counter)}"
        host, pid, now = os.uname().nodename, os.getpid(), time.time()
        with self._tx(immediate=True, key=run_id) as c:
            cur = c.execute("SELECT * FROM ifw_runs WHERE id=?", (run_id,))
            cols, found = [d[0] for d in cur.description], cur.fetchone()
            if found is None:
                raise RunNotFound(f"no run with id {run_id!r}")
            row = dict(zip(cols, found, strict=True))
            if row["status"] == "running" and lease_alive(row, now):
                beat = f", heartbeat {now - row['heartbeat']:.0f} s ago" if row.get("heartbeat") else ""
                raise RunLive(f"run {run_id} is live in process {row.get('pid')} on host {row.get('host')}"
                              f"{beat}; it cannot be driven twice — wait for it, or cancel it first")
            c.execute("UPDATE ifw_runs SET status='running', pid=?, host=?, owner=?, heartbeat=?, cancel=NULL,"
                      " updated=? WHERE id=?", (pid, host, token, now, now, run_id))
        return token

    def renew_lease(self, run_id: str, token: str) -> bool:
        """Refresh the heartbeat; False when the lease is no longer ours (released, taken over, deleted)."""
        with self._tx() as c:
            cur = c.execute("UPDATE ifw_runs SET heartbeat=? WHERE id=? AND owner=? AND status='running'",
                            (time.time(), run_id, token))
            return bool(cur.rowcount == 1)

    def release_lease(self, run_id: str, token: str, status: str, *, error: str | None = None) -> None:
        """End our lease with a final status (never overwriting a run another owner has taken over)."""
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        finished = time.time() if status in ("completed", "failed") else None
        with self._tx() as c:
            c.execute("UPDATE ifw_runs SET status=?, error=COALESCE(?, error), heartbeat=NULL, updated=?,"
                      " finished=COALESCE(?, finished) WHERE id=? AND owner=? AND status='running'",
                      (status, safe_error(error) if error else None, time.time(), finished, run_id, token))

    def request_cancel(self, run_id: str) -> bool:
        """Ask the run's driver to stop at its next step boundary; True if the run is live."""
        with self._tx() as c:
            c.execute("UPDATE ifw_runs SET cancel=?, updated=? WHERE id=?", (time.time(), time.time(), run_id))
        return self.get_run(run_id).status == "running"

    def cancel_requested(self, run_id: str) -> bool | None:
        """True when a cancel is pending, False when not, None when the run no longer exists (deleted)."""
        _, rows = self._read("SELECT cancel FROM ifw_runs WHERE id=?", (run_id,))
        return None if not rows else rows[0][0] is not None

    @contextmanager
    def lease(self, run_id: str) -> Iterator[Lease]:
        """Hold the run's lease for the block (heartbeat thread included); released as interrupted on error.

        The block sets ``lease.status`` (default ``completed``) for a normal exit.
        """
        held = Lease(self, run_id, self.acquire_lease(run_id))
        held.start()
        try:
            yield held
        except BaseException as exc:
            held.stop()
            self.release_lease(run_id, held.token, "interrupted",
                               error=None if isinstance(exc, GeneratorExit) else safe_error(exc))
            raise
        held.stop()
        if held.status != "completed":
            self.release_lease(run_id, held.token, held.status, error=held.error)

    # -- calls -----------------------------------------------------------------------------------
    def add_call(self, run_id: str, call: dict[str, Any]) -> None:
        """Insert or update one call's accounting (called as calls finish, so a crash loses nothing).

        A call of a run that was deleted meanwhile is dropped, so deleting a live run leaves no rows.
        """
        cols = CALL_COLUMNS
        values = [call.get(k) for k in cols]
        output = json.loads(_dumps(call.get("output") or ""))
        values[cols.index("output")] = cut_text(clean_text(output)) if isinstance(output, str) else json.dumps(output)
        values[cols.index("error")] = safe_error(str(call.get("error") or "")) or ""
        values[cols.index("inputs")] = json.dumps(call["inputs"]) if call.get("inputs") else None

        names = [f'"{k}"' for k in cols]
        sql = (f"INSERT INTO ifw_calls (run_id, {', '.join(names)}) VALUES (?{', ?' * len(cols)}) ON CONFLICT "
               f"(run_id, call_id) DO UPDATE SET {', '.join(f'{n}=excluded.{n}' for n in names[1:])}")

        def write() -> None:
            with self._tx(immediate=True, key=run_id) as c:
                if c.execute("SELECT 1 FROM ifw_runs WHERE id=?", (run_id,)).fetchone():
                    c.execute(sql, [run_id, *values])

        self._retry_busy(write)

    def calls(self, run_id: str) -> list[dict[str, Any]]:
        cols, rows = self._read("SELECT * FROM ifw_calls WHERE run_id=? ORDER BY start", (run_id,))
        out = [dict(zip(cols, r, strict=True)) for r in rows]
        for row in out:
            row["inputs"] = json.loads(row["inputs"]) if row.get("inputs") else None
        return out

    # -- checkpoints -----------------------------------------------------------------------------
    def history(self, graph: Any, run_id: str) -> list[Any]:
        """The run's checkpoint history, oldest first (for step-by-step replay)."""
        return list(reversed(list(graph.get_state_history({"configurable": {"thread_id": run_id}}))))

    def has_checkpoint(self, run_id: str) -> bool:
        return self.checkpointer.get_tuple({"configurable": {"thread_id": run_id}}) is not None


def store_error(path: Path, exc: BaseException) -> StoreError:
    """A :class:`StoreError` naming the file, what is wrong and a way out."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(safe_error(f"run store {path}: {type(exc).__name__}: {text} — another process holds its "
                                    "write lock; try again when it is done"))
    if "not a database" in text or "malformed" in text or "file is encrypted" in text:
        hint = (f"the file is not a readable run store (corrupt?). Move it aside (mv '{path}' '{path}.bad') "
                "or point IFWORLD_DB at another file; nothing else is lost")
    elif "readonly" in text or "read-only" in text or "Permission denied" in text or "unable to open" in text:
        hint = ("it cannot be written here (read-only directory or file?). Set IFWORLD_DB to a writable path, "
                "e.g. IFWORLD_DB=/tmp/ifworld-runs.sqlite")
    elif "full" in text or "No space" in text:
        hint = "the disk is full. Free some space or set IFWORLD_DB to a file on another disk"
    else:
        hint = "set IFWORLD_DB to another file if this persists"
    return StoreError(safe_error(f"run store {path}: {type(exc).__name__}: {text} — {hint}"))


_stores: dict[str, RunStore] = {}
_stores_lock = threading.Lock()


def get_store(path: str | Path | None = None) -> RunStore:
    """A process-wide store per file or URL (one connection pair, or pool, shared by threads)."""
    resolved = store_location(path)
    with _stores_lock:
        if resolved not in _stores:
            _stores[resolved] = RunStore(resolved)
        return _stores[resolved]
