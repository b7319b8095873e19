"""SQLite run store: the run index and per-call usage, beside LangGraph's checkpointer in the same file.

The checkpointer (``langgraph-checkpoint-sqlite``) gives durability and resume: every LLM workflow is a
compiled ``StateGraph`` whose thread id is the run id. This module only adds what LangGraph does not keep:
which runs exist (kind, title, params, status, final record, usage) and each model call's accounting.
Several processes may write at once (WAL + busy timeout). Secrets never reach the file: params are
scrubbed of anything that looks like a key before they are written.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from langgraph.cache.sqlite import SqliteCache
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from ifworld import config
from ifworld.config import load_settings

KINDS = ("whatif", "rws", "beliefs")
STATUSES = ("pending", "running", "interrupted", "cancelled", "failed", "completed", "paused")
# Key names that hold credentials ("access_token", "api_key"); usage counters like "prompt_tokens" are kept.
SECRET_KEY_RE = re.compile(r"(api[_-]?key|secret|passw(or)?d|authorization|bearer|(^|[_-])token$)", re.I)
BUSY_TIMEOUT_MS = 30_000
MIN_SECRET_CHARS = 8  # shorter "keys" (e.g. "none" for local servers) would redact ordinary words

SCHEMA = """
CREATE TABLE IF NOT EXISTS ifw_runs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, workflow TEXT NOT NULL, title TEXT NOT NULL,
    status TEXT NOT NULL, params TEXT NOT NULL, record TEXT, usage TEXT, error TEXT,
    created REAL NOT NULL, updated REAL NOT NULL, finished REAL, pid INTEGER, host TEXT
);
CREATE INDEX IF NOT EXISTS ifw_runs_created ON ifw_runs (created DESC);
CREATE TABLE IF NOT EXISTS ifw_calls (
    run_id TEXT NOT NULL, call_id TEXT NOT NULL, role TEXT, system TEXT, round INTEGER, model TEXT,
    start REAL, end REAL, latency_s REAL, prompt_tokens INTEGER, completion_tokens INTEGER,
    retries INTEGER, status TEXT, error TEXT, output TEXT,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS ifw_structured_methods (
    endpoint TEXT NOT NULL, model TEXT NOT NULL, method TEXT NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (endpoint, model)
);
"""


def scrub(value: Any) -> Any:
    """Drop secret-looking keys from nested params before they are stored or exported."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not SECRET_KEY_RE.search(str(k))}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def configured_secret() -> str | None:
    """The configured API key (env or secrets.toml), looked up cheaply: checkpoints call this per write."""
    env = (os.environ.get("IFWORLD_API_KEY"), os.environ.get("OPENAI_API_KEY"))
    stamps = tuple(p.stat().st_mtime if p.is_file() else None for p in config.SECRETS_FILES)
    return _secret_for(env, stamps)


@lru_cache(maxsize=8)
def _secret_for(env: tuple, stamps: tuple) -> str | None:
    key = load_settings().api_key
    return key.get_secret_value() if key and len(key.get_secret_value()) >= MIN_SECRET_CHARS else None


def _dumps(value: Any) -> str:
    """JSON for the file, scrubbed, with the configured key redacted wherever it might hide in text."""
    text = json.dumps(scrub(value), default=str)
    secret = configured_secret()
    return text.replace(secret, "[redacted]") if secret else text


class RedactingSerializer(JsonPlusSerializer):
    """Checkpoint serializer that masks the configured API key, byte for byte, wherever it appears.

    Same-length masking keeps msgpack length prefixes valid, so checkpoints still load.
    """

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = super().dumps_typed(obj)
        secret = configured_secret()
        if secret:
            data = data.replace(secret.encode(), b"*" * len(secret.encode()))
        return kind, data


def new_run_id(kind: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{kind}-{stamp}-{secrets.token_hex(3)}"


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


@dataclass
class RunInfo:
    id: str
    kind: str
    workflow: str
    title: str
    status: str
    params: dict[str, Any]
    created: float
    updated: float
    finished: float | None = None
    record: dict[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def created_iso(self) -> str:
        return datetime.fromtimestamp(self.created, timezone.utc).isoformat(timespec="seconds")

    def summary(self) -> dict[str, Any]:
        """The ``ifworld runs list --json`` row (a CLI contract)."""
        return {"id": self.id, "kind": self.kind, "status": self.status, "created": self.created_iso,
                "title": self.title}


class RunStore:
    """One SQLite file: run index + call log + LangGraph checkpoints (+ optional node cache)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else load_settings().db_path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = _connect(self.path)
        self._lock = threading.RLock()
        with self._lock:
            self._conn.executescript(SCHEMA)
            self._conn.commit()
        self.checkpointer = SqliteSaver(_connect(self.path), serde=RedactingSerializer())
        self._cache: SqliteCache | None = None

    # -- plumbing --------------------------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._conn
                self._conn.commit()
            except BaseException:
                self._conn.rollback()
                raise

    @property
    def cache(self) -> SqliteCache:
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
                (run_id, kind, workflow, title[:300] or workflow, _dumps(params), now, now,
                 os.getpid(), os.uname().nodename),
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
                (status, error, time.time(), finished, os.getpid(), os.uname().nodename, run_id),
            )

    def finish_run(self, run_id: str, record: dict[str, Any], usage: dict[str, Any] | None = None) -> None:
        """Mark completed and store the final record (scrubbed)."""
        with self._tx() as c:
            c.execute(
                "UPDATE ifw_runs SET status='completed', record=?, usage=?, error=NULL, updated=?, finished=?"
                " WHERE id=?",
                (_dumps(record), _dumps(usage or {}), time.time(), time.time(), run_id),
            )

    def save_partial(self, run_id: str, record: dict[str, Any]) -> None:
        """Store a partial record (e.g. a sweep's finished rows) without changing the status."""
        with self._tx() as c:
            c.execute("UPDATE ifw_runs SET record=?, updated=? WHERE id=?",
                      (_dumps(record), time.time(), run_id))

    def get_run(self, run_id: str) -> RunInfo:
        with self._lock:
            row = self._conn.execute("SELECT * FROM ifw_runs WHERE id=?", (run_id,)).fetchone()
            cols = [d[0] for d in self._conn.execute("SELECT * FROM ifw_runs LIMIT 0").description]
        if row is None:
            raise KeyError(f"no run with id {run_id!r}")
        return self._info(dict(zip(cols, row, strict=True)))

    def list_runs(self, kind: str | None = None, search: str | None = None, limit: int = 500) -> list[RunInfo]:
        """Newest first; ``search`` matches id or title (case-insensitive)."""
        sql, args = "SELECT * FROM ifw_runs WHERE 1=1", []
        if kind:
            sql += " AND kind=?"
            args.append(kind)
        if search:
            sql += " AND (title LIKE ? OR id LIKE ?)"
            args += [f"%{search}%", f"%{search}%"]
        sql += " ORDER BY created DESC LIMIT ?"
        args.append(limit)
        with self._lock:
            cur = self._conn.execute(sql, args)
            cols = [d[0] for d in cur.description]
            rows = cur.fetchall()
        return [self._info(dict(zip(cols, r, strict=True))) for r in rows]

    def _info(self, row: dict[str, Any]) -> RunInfo:
        status = row["status"]
        if status == "running" and not _alive(row.get("pid"), row.get("host")):
            status = "interrupted"  # its process died (kill -9, closed browser): resumable
        return RunInfo(
            id=row["id"], kind=row["kind"], workflow=row["workflow"], title=row["title"], status=status,
            params=json.loads(row["params"]), created=row["created"], updated=row["updated"],
            finished=row["finished"], record=json.loads(row["record"]) if row["record"] else None,
            usage=json.loads(row["usage"]) if row["usage"] else {}, error=row["error"],
        )

    def delete_run(self, run_id: str) -> None:
        """Remove the run, its calls and its checkpoints."""
        self.get_run(run_id)
        with self._tx() as c:
            c.execute("DELETE FROM ifw_runs WHERE id=?", (run_id,))
            c.execute("DELETE FROM ifw_calls WHERE run_id=?", (run_id,))
        self.checkpointer.delete_thread(run_id)

    # -- calls -----------------------------------------------------------------------------------
    def add_call(self, run_id: str, call: dict[str, Any]) -> None:
        """Insert or update one call's accounting (called as calls finish, so a crash loses nothing)."""
        cols = ("call_id", "role", "system", "round", "model", "start", "end", "latency_s", "prompt_tokens",
                "completion_tokens", "retries", "status", "error", "output")
        values = [call.get(k) for k in cols]
        values[cols.index("output")] = json.loads(_dumps(call.get("output") or ""))
        values[cols.index("error")] = json.loads(_dumps(call.get("error") or ""))
        with self._tx() as c:
            c.execute(
                f"INSERT OR REPLACE INTO ifw_calls (run_id, {', '.join(cols)}) VALUES (?{', ?' * len(cols)})",
                [run_id, *values],
            )

    def calls(self, run_id: str) -> list[dict[str, Any]]:
        with self._lock:
            cur = self._conn.execute("SELECT * FROM ifw_calls WHERE run_id=? ORDER BY start", (run_id,))
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    # -- structured-output method per endpoint (what ``auto`` found works; shared by app and CLI) ----
    def structured_method(self, endpoint: str, model: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT method FROM ifw_structured_methods WHERE endpoint=? AND model=?",
                                     (endpoint, model)).fetchone()
        return row[0] if row else None

    def remember_structured_method(self, endpoint: str, model: str, method: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO ifw_structured_methods VALUES (?, ?, ?, ?)",
                      (endpoint, model, method, time.time()))

    # -- checkpoints -----------------------------------------------------------------------------
    def history(self, graph: Any, run_id: str) -> list[Any]:
        """The run's checkpoint history, oldest first (for step-by-step replay)."""
        return list(reversed(list(graph.get_state_history({"configurable": {"thread_id": run_id}}))))

    def has_checkpoint(self, run_id: str) -> bool:
        return self.checkpointer.get_tuple({"configurable": {"thread_id": run_id}}) is not None


def _alive(pid: int | None, host: str | None) -> bool:
    if not pid or host != os.uname().nodename:
        return True  # another machine's run: trust its status
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_stores: dict[str, RunStore] = {}
_stores_lock = threading.Lock()


def get_store(path: str | Path | None = None) -> RunStore:
    """A process-wide store per file (one connection pair shared by threads)."""
    resolved = str(Path(path) if path else load_settings().db_path)
    with _stores_lock:
        if resolved not in _stores:
            _stores[resolved] = RunStore(resolved)
        return _stores[resolved]
