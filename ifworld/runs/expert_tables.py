"""The run store's ``custom experts`` table: expert domains a facilitator wrote in the app (name, persona).

Rows are written and read by :mod:`ifworld.whatif.custom_experts`, which validates them and checks the caller
first; this mixin only stores text. The table (``CUSTOM_EXPERTS`` in :mod:`ifworld.runs.schema`) is made when
a store is opened, by either backend; the SQL here is the portable subset SQLite and PostgreSQL share (``?``
parameters, no SQLite-only functions), like :mod:`ifworld.runs.workshop_tables`. A run never reads this table
again once started: it records the personas it used in its params.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

TABLE = "ifw_custom_experts"
COLUMNS = ("name", "label", "persona", "created", "created_by")


class ExpertTables:
    """Mixed into :class:`~ifworld.runs.store.RunStore` (which supplies ``_tx`` and ``_read``)."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _read: Callable[..., tuple[list[str], list[tuple[Any, ...]]]]

    def add_custom_expert_row(self, name: str, label: str, persona: str, *, created_by: str = "",
                              replace: bool = False) -> bool:
        """Store one expert; False (nothing written) when ``name`` or ``label`` is taken and not ``replace``
        (``replace`` rewrites the row of the same name, keeping its label)."""
        with self._tx(immediate=True, key=TABLE) as c:
            taken = c.execute(f"SELECT name FROM {TABLE} WHERE name=? OR label=?", (name, label)).fetchall()
            if taken and not (replace and [r[0] for r in taken] == [name]):
                return False
            if taken:
                c.execute(f"UPDATE {TABLE} SET label=?, persona=?, created=?, created_by=? WHERE name=?",
                          (label, persona, time.time(), created_by, name))
            else:
                c.execute(f"INSERT INTO {TABLE} (name, label, persona, created, created_by) VALUES (?, ?, ?, ?, ?)",
                          (name, label, persona, time.time(), created_by))
            return True

    def custom_expert_rows(self) -> list[dict[str, Any]]:
        """Every stored expert, oldest first."""
        cols, rows = self._read(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} ORDER BY created, name")
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def delete_custom_expert_row(self, name: str) -> bool:
        """Remove one expert; False when there was none of that name."""
        with self._tx() as c:
            return c.execute(f"DELETE FROM {TABLE} WHERE name=?", (name,)).rowcount > 0
