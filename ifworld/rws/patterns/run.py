"""Running a pattern: its LangGraph state machine (roles, then ``finish``) and one item solved now.

* :func:`build_pattern_graph` — the uncompiled ``StateGraph`` of one pattern (its roles, then ``finish``,
  which extracts and grades the final output). Compile it alone, or add it as a node of a run graph.
* :func:`run_pattern` — solve one item with one pattern now and return its result record.
* :func:`initial_state` — the input of a pattern graph for one item.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, StateGraph

from ifworld.config import Settings
from ifworld.rws.dataset import RWSItem
from ifworld.rws.patterns.base import DEGRADED, PatternOutput, PatternState, counts_as_call, final_line
from ifworld.rws.patterns.spec import REGISTRY, check_pattern
from ifworld.rws.verifier import LLMVerifier, grade_output

__all__ = ["build_pattern_graph", "initial_state", "run_pattern"]


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
            "calls": sum(1 for t in trace if counts_as_call(t)),
            "degraded": any(t.get("status") == DEGRADED for t in trace),
        }
        return {"results": [record]}
    return finish


def build_pattern_graph(name: str, settings: Settings) -> StateGraph:
    """One pattern's state machine: its roles (gates as conditional edges), then ``finish``."""
    g = StateGraph(PatternState, output_schema=PatternOutput)
    last = REGISTRY.get(check_pattern(name)).add_nodes(g, settings)
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
