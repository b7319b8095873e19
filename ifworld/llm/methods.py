"""Which structured-output method an endpoint takes, remembered per (endpoint, model).

``auto`` probes once (see :mod:`ifworld.llm`); the answer lives in this process and in the run store, so the
app and the CLI share it and a new process does not probe again.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ifworld.config import STRUCTURED_METHODS, Settings

TABLE = """CREATE TABLE IF NOT EXISTS ifw_structured_methods (
    endpoint TEXT NOT NULL, model TEXT NOT NULL, method TEXT NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (endpoint, model))"""  # the same table as :mod:`ifworld.runs.schema` makes (on either backend)
UPSERT = ("INSERT INTO ifw_structured_methods (endpoint, model, method, updated) VALUES (?, ?, ?, ?) "
          "ON CONFLICT (endpoint, model) DO UPDATE SET method=excluded.method, updated=excluded.updated")
_methods: dict[tuple[str, str], str] = {}  # (endpoint, model) -> method that worked, mirrored in the store
_probe_locks: dict[tuple[str, str], threading.Lock] = {}


def endpoint_key(settings: Settings, role: str) -> tuple[str, str]:
    """(endpoint, model) the structured method is remembered for; credentials in the URL are dropped."""
    url = settings.base_url or "https://api.openai.com/v1"
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", "")), settings.model_for(role)


def known_method(settings: Settings, role: str) -> str | None:
    """The method ``auto`` settled on for this endpoint and role's model (None: not probed yet)."""
    if settings.structured_method != "auto":
        return settings.structured_method
    key = endpoint_key(settings, role)
    if key not in _methods:
        stored = stored_method(settings, role)
        if stored in STRUCTURED_METHODS:
            _methods[key] = stored
    return _methods.get(key)


def remember(settings: Settings, role: str, method: str) -> None:
    key = endpoint_key(settings, role)
    if _methods.get(key) != method:
        _methods[key] = method
        _stored(settings, UPSERT, (*key, method, time.time()))


def stored_method(settings: Settings, role: str) -> str | None:
    """The method remembered in the run store for this endpoint and role's model (other processes too)."""
    rows = _stored(settings, "SELECT method FROM ifw_structured_methods WHERE endpoint=? AND model=?",
                   endpoint_key(settings, role))
    return rows[0][0] if rows else None


def _stored(settings: Settings, sql: str, args: tuple[Any, ...]) -> list[Any]:
    """Run one statement on the method table that lives in the run store (SQLite file or PostgreSQL).

    The model layer sits below the run store, so it keeps this one table with a connection of its own
    instead of importing the store; the table is a cache, and an unusable store only costs a re-probe.
    """
    if settings.db_url:
        return _stored_postgres(settings.db_url, sql, args)
    try:
        with closing(sqlite3.connect(settings.db_path, timeout=5)) as conn, conn:
            conn.execute(TABLE)
            return conn.execute(sql, args).fetchall()
    except (sqlite3.Error, OSError):
        return []


def _stored_postgres(url: str, sql: str, args: tuple[Any, ...]) -> list[Any]:
    try:
        import psycopg
    except ImportError:
        return []
    try:
        with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
            conn.execute(TABLE)
            cur = conn.execute(sql.replace("?", "%s"), args)
            return cur.fetchall() if cur.description else []
    except psycopg.Error:
        return []


def chain(settings: Settings, role: str) -> list[str]:
    if settings.structured_method != "auto":
        return [settings.structured_method]
    start = known_method(settings, role)
    return list(STRUCTURED_METHODS[STRUCTURED_METHODS.index(start):] if start else STRUCTURED_METHODS)
