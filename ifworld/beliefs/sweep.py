"""Parameter sweeps: grid YAML -> tidy rows (one per run), local process pool or Dask, resumable.

Grid file::

    base: {facts: 20}                 # fixed BeliefConfig parameters (optional)
    grid:                             # every combination of these lists
      agents: [10, 20, 50]
      strategy: [highest_confidence, strategic]
    seeds: [0, 1, 2]                  # or `repeats: 3` (seeds seed_base .. seed_base+2)
    runs: 20                          # runs per (config, seed), vectorised in one simulate call
    chunk_size: 8                     # (config, seed) tasks per chunk

Resume: each finished chunk is written to ``<out>.parts/<hash>.jsonl`` where the hash covers the
chunk's parameters, seeds and runs; rerunning the same sweep skips chunks whose file exists.
Rows are identical whichever backend ran them (all randomness comes from the task's seed).
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.errors import BeliefConfigError, ConfigError
from ifworld.files import check_output, read_bounded
from ifworld.runs.lease import process_alive
from ifworld.safe_csv import write_csv
from ifworld.safe_yaml import load_yaml

BACKENDS = ("local", "dask")
DEFAULT_CHUNK_SIZE = 8
DEFAULT_RUNS = 10
MAX_TASKS = 1_000_000
MAX_GRID_YAML_BYTES = 128 * 1024
"""Grid YAML larger than this is refused before parsing (PyYAML needs ~10 s per MB; a grid is a few lines)."""
PARENT_POLL_S = 0.2
STOP_GRACE_S = 2.0
"""After SIGTERM / Ctrl-C, how long terminated pool workers get to exit before they are killed."""
"""How often a pool worker checks that the process driving the sweep still exists."""
DESIGNS = ("factorial", "one_at_a_time")
MAX_RUNS_PER_TASK = 100_000
MAX_CHUNK_SIZE = 10_000
SPEC_KEYS = ("base", "grid", "design", "seeds", "repeats", "seed_base", "runs", "chunk_size")
Progress = Callable[[int, int], None]
Task = tuple[tuple[tuple[str, Any], ...], int]  # (sorted config items, seed)
if TYPE_CHECKING:
    Param = str
else:  # a Literal of BeliefConfig's field names, built at run time: pydantic refuses any other key
    Param = Literal[tuple(BeliefConfig.model_fields)]


class GridFile(BaseModel):
    """The grid file's shape and bounds, checked before any combination is built."""

    model_config = ConfigDict(extra="forbid", strict=True)

    base: dict[Param, Any] | None = None
    grid: dict[Param, Annotated[list[Any], Field(min_length=1)]] | None = None
    design: Literal["factorial", "one_at_a_time"] = "factorial"
    seeds: Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=1)] | None = None
    repeats: Annotated[int, Field(ge=1, le=MAX_TASKS)] | None = None
    seed_base: Annotated[int, Field(ge=0)] = 0
    runs: Annotated[int, Field(ge=1, le=MAX_RUNS_PER_TASK)] = DEFAULT_RUNS
    chunk_size: Annotated[int, Field(ge=1, le=MAX_CHUNK_SIZE)] = DEFAULT_CHUNK_SIZE

    @model_validator(mode="after")
    def _one_seed_source(self) -> GridFile:
        if self.seeds is not None and self.repeats is not None:
            raise BeliefConfigError("give either seeds or repeats, not both")
        return self


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: base parameters, grid lists, seeds, runs per task, chunking and design
    (``factorial``: every combination; ``one_at_a_time``: the centre point, then each grid parameter
    varied alone with the others at their base / default value, as in the paper's sweep)."""

    base: tuple[tuple[str, Any], ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    seeds: tuple[int, ...]
    runs: int = DEFAULT_RUNS
    chunk_size: int = DEFAULT_CHUNK_SIZE
    design: str = "factorial"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepSpec:
        """Validate a grid mapping; every error names the offending key."""
        if not isinstance(data, dict):
            raise BeliefConfigError("grid file must be a mapping with keys base, grid, seeds|repeats, runs")
        unknown = sorted(str(k) for k in set(data) - set(SPEC_KEYS))
        if unknown:
            raise BeliefConfigError(f"unknown grid key(s): {', '.join(unknown)}; allowed: {', '.join(SPEC_KEYS)}")
        try:
            raw = GridFile(**data)
        except ValidationError as exc:
            raise BeliefConfigError(_describe(exc)) from None
        base, grid = raw.base or {}, raw.grid or {}
        seeds = tuple(raw.seeds) if raw.seeds is not None else tuple(
            range(raw.seed_base, raw.seed_base + (raw.repeats or 1)))
        spec = cls(tuple(sorted(base.items())), tuple((k, tuple(v)) for k, v in sorted(grid.items())),
                   seeds, raw.runs, raw.chunk_size, raw.design)
        count = spec.config_count() * len(spec.seeds)
        if count > MAX_TASKS:  # before validating (or listing) every combination
            raise BeliefConfigError(f"grid has {count} tasks, more than MAX_TASKS={MAX_TASKS}; "
                                    "use fewer grid values or seeds")
        for params in spec.configs():  # validate every combination up front
            try:
                BeliefConfig.from_dict(params)
            except ValueError as exc:
                raise BeliefConfigError(f"grid combination {params}: {exc}") from None
        return spec

    def config_count(self) -> int:
        """Number of configurations the design yields (without listing them)."""
        if self.design == "one_at_a_time":
            return len(_one_at_a_time(self.base, self.grid))
        return math.prod(len(v) for _, v in self.grid)

    def configs(self) -> Iterator[dict[str, Any]]:
        """Every parameter combination of the design (base overridden by grid values)."""
        if self.design == "one_at_a_time":
            yield from _one_at_a_time(self.base, self.grid)
            return
        keys = [k for k, _ in self.grid]
        for combo in itertools.product(*(v for _, v in self.grid)):
            yield {**dict(self.base), **dict(zip(keys, combo, strict=True))}

    def tasks(self) -> list[Task]:
        """(config, seed) tasks in a fixed order: configs outer, seeds inner."""
        tasks = [(tuple(sorted(p.items())), s) for p in self.configs() for s in self.seeds]
        if len(tasks) > MAX_TASKS:
            raise BeliefConfigError(f"grid has {len(tasks)} tasks, more than MAX_TASKS={MAX_TASKS}; "
                                    "use fewer grid values or seeds")
        return tasks

    def chunks(self) -> list[list[Task]]:
        """Tasks grouped into chunks of ``chunk_size``."""
        tasks = self.tasks()
        return [tasks[i:i + self.chunk_size] for i in range(0, len(tasks), self.chunk_size)]


def load_grid(path: str | Path) -> SweepSpec:
    """Read and validate a grid YAML file (size capped, aliases refused — see :mod:`ifworld.safe_yaml`)."""
    size = Path(path).stat().st_size
    if size > MAX_GRID_YAML_BYTES:  # before reading it into memory
        raise BeliefConfigError(f"grid YAML is {size:,} bytes; the limit is {MAX_GRID_YAML_BYTES:,} "
                                "(MAX_GRID_YAML_BYTES)")
    return SweepSpec.from_dict(parse_grid(read_grid(path)))


def read_grid(path: str | Path) -> bytes:
    """The bytes of a grid file (bounded: a device, FIFO, directory or oversized file is refused)."""
    return read_bounded(path, MAX_GRID_YAML_BYTES, what="grid YAML", limit_name="MAX_GRID_YAML_BYTES")


def parse_grid(source: str | bytes) -> dict[str, Any]:
    """Grid YAML text → mapping; raises ValueError (size, encoding, aliases, syntax) before expanding."""
    return load_yaml(source, max_bytes=MAX_GRID_YAML_BYTES, what="grid YAML", limit_name="MAX_GRID_YAML_BYTES") or {}


def run_chunk(chunk: list[Task], runs: int) -> list[dict[str, Any]]:
    """Simulate every task of a chunk; tidy rows in task order (top-level so workers can pickle it)."""
    rows: list[dict[str, Any]] = []
    for items, seed in chunk:
        rows.extend(simulate(BeliefConfig(**dict(items)), seed=seed, runs=runs).rows())
    return rows


def chunk_key(chunk: list[Task], runs: int) -> str:
    """Stable hash of a chunk's parameters, seeds and runs (names its part file)."""
    payload = json.dumps([[list(map(list, items)), seed] for items, seed in chunk] + [runs], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def parts_dir(out: str | Path) -> Path:
    """Directory holding finished chunk files for output ``out``."""
    return Path(str(out) + ".parts")


def run_sweep(
    spec: SweepSpec,
    out: str | Path | None = None,
    backend: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    max_chunks: int | None = None,
) -> pd.DataFrame:
    """Run a sweep and return its tidy rows; with ``out`` also write CSV/Parquet and resume parts.

    ``max_chunks`` stops after that many newly computed chunks (an interruption, for resume tests);
    ``progress(done, total)`` is called with chunk counts, finished parts included.
    """
    if backend not in BACKENDS:
        raise BeliefConfigError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    chunks = spec.chunks()
    keys = [chunk_key(c, spec.runs) for c in chunks]
    # the output is checked first: not /dev/full after all the work (nor a /dev/full.parts folder)
    store = parts_dir(check_output(out, what="sweep output")) if out is not None else None
    results: dict[str, list[dict[str, Any]]] = {}
    created = False
    if store is not None:
        created = not store.exists()
        store.mkdir(parents=True, exist_ok=True)
        for key in keys:
            if (store / f"{key}.jsonl").exists():
                results[key] = _read_part(store / f"{key}.jsonl")
    pending = [(k, c) for k, c in zip(keys, chunks, strict=True) if k not in results]
    if max_chunks is not None:
        pending = pending[:max_chunks]
    done, total = len(results), len(chunks)

    def finished(key: str, rows: list[dict[str, Any]]) -> None:
        nonlocal done
        results[key] = rows
        if store is not None:
            _write_part(store / f"{key}.jsonl", rows)
        done += 1
        if progress:
            progress(done, total)

    try:
        if progress:
            progress(done, total)
        runner = _run_dask if backend == "dask" else run_local
        runner(pending, spec.runs, workers, scheduler, finished)
        frame = pd.DataFrame([row for key in keys if key in results for row in results[key]])
        if out is not None and len(results) == len(chunks):
            write_table(frame, out)
    except BaseException:
        if created and store is not None and not any(store.iterdir()):  # nothing to resume from: leave no trace
            store.rmdir()
        raise
    return frame


def run_local(pending, runs, workers, scheduler, finished) -> None:
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n <= 1 or len(pending) <= 1:
        for key, chunk in pending:
            finished(key, run_chunk(chunk, runs))
        return
    pool = ProcessPoolExecutor(max_workers=n, initializer=_worker_init, initargs=(os.getpid(),))
    try:
        futures = {pool.submit(run_chunk, chunk, runs): key for key, chunk in pending}
        for fut in as_completed(futures):
            finished(futures[fut], fut.result())
    except BaseException:
        stop_pool(pool)  # Ctrl-C / SIGTERM: finished chunks are on disk; stop now, not after every queued chunk
        raise
    pool.shutdown()


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once: queued chunks cancelled, running workers terminated (then killed after
    :data:`STOP_GRACE_S`). Leaving the ``with`` block instead waits for every submitted chunk — a sweep given
    SIGTERM went on for minutes at full CPU."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # the stdlib has no public handle < 3.14
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
    # The pool's manager thread closes its wake-up pipe as it ends, and the interpreter's exit hook wakes it
    # through that pipe without a lock (CPython 3.11): ending together, the hook wrote to the closed pipe and
    # printed "Exception ignored … Bad file descriptor" under the resume hint (once in CI, 2026-11-29). Ended
    # here, before the exit, the hook finds the pipe closed and writes nothing.
    if manager is not None:
        manager.join(max(1.0, deadline - time.monotonic()))


def _worker_init(driver_pid: int) -> None:
    """Pool worker setup: die with the driver, obey SIGTERM/SIGINT, hold none of the driver's sockets.

    Workers are the driver's direct children (fork on Linux), so the kernel's parent-death signal kills
    them the moment the driver dies, even mid-computation when no Python thread could run; a watch thread
    covers platforms without it. A forked worker inherits the driver's sockets — in the app, Streamlit's
    listening socket, which an orphan would keep bound — and its signal handlers; both are undone here.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the watch thread still ends the worker
        if os.getppid() != driver_pid:  # the driver died before the signal was armed
            os._exit(1)
        _close_inherited_sockets()
    threading.Thread(target=_watch_driver, args=(driver_pid,), name="watch-driver", daemon=True).start()


def _close_inherited_sockets() -> None:
    """Close socket descriptors a forked worker inherited (the pool itself talks over pipes)."""
    fd_dir = Path("/proc/self/fd")
    for entry in list(fd_dir.iterdir()) if fd_dir.is_dir() else []:
        try:
            if os.readlink(entry).startswith("socket:"):
                os.close(int(entry.name))
        except (OSError, ValueError):
            continue


def _watch_driver(driver_pid: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)  # a background poll in a worker; nothing here waits on a result
        if not process_alive(driver_pid):
            os._exit(1)


def _run_dask(pending, runs, workers, scheduler, finished) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed as dask_completed
    except ImportError as exc:  # pragma: no cover - depends on the [cluster] extra
        raise ConfigError("backend dask needs the [cluster] extra: pip install 'ifworld[cluster]'") from exc
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        futures = {client.submit(run_chunk, chunk, runs, key=f"beliefs-{key}"): key for key, chunk in pending}
        for fut in dask_completed(list(futures)):
            finished(futures[fut], fut.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def write_table(frame: pd.DataFrame, out: str | Path) -> None:
    """Write rows as Parquet (``.parquet``) or CSV (anything else), atomically: a failed write (a full disk)
    leaves neither a half-written table nor its temporary file."""
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        if out.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            write_csv(frame, tmp)
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_table(path: str | Path) -> pd.DataFrame:
    """Read rows written by :func:`write_table`."""
    return pd.read_parquet(path) if str(path).endswith(".parquet") else pd.read_csv(path)


def _write_part(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)  # atomic: a crash never leaves a half-written part


def _read_part(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _one_at_a_time(base: tuple, grid: tuple) -> list[dict[str, Any]]:
    """Centre (base values, else defaults) first, then each grid value that differs from the centre."""
    defaults = BeliefConfig().to_dict()
    centre = {**dict(base), **{k: dict(base).get(k, defaults[k]) for k, _ in grid}}
    out = [centre]
    for key, values in grid:
        out += [{**centre, key: v} for v in values if v != centre[key]]
    return out


def _describe(exc: ValidationError) -> str:
    """``key: problem, got VALUE`` per error (the grid file's own key names)."""
    lines = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-", "list[", "dict[")))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "literal_error" and err["loc"][0] in ("base", "grid"):
            name = err["input"]
            lines.append(f"{err['loc'][0]}.{name} is not a parameter; known: {', '.join(BeliefConfig.model_fields)}")
        else:
            lines.append(f"{loc or 'grid file'}: {msg[:1].lower() + msg[1:]}, got {err['input']!r}"
                         if loc else msg)
    return "; ".join(lines)


def partial_rows(out: str | Path) -> pd.DataFrame:
    """Rows of the chunks finished so far (live results while a sweep runs); empty if none yet."""
    store = parts_dir(out)
    parts = sorted(store.glob("*.jsonl")) if store.exists() else []
    return pd.DataFrame([row for part in parts for row in _read_part(part)])
