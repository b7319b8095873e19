"""Move a store: copy runs — index row, call log, transitions, workshop and checkpoints — from one store to
another (a SQLite file to PostgreSQL, and back), then verify by counts and a replay.

Checkpoints go through LangGraph's own savers on both sides (``list`` on the source, ``put`` and ``put_writes``
on the target, oldest first with each one's parent), so each backend writes its own format. A run id that the
target already holds is refused unless ``overwrite`` (then the target's copy is deleted first); nothing is
written when any id is refused. ``ifworld runs copy --to URL`` is the command.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ifworld.errors import StoreError
from ifworld.runs import schema
from ifworld.runs.store import RunNotFound, RunStore

TABLES = tuple(schema.COPIED)


class RunsExist(StoreError):
    """The target store already holds runs with these ids (``--overwrite`` replaces them)."""


class CopyMismatch(StoreError):
    """A copied run's counts or replay differ from the source's: the copy is not trusted."""


@dataclass
class CopyReport:
    """What was copied, and the counts it was verified by (per table, plus checkpoints and replayed steps)."""

    runs: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def summary(self, source: RunStore, target: RunStore) -> dict[str, Any]:
        return {"from": source.label, "to": target.label, "runs": len(self.runs), **dict(self.counts)}


def _key(table: str) -> str:
    return "id" if table == "ifw_runs" else "run_id"


def run_counts(store: RunStore, run_id: str) -> dict[str, int]:
    """A run's rows per table and its checkpoints (what a copy must reproduce)."""
    out = {}
    for table in TABLES:
        _, rows = store._read(f"SELECT COUNT(*) FROM {table} WHERE {_key(table)}=?", (run_id,))
        out[table] = int(rows[0][0])
    out["checkpoints"] = sum(1 for _ in store.checkpointer.list({"configurable": {"thread_id": run_id}}))
    return out


def _copy_rows(source: RunStore, target: RunStore, run_id: str) -> None:
    with target._tx(immediate=True, key=run_id) as c:
        for table, columns in schema.COPIED.items():
            _, rows = source._read(f"SELECT {', '.join(columns)} FROM {table} WHERE {_key(table)}=?", (run_id,))
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            for row in rows:
                c.execute(sql, row)


def _copy_checkpoints(source: RunStore, target: RunStore, run_id: str) -> None:
    tuples = list(source.checkpointer.list({"configurable": {"thread_id": run_id}}))
    for saved in reversed(tuples):  # oldest first: a parent is written before its children
        conf = saved.config["configurable"]
        parent = (saved.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        into = {"configurable": {"thread_id": run_id, "checkpoint_ns": conf.get("checkpoint_ns", ""),
                                 **({"checkpoint_id": parent} if parent else {})}}
        checkpoint = saved.checkpoint
        written = target.checkpointer.put(into, checkpoint, saved.metadata, dict(checkpoint["channel_versions"]))
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in saved.pending_writes or ():
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            target.checkpointer.put_writes(written, writes, task_id)


def copy_runs(source: RunStore, target: RunStore, run_ids: list[str] | None = None, *,
              overwrite: bool = False) -> CopyReport:
    """Copy ``run_ids`` (default: every run) from ``source`` to ``target`` and verify each by its counts."""
    ids = run_ids or [info.id for info in reversed(source.list_runs(limit=1_000_000))]  # oldest first
    for run_id in ids:
        source.get_run(run_id)  # RunNotFound for a mistyped id, before anything is written
    present = [run_id for run_id in ids if _exists(target, run_id)]
    if present and not overwrite:
        shown = ", ".join(present[:10]) + (f" and {len(present) - 10} more" if len(present) > 10 else "")
        raise RunsExist(f"{target.label} already holds {len(present)} of these runs ({shown}); nothing was copied. "
                        "Pass --overwrite to replace them, or copy the others with --run")
    report = CopyReport()
    for run_id in ids:
        if run_id in present:
            target.delete_run(run_id)
        _copy_rows(source, target, run_id)
        _copy_checkpoints(source, target, run_id)
        want, got = run_counts(source, run_id), run_counts(target, run_id)
        if want != got:
            raise CopyMismatch(f"run {run_id}: the copy has {got}, the source {want}")
        report.runs.append(run_id)
        for name, n in want.items():
            report.counts[name] += n
    return report


def verify_replay(source: RunStore, target: RunStore, run_id: str, settings: Any = None) -> int:
    """Replay the run from both stores' checkpoint histories; the steps must match. Returns their number."""
    from ifworld.runs.driver import replay

    steps = [replay(run_id, store=store, settings=settings) for store in (source, target)]
    shape = [[(s.label, sorted(s.values)) for s in found] for found in steps]
    if shape[0] != shape[1] or (steps[0] and steps[0][-1].values != steps[1][-1].values):
        raise CopyMismatch(f"run {run_id}: its replay from the copy differs from the source's")
    return len(steps[0])


def _exists(store: RunStore, run_id: str) -> bool:
    try:
        store.get_run(run_id)
    except RunNotFound:
        return False
    return True
