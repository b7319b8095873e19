"""Belief-exchange runs in the run store (imported by :mod:`ifworld.runs` for workflows ``beliefs.*``).

- ``beliefs.llm`` — LLM agents, a checkpointed LangGraph run (:mod:`ifworld.beliefs.graph`).
- ``beliefs.simulate`` — one heuristic condition; instant, so it is simulated and saved in one go
  (:func:`save_simulation`); its one-node graph only exists so the generic run machinery can redo it.
- ``beliefs.sweep`` — a grid sweep; progress (finished chunk count) is saved as it goes and the output
  path is kept, so :func:`resume_run` (``ifworld runs resume``) re-invokes ``run_sweep`` on the same
  spec and output — finished chunks are skipped by the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from langgraph.graph import END, START, StateGraph

from ifworld.beliefs import graph as llm_graph
from ifworld.beliefs.config import BeliefConfig, condition_label
from ifworld.beliefs.engine import SimulationResult, simulate, summarise
from ifworld.beliefs.sweep import Progress, SweepSpec, run_sweep
from ifworld.beliefs.tables import table1_by_condition
from ifworld.config import load_settings
from ifworld.errors import SimulationError
from ifworld.runs import Workflow, register
from ifworld.runs.events import emit
from ifworld.runs.store import RunStore, get_store, new_run_id

KIND = "beliefs"
MAX_SAVED_ROWS = 2_000  # rows kept in a simulation record (the summary covers all runs)


class _OneStep(TypedDict, total=False):
    params: dict[str, Any]
    record: dict[str, Any]


def _one_node(fn: Any) -> StateGraph:
    g = StateGraph(_OneStep)
    g.add_node("run", lambda state: {"record": fn(state["params"])})
    g.add_edge(START, "run")
    g.add_edge("run", END)
    return g


# ---------------------------------------------------------------------------------------------------
# Single heuristic simulations
# ---------------------------------------------------------------------------------------------------
def simulation_record(result: SimulationResult) -> dict[str, Any]:
    """Record of a heuristic simulation: config, seed, summary, which code path computed the rounds
    (``compiled kernel`` or ``numpy``) and (capped) tidy rows."""
    rows = result.rows()
    return {"config": result.config.to_dict(), "seed": result.seed, "runs": result.runs,
            "condition": condition_label(result.config), "summary": summarise(result), "path": result.path,
            "rows": rows[:MAX_SAVED_ROWS], "rows_total": len(rows)}


def simulation_title(params: dict[str, Any]) -> str:
    c = params["config"]
    return (f"Beliefs ({c.get('rule')}, {c.get('strategy')}): {c.get('agents')} agents, {c.get('facts')} facts, "
            f"seed {params.get('seed')}, {params.get('runs', 1)} run(s)")


def save_simulation(result: SimulationResult, *, store: RunStore | None = None, title: str | None = None) -> str:
    """Save a finished heuristic simulation as a completed ``beliefs`` run; returns its id."""
    store = store or get_store()
    params = {"config": result.config.to_dict(), "seed": result.seed, "runs": result.runs}
    run_id = store.create_run(KIND, "beliefs.simulate", params, title or simulation_title(params))
    store.finish_run(run_id, simulation_record(result))
    return run_id


def _simulate_params(params: dict[str, Any]) -> dict[str, Any]:
    config = BeliefConfig.from_dict(params["config"])
    return simulation_record(simulate(config, seed=int(params["seed"]), runs=int(params.get("runs", 1))))


def simulation_markdown(record: dict[str, Any]) -> str:
    s = record.get("summary", {})
    return "## Belief simulation\n\n" + "\n".join(
        f"- {k}: {v:.4f}" if isinstance(v, float) else f"- {k}: {v}" for k, v in s.items())


# ---------------------------------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------------------------------
def default_sweep_out(run_id: str, store: RunStore | None = None) -> Path:
    """Where a sweep's table goes unless told: ``<run store dir>/sweeps/<run id>.csv``."""
    base = store.path.parent if store is not None else load_settings().db_path.parent
    return base / "sweeps" / f"{run_id}.csv"


def sweep_title(params: dict[str, Any]) -> str:
    spec = SweepSpec.from_dict(params["spec"])
    configs = sum(1 for _ in spec.configs())
    return f"Belief sweep: {configs} configurations × {len(spec.seeds)} seeds × {spec.runs} runs"


def start_sweep(spec: dict[str, Any], *, out: str | Path | None = None, backend: str = "local",
                workers: int | None = None, scheduler: str | None = None, store: RunStore | None = None) -> str:
    """Validate a grid mapping and create its ``beliefs.sweep`` run (nothing runs yet); returns the id."""
    SweepSpec.from_dict(spec)  # errors name the key, before anything is stored
    store = store or get_store()
    run_id = new_run_id(KIND)
    params = {"spec": spec, "out": str(out or default_sweep_out(run_id, store)), "backend": backend,
              "workers": workers, "scheduler": scheduler or ""}
    return store.create_run(KIND, "beliefs.sweep", params, sweep_title(params), run_id=run_id)


def sweep_out(run_id: str, store: RunStore | None = None) -> str:
    """The output table path of a sweep run."""
    info = (store or get_store()).get_run(run_id)
    return info.params.get("out") or (info.record or {}).get("out") or str(default_sweep_out(run_id, store))


def run_sweep_run(run_id: str, *, store: RunStore | None = None, progress: Progress | None = None,
                  max_chunks: int | None = None) -> dict[str, Any] | None:
    """Run (or continue) a stored sweep; saves chunk progress, returns the record when it finished.

    ``max_chunks`` stops early (the run stays interrupted; for tests and bounded steps)."""
    store = store or get_store()
    info = store.get_run(run_id)
    params = {**info.params, "out": sweep_out(run_id, store)}

    def saved(done: int, total: int) -> None:
        store.save_partial(run_id, {"out": params["out"], "chunks_done": done, "chunks_total": total})
        if progress:
            progress(done, total)

    # The lease refuses a second driver and leaves the run interrupted (error stored) if this one stops.
    with store.lease(run_id) as held:
        record = _sweep_record(params, saved, max_chunks)
        if record is None:
            held.status, held.error = "interrupted", "stopped before all chunks finished"
            return None
        store.finish_run(run_id, record)
    return record


def _sweep_record(params: dict[str, Any], progress: Progress | None = None,
                  max_chunks: int | None = None) -> dict[str, Any] | None:
    spec = SweepSpec.from_dict(params["spec"])
    Path(params["out"]).parent.mkdir(parents=True, exist_ok=True)
    frame = run_sweep(spec, out=params["out"], backend=params.get("backend") or "local",
                      workers=params.get("workers") or None, scheduler=params.get("scheduler") or None,
                      progress=progress, max_chunks=max_chunks)
    total = len(spec.chunks())
    if not Path(params["out"]).exists():
        return None
    table = table1_by_condition(frame) if len(frame) else None
    return {"spec": params["spec"], "out": params["out"], "rows": int(len(frame)), "chunks_done": total,
            "chunks_total": total, "mean_f1": float(np.mean(frame["f1"])) if len(frame) else None,
            "table1": table.to_dict(orient="records") if table is not None else []}


def _sweep_in_graph(params: dict[str, Any]) -> dict[str, Any]:
    record = _sweep_record(params, lambda d, t: emit("chunks", node="run", done=d, total=t))
    if record is None:
        raise SimulationError("sweep stopped before all chunks finished; resume the run to compute the rest")
    return record


def sweep_markdown(record: dict[str, Any]) -> str:
    lines = ["## Belief sweep", "", f"{record.get('rows')} rows → `{record.get('out')}`", ""]
    for row in record.get("table1") or []:
        lines.append(f"- {row.get('condition')}: F1 {row.get('f1_mean', 0):.3f} ± {row.get('f1_std') or 0:.3f}")
    return "\n".join(lines)


def resume_run(run_id: str) -> dict[str, Any] | None:
    """The ``beliefs.sweep`` workflow's ``resume`` (``ifworld runs resume``): sweeps re-run the engine on the
    same spec/out (finished chunks are skipped); other belief runs return None so the generic graph resume
    applies."""
    info = get_store().get_run(run_id)
    if info.workflow != "beliefs.sweep":
        return None
    record = run_sweep_run(run_id)
    if record is None:
        raise SimulationError(f"sweep {run_id} did not finish; resume it with `ifworld runs resume {run_id}`")
    return record


register(Workflow(name="beliefs.llm", kind=KIND, build=llm_graph.build, initial=llm_graph.initial,
                  finalize=llm_graph.finalize, markdown=llm_graph.markdown, title=llm_graph.title,
                  loop_params=("config.rounds",)))
register(Workflow(name="beliefs.simulate", kind=KIND, build=lambda p, s: _one_node(_simulate_params),
                  initial=lambda p: {"params": p}, finalize=lambda state, p, calls: state["record"],
                  markdown=simulation_markdown, title=simulation_title, loop_params=("config.rounds",)))
register(Workflow(name="beliefs.sweep", kind=KIND, build=lambda p, s: _one_node(_sweep_in_graph),
                  initial=lambda p: {"params": p}, finalize=lambda state, p, calls: state["record"],
                  markdown=sweep_markdown, title=sweep_title, resume=resume_run,
                  loop_params=("spec.base.rounds",)))
