"""The run store's tables, written once for both backends, and the recorded schema version with its migrations.

The SQL here is the portable subset SQLite and PostgreSQL share (``ON CONFLICT`` upserts, quoted ``"end"`` and
``"window"``, which PostgreSQL reserves); :func:`postgres_ddl` turns SQLite's ``REAL`` into ``DOUBLE PRECISION``
(PostgreSQL's ``REAL`` is 4 bytes: timestamps would lose their seconds) and numbers runs in insertion order.

``ifw_meta`` records ``schema_version``. A store without it is version 1 (files written before versions were
recorded); opening migrates it forward (:data:`LATER_COLUMNS` added, indexes made) and records
:data:`SCHEMA_VERSION`. A store written by a newer IF-World is refused instead of being half-understood.
"""

from __future__ import annotations

from ifworld.errors import StoreError

SCHEMA_VERSION = 3
"""1: files before versions were recorded; 2: ``ifw_meta`` + the first :data:`LATER_COLUMNS`; 3: ``ifw_calls.inputs``
(what share of each input reached the prompt, :mod:`ifworld.llm.packing`)."""

RUNS = """
CREATE TABLE IF NOT EXISTS ifw_runs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, workflow TEXT NOT NULL, title TEXT NOT NULL,
    status TEXT NOT NULL, params TEXT NOT NULL, record TEXT, usage TEXT, error TEXT,
    created REAL NOT NULL, updated REAL NOT NULL, finished REAL, pid INTEGER, host TEXT,
    owner TEXT, heartbeat REAL, cancel REAL
);
CREATE INDEX IF NOT EXISTS ifw_runs_created ON ifw_runs (created DESC);
CREATE TABLE IF NOT EXISTS ifw_calls (
    run_id TEXT NOT NULL, call_id TEXT NOT NULL, role TEXT, system TEXT, round INTEGER, model TEXT,
    start REAL, "end" REAL, latency_s REAL, prompt_tokens INTEGER, completion_tokens INTEGER,
    retries INTEGER, status TEXT, error TEXT, output TEXT, output_chars INTEGER, output_sha256 TEXT, inputs TEXT,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS ifw_transitions (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, from_state TEXT NOT NULL,
    to_state TEXT NOT NULL, action TEXT NOT NULL, source TEXT NOT NULL, round INTEGER, detail TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS ifw_structured_methods (
    endpoint TEXT NOT NULL, model TEXT NOT NULL, method TEXT NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (endpoint, model)
);
CREATE TABLE IF NOT EXISTS ifw_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# ``secret_hash`` held a per-workshop facilitator secret before roles were decided by the server
# (:mod:`ifworld.access`); it stays in the table so older store files open unchanged, and new rows leave it empty.
WORKSHOPS = """
CREATE TABLE IF NOT EXISTS ifw_workshops (
    run_id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, code TEXT NOT NULL UNIQUE, secret_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ifw_workshop_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
    actor TEXT, ref TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS ifw_rate_limits (key TEXT PRIMARY KEY, "window" REAL NOT NULL, hits INTEGER NOT NULL);
"""
# ``seq`` ends each index so "… ORDER BY seq" is answered from the index: without it SQLite preferred the primary
# key's order and walked every event of the run (1.2 ms per look-up at 10,000 events, against 4 µs).
INDEXES = """
CREATE INDEX IF NOT EXISTS ifw_workshop_events_actor ON ifw_workshop_events (run_id, kind, actor, seq);
CREATE INDEX IF NOT EXISTS ifw_workshop_events_ref ON ifw_workshop_events (run_id, kind, ref, seq);
"""
# A facilitator's own expert domains (name, persona), written on the What-if page: store-wide, not a run's rows
# (runs record the personas they used), so ``ifworld runs copy`` does not move them.
CUSTOM_EXPERTS = """
CREATE TABLE IF NOT EXISTS ifw_custom_experts (
    name TEXT PRIMARY KEY, label TEXT NOT NULL UNIQUE, persona TEXT NOT NULL, created REAL NOT NULL,
    created_by TEXT NOT NULL
);
"""
LATER_COLUMNS = {
    "ifw_runs": {"owner": "TEXT", "heartbeat": "REAL", "cancel": "REAL"},
    "ifw_calls": {"output_chars": "INTEGER", "output_sha256": "TEXT", "inputs": "TEXT"},
    "ifw_workshop_events": {"actor": "TEXT", "ref": "TEXT"},
}
"""Columns added after the first release: added to an older store when it is opened (version 1 → 2)."""

COPIED = {
    "ifw_runs": ("id", "kind", "workflow", "title", "status", "params", "record", "usage", "error", "created",
                 "updated", "finished", "pid", "host", "owner", "heartbeat", "cancel"),
    "ifw_calls": ("run_id", "call_id", "role", "system", "round", "model", "start", '"end"', "latency_s",
                  "prompt_tokens", "completion_tokens", "retries", "status", "error", "output", "output_chars",
                  "output_sha256", "inputs"),
    "ifw_transitions": ("run_id", "seq", "at", "from_state", "to_state", "action", "source", "round", "detail"),
    "ifw_workshops": ("run_id", "token", "code", "secret_hash", "created"),
    "ifw_workshop_events": ("run_id", "seq", "at", "kind", "data", "actor", "ref"),
}
"""A run's rows, table by table (each table has ``run_id`` or, for runs, ``id``): what ``ifworld runs copy``
moves besides the run's checkpoints."""


def postgres_ddl(sql: str) -> str:
    """The portable DDL above in PostgreSQL's types (8-byte floats; runs numbered in insertion order)."""
    sql = sql.replace(" REAL", " DOUBLE PRECISION")
    return sql.replace("owner TEXT, heartbeat DOUBLE PRECISION, cancel DOUBLE PRECISION\n",
                       "owner TEXT, heartbeat DOUBLE PRECISION, cancel DOUBLE PRECISION, n BIGSERIAL\n")


def check_version(found: int, where: str) -> None:
    """Refuse a store written by a newer IF-World (its tables may mean things this version does not know)."""
    if found > SCHEMA_VERSION:
        raise StoreError(f"run store {where} has schema version {found}, newer than this IF-World knows "
                         f"({SCHEMA_VERSION}); upgrade ifworld, or point IFWORLD_DB at another store")
