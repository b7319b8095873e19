"""The run store on PostgreSQL: the same contract as the SQLite file, for several app processes or machines.

``IFWORLD_DB=postgresql://user:password@host:port/database`` selects it (:class:`~ifworld.runs.store.RunStore`
becomes a :class:`PostgresStore`). Connections come from ``psycopg_pool`` pools (one for the store's tables,
one for LangGraph's own ``PostgresSaver``, which keeps the checkpoints); each connection is checked before use,
so a server restart costs the next statement a reconnect, not the process. SQL is written once in the portable
subset (:mod:`ifworld.runs.schema`); here ``?`` becomes ``%s``.

Locks: where SQLite takes its one write lock (``BEGIN IMMEDIATE``), a transaction here takes a transaction-level
advisory lock on the run (or rate-limit key) it decides about, so read-decide-write stays atomic across
processes (one vote per person, one driver per run) while two workshops never wait for each other.

The URL's password never leaves this module in text: the store's :attr:`label` and every error mask it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ifworld.errors import ConfigError, StoreError
from ifworld.redact import redact_url, safe_error
from ifworld.runs import schema
from ifworld.runs.patience import STORE_WAIT
from ifworld.runs.rows import RedactingSerializer
from ifworld.runs.store import RunStore, StoreBusy, store_location

try:
    import psycopg
    from langgraph.cache.memory import InMemoryCache
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool
except ImportError as exc:  # pragma: no cover — the extra is not installed
    raise ConfigError("IFWORLD_DB is a postgresql:// URL but the PostgreSQL driver is not installed: "
                      "pip install 'ifworld[postgres]' (psycopg, psycopg-pool, langgraph-checkpoint-postgres)"
                      ) from exc

POOL_MAX = 8
"""Connections per pool and process (the store's; the checkpointer has its own): threads beyond wait."""
CONNECT_TIMEOUT_S = 10
POOL_WAIT_S = 30.0
"""How long a statement waits for a connection (all busy, or the server restarting) before ``StoreBusy``."""
SETUP_LOCK = 0x1F_3011_D
"""Session advisory lock held while one process creates or migrates the tables (others wait, then see them)."""
RETRYABLE = ("57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "40001", "40P01")
"""SQLSTATEs of a server shutting down or restarting, a lost connection, a serialization failure or deadlock."""


def _wait() -> float:
    """Seconds a store call waits for a connection: :func:`~ifworld.runs.store.store_patience`'s, else the pool's."""
    wait = STORE_WAIT.get()
    return POOL_WAIT_S if wait is None else wait


def pg_sql(sql: str) -> str:
    """The portable ``?`` SQL in psycopg's placeholders (our SQL has no literal ``%`` or ``?`` in strings)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgConn:
    """A connection in a transaction that takes the store's ``?`` SQL (what :class:`EventLog` and the store use)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        if sql.lstrip()[:12].upper() == "CREATE TABLE":  # a table a mixin makes on first use: REAL is 4 bytes here
            sql = schema.postgres_ddl(sql)
        return self._conn.execute(pg_sql(sql), tuple(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(pg_sql(sql), rows)


class PostgresStore(RunStore):
    """Run index, call log, workshop, rate limits and method memory in PostgreSQL; checkpoints by PostgresSaver."""

    backend = "postgres"
    _order = "n"  # BIGSERIAL: insertion order
    _like = "ILIKE"  # SQLite's LIKE ignores ASCII case
    _db_errors = (psycopg.Error,)

    def __init__(self, path: str | Path | None = None) -> None:
        self.url = store_location(path)
        self.label = redact_url(self.url)
        # Files some workflows write beside the store (a sweep's table) go to ~/.ifworld; the name tells stores apart.
        digest = hashlib.sha256(self.label.encode()).hexdigest()[:12]
        self.path = Path.home() / ".ifworld" / f"postgres-{digest}.store"
        self._lock = threading.RLock()
        self._cache = None
        self.busy_waits = 0
        # The store's own pool checks no connection on the way out (a round trip before every read, half of a
        # participant's redraw on a loaded machine in the 30-participant benchmark): a read that finds its
        # connection broken (the server restarted) has the pool discard the broken ones and tries once more, and
        # a write checks its connection itself. LangGraph's checkpoint pool keeps the pool's check.
        self._pool = self._open_pool({"autocommit": True}, "ifworld-store", check=False)
        self._saver_pool = self._open_pool({"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
                                           "ifworld-checkpoints")
        self.checkpointer = PostgresSaver(self._saver_pool, serde=RedactingSerializer())
        try:
            self._setup()
        except psycopg.Error as exc:
            self.close()
            raise self._error(exc) from None
        except BaseException:
            self.close()
            raise

    def _open_pool(self, kwargs: dict[str, Any], name: str, *, check: bool = True) -> ConnectionPool[Any]:
        pool: ConnectionPool[Any] = ConnectionPool(
            self.url, min_size=1, max_size=POOL_MAX, open=False, name=name, timeout=POOL_WAIT_S,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S, **kwargs},
            check=ConnectionPool.check_connection if check else None)
        try:
            pool.open(wait=True, timeout=min(CONNECT_TIMEOUT_S, _wait()))
        except psycopg.Error as exc:
            pool.close()
            raise StoreError(safe_error(f"run store {self.label}: cannot connect ({type(exc).__name__}: "
                                        f"{redact_url(str(exc))}) — is the server running, and are the host, "
                                        "port, user and database in IFWORLD_DB right?")) from None
        return pool

    def _setup(self) -> None:
        """Create or migrate the tables and LangGraph's, one process at a time; record the schema version."""
        with self._pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))
            try:
                with conn.transaction():
                    conn.execute(schema.postgres_ddl(schema.RUNS + schema.WORKSHOPS + schema.CUSTOM_EXPERTS))
                    found = conn.execute("SELECT value FROM ifw_meta WHERE key='schema_version'").fetchone()
                    version = int(found[0]) if found else 1
                    schema.check_version(version, self.label)
                    for table, columns in schema.LATER_COLUMNS.items():
                        for name, sql_type in columns.items():
                            conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {name} "
                                         f"{schema.postgres_ddl(' ' + sql_type).strip()}")
                    conn.execute(schema.INDEXES)
                    # A room's log grows fast: fresh statistics keep the planner on the (kind, actor|ref) indexes —
                    # stale ones (a table thought tiny) made it walk the run's primary key, ~1 ms at 10,000 events.
                    conn.execute("ALTER TABLE ifw_workshop_events SET (autovacuum_analyze_scale_factor = 0.02, "
                                 "autovacuum_analyze_threshold = 200)")
                    conn.execute("INSERT INTO ifw_meta (key, value) VALUES ('schema_version', %s) ON CONFLICT (key)"
                                 " DO UPDATE SET value=excluded.value", (str(max(version, schema.SCHEMA_VERSION)),))
                self.checkpointer.setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))

    @contextmanager
    def _tx(self, immediate: bool = False, key: str = "") -> Iterator[Any]:
        try:
            with self._checked_connection() as conn, conn.transaction():
                if immediate:  # read-decide-write atomic across processes, per run (or rate-limit key)
                    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key or "ifworld",))
                yield PgConn(conn)
        except psycopg.Error as exc:
            raise self._error(exc) from None

    @contextmanager
    def _checked_connection(self) -> Iterator[Any]:
        """A pooled connection that answered a round trip (for writes: a transaction never starts on a connection
        the server dropped); broken ones are discarded, up to the pool's size, then the error is the caller's."""
        for attempt in range(POOL_MAX + 1):
            with self._pool.connection(timeout=_wait()) as conn:
                try:
                    ConnectionPool.check_connection(conn)
                except psycopg.OperationalError:
                    if attempt == POOL_MAX:
                        raise
                    continue  # returned broken: the pool discards it and opens another
                yield conn
                return

    def _read(self, sql: str, args: tuple[Any, ...] | list[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        try:
            return self._read_once(sql, args)
        except psycopg.OperationalError:
            self._pool.check()  # the server restarted: drop every broken idle connection, then once more
        except psycopg.Error as exc:
            raise self._error(exc) from None
        try:
            return self._read_once(sql, args)
        except psycopg.Error as exc:
            raise self._error(exc) from None

    def _read_once(self, sql: str, args: tuple[Any, ...] | list[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._pool.connection(timeout=_wait()) as conn:
            cur = conn.execute(pg_sql(sql), tuple(args))
            return [d.name for d in cur.description or ()], cur.fetchall()

    def _error(self, exc: BaseException) -> StoreError:
        """A :class:`StoreError` naming the server (password masked); :class:`StoreBusy` when a retry may work."""
        code = getattr(exc, "sqlstate", None) or ""
        text = redact_url(str(exc).strip())
        where = f"run store {self.label}: {type(exc).__name__}: {text}"
        if code in RETRYABLE or isinstance(exc, psycopg.OperationalError):
            return StoreBusy(safe_error(f"{where} — the server is unreachable or restarting; try again shortly"))
        return StoreError(safe_error(f"{where} — check the server's log; nothing else is lost"))

    @property
    def cache(self) -> Any:
        """Node cache for this process (in memory: LangGraph has no PostgreSQL cache; it only saves calls)."""
        if self._cache is None:
            self._cache = InMemoryCache()
        return self._cache

    def close(self) -> None:
        for pool in (getattr(self, "_pool", None), getattr(self, "_saver_pool", None)):
            if pool is not None:
                pool.close()
