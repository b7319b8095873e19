"""RWS run workflows for :mod:`ifworld.runs` (imported for names ``rws.*``).

``rws.benchmark``: one run = items × patterns × models. The run graph fans out with ``Send`` — one task per
(item, pattern, model) — into that pattern's compiled subgraph, which shares the run's checkpointer, so a
resumed run re-runs only unfinished tasks and, inside each, only the roles that had not finished.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from ifworld.config import Settings
from ifworld.runs import Workflow, register
from ifworld.rws import benchmark
from ifworld.rws.patterns.run import build_pattern_graph, initial_state


class RunState(TypedDict, total=False):
    items: list[dict]
    patterns: list[str]
    models: list[str]
    verify: bool
    verifier_sees_grader: bool
    results: Annotated[list[dict], operator.add]


def build(params: dict[str, Any], settings: Settings) -> StateGraph:
    """The run graph: START → Send per (item, pattern, model) → pattern subgraphs → END."""
    patterns = list(params["patterns"])

    def fan_out(state: RunState) -> list[Send]:
        models = state.get("models") or [""]
        return [Send(p, initial_state(item, p, m, bool(state.get("verify")),
                                      sees_grader=bool(state.get("verifier_sees_grader"))))
                for item in state["items"] for p in state["patterns"] for m in models]

    g = StateGraph(RunState)
    for p in patterns:
        g.add_node(p, build_pattern_graph(p, settings).compile())
        g.add_edge(p, END)
    g.add_conditional_edges(START, fan_out, patterns)
    return g


def initial(params: dict[str, Any]) -> dict[str, Any]:
    return {"items": params["items"], "patterns": params["patterns"], "models": params.get("models") or [],
            "verify": bool(params.get("verify")),
            "verifier_sees_grader": bool(params.get("verifier_sees_grader")), "results": []}


def finalize(state: dict[str, Any], params: dict[str, Any], calls: list[dict]) -> dict[str, Any]:
    return benchmark.build_record(state.get("results") or [], params, calls)


register(Workflow(
    name="rws.benchmark",
    kind="rws",
    build=build,
    initial=initial,
    finalize=finalize,
    markdown=benchmark.markdown,
    title=benchmark.title,
))
