"""The five RWS agentic patterns, each an explicit LangGraph state machine over one item.

Public API:

* :data:`PATTERNS` — names in benchmark order: single, hmaw, pace, phase, schema.
* :func:`build_pattern_graph` — the uncompiled ``StateGraph`` of one pattern (its roles, then ``finish``,
  which extracts and grades the final output). Compile it alone, or add it as a node of a run graph.
* :func:`run_pattern` — solve one item with one pattern now and return its result record.
* :data:`EXPECTED_CALLS` — model calls per role on the accept path and on the reject (retry) path (SCHEMA: with
  the two experts the fake server allocates).
* :func:`calls_range` — (fewest, most) calls per item, for estimates.
* :data:`GATE_CONFIDENCE` — the gates' confidence threshold.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, StateGraph

from ifworld.config import Settings
from ifworld.errors import InputError
from ifworld.rws.dataset import RWSItem
from ifworld.rws.names import PATTERNS
from ifworld.rws.patterns import hmaw, pace, phase, schema, single
from ifworld.rws.patterns.base import GATE_CONFIDENCE, PatternOutput, PatternState, final_line
from ifworld.rws.verifier import LLMVerifier, grade_output

MODULES: dict[str, ModuleType] = {"single": single, "hmaw": hmaw, "pace": pace, "phase": phase, "schema": schema}
EXPECTED_CALLS: dict[str, dict[str, dict[str, int]]] = {name: mod.CALLS for name, mod in MODULES.items()}

__all__ = ["PATTERNS", "EXPECTED_CALLS", "GATE_CONFIDENCE", "build_pattern_graph", "run_pattern", "initial_state",
           "calls_range"]


def check_pattern(name: str) -> str:
    """Validate a pattern name (accepts "single-shot" for "single")."""
    key = name.strip().lower().replace("single-shot", "single").replace("_", "")
    if key not in MODULES:
        raise InputError(f"unknown pattern {name!r}; choose from {', '.join(PATTERNS)}")
    return key


def calls_range(name: str) -> tuple[int, int]:
    """(fewest, most) model calls one item costs with this pattern: a pattern whose calls depend on a model's
    choice (SCHEMA's number of experts) states its ``CALL_BOUNDS``; the others' accept and reject paths are fixed."""
    module = MODULES[check_pattern(name)]
    if hasattr(module, "CALL_BOUNDS"):
        return module.CALL_BOUNDS
    totals = [sum(p.values()) for p in module.CALLS.values()]
    return min(totals), max(totals)


def _finish(settings: Settings):
    def finish(state: PatternState) -> dict:
        item = state["item"]
        raw = state.get("final_text") or ""
        verifier = (LLMVerifier(settings, sees_grader=bool(state.get("verifier_sees_grader")))
                    if state.get("verify") and settings.enabled else None)
        grade = grade_output(item, raw, verifier=verifier)
        trace = state.get("trace") or []
        record = {
            "item_id": item["id"], "pattern": state["pattern"], "model": state.get("model") or settings.model,
            "type": item["type"], "topic": (item.get("meta") or {}).get("topic", ""),
            "source": (item.get("meta") or {}).get("source", ""), "question": item["question"], "gold": item["final"],
            "raw_output": raw, "answer": final_line(raw), "grade": grade,
            "annotations": list(state.get("annotations") or []), "trace": trace,
            "calls": sum(1 for t in trace if not str(t.get("status", "")).startswith("ok (code)")),
            "degraded": any(t.get("status") == "degraded" for t in trace),
        }
        return {"results": [record]}
    return finish


def build_pattern_graph(name: str, settings: Settings) -> StateGraph:
    """One pattern's state machine: its roles (gates as conditional edges), then ``finish``."""
    g = StateGraph(PatternState, output_schema=PatternOutput)
    last = MODULES[check_pattern(name)].add_nodes(g, settings)
    g.add_node("finish", _finish(settings))
    g.add_edge(last, "finish")
    g.add_edge("finish", END)
    return g


def initial_state(item: RWSItem | dict, pattern: str, model: str | None = None, verify: bool = True, *,
                  sees_grader: bool = False) -> dict[str, Any]:
    """The input of a pattern graph for one item (the verifier on by default, as in the paper)."""
    data = item.model_dump() if isinstance(item, RWSItem) else dict(item)
    return {"item": data, "pattern": check_pattern(pattern), "model": model or "", "verify": verify,
            "verifier_sees_grader": sees_grader, "out": {}, "trace": [], "annotations": []}


def run_pattern(name: str, item: RWSItem | dict, settings: Settings, *, model: str | None = None,
                verify: bool = True, sees_grader: bool = False, config: RunnableConfig | None = None,
                ) -> dict[str, Any]:
    """Solve one item with one pattern (no checkpointer) and return its result record; the LLM verifier
    grades what the programmatic grader does not call correct unless ``verify=False``."""
    graph = build_pattern_graph(name, settings).compile()
    out = graph.invoke(initial_state(item, name, model, verify, sees_grader=sees_grader), config or {})
    return out["results"][0]
