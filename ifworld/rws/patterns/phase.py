"""PHASE: Planner → Hypothesizer → Analyzer → Solver → Evaluator → gate → [Solver retry → Evaluator] → Finalizer.

Planner and Hypothesizer lay the problem out (JSON), the Analyzer derives a candidate, the Solver commits to
an answer, the Evaluator reviews it (JSON). As in the paper (Appendix B, C.3), the Evaluator is sent the plan,
the hypotheses and the solution (not the question) and judges only its final answer line; on rejection the
Solver gets one retry with the query, plan, hypotheses, analysis and the Evaluator's JSON as the fix; the
retried solution is always the one finalised (its second review is recorded, not used to pick); the Finalizer
is sent the plan and the solution.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ifworld.config import Settings
from ifworld.rws.patterns.base import (
    PatternState,
    as_text,
    format_final,
    item_block,
    json_role,
    passes,
    text_role,
)
from ifworld.rws.patterns.schemas import Hypotheses, PhasePlan, Review
from ifworld.rws.patterns.spec import REGISTRY, PatternSpec

if TYPE_CHECKING:
    from langgraph.graph import StateGraph


def best_answer(out: dict) -> tuple[str, str]:
    """(answer text, which): the retried solution whenever there is one (the paper's rule), else the first."""
    if out.get("solver_retry"):
        return out["solver_retry"], "solver_retry"
    return out.get("solver") or out.get("analyzer") or "", "solver"


def add_nodes(g: StateGraph, settings: Settings) -> str:
    from langgraph.graph import START

    def ctx(state: PatternState) -> dict:
        out = state["out"]
        return {"item": item_block(state["item"]), "plan": as_text(out.get("planner")),
                "hypotheses": as_text(out.get("hypothesizer"))}

    def planner(state: PatternState) -> dict:
        return json_role(settings, state, "planner", "planner", PhasePlan, item=item_block(state["item"]))[1]

    def hypothesizer(state: PatternState) -> dict:
        return json_role(settings, state, "hypothesizer", "hypothesizer", Hypotheses, item=item_block(state["item"]),
                         plan=as_text(state["out"].get("planner")))[1]

    def analyzer(state: PatternState) -> dict:
        return text_role(settings, state, "analyzer", "analyzer", **ctx(state))[1]

    def solver(state: PatternState) -> dict:
        return text_role(settings, state, "solver", "solver", analysis=state["out"]["analyzer"], **ctx(state))[1]

    def review_ctx(state: PatternState) -> dict:  # C.3: PLAN + HYPOTHESIS (+ SOLUTION), not the query
        out = state["out"]
        return {"plan": as_text(out.get("planner")), "hypotheses": as_text(out.get("hypothesizer"))}

    def evaluator(state: PatternState) -> dict:
        return json_role(settings, state, "evaluator", "evaluator", Review, answer=state["out"]["solver"],
                         **review_ctx(state))[1]

    def solver_retry(state: PatternState) -> dict:  # C.3: QUERY + PLAN + HYPOTHESIS + ANALYSIS + FIX
        return text_role(settings, state, "solver", "solver_retry", prompt="user_retry",
                         analysis=state["out"]["analyzer"], fix=as_text(state["out"].get("evaluator")),
                         **ctx(state))[1]

    def evaluator_retry(state: PatternState) -> dict:
        return json_role(settings, state, "evaluator", "evaluator_retry", Review,
                         answer=state["out"]["solver_retry"], **review_ctx(state))[1]

    def finalizer(state: PatternState) -> dict:  # C.3: PLAN + MESSAGE
        best, which = best_answer(state["out"])
        upd, notes = format_final(settings, state, "finalizer", best, plan=as_text(state["out"].get("planner")))
        second = state["out"].get("evaluator_retry")
        if which == "solver_retry" and second is not None and not passes(second):
            notes.append("phase: the retried solution is finalised although its review did not pass")
        return {**upd, "annotations": notes}

    def gate(state: PatternState) -> str:
        return "finalizer" if passes(state["out"].get("evaluator")) else "solver_retry"

    for name, fn in (("planner", planner), ("hypothesizer", hypothesizer), ("analyzer", analyzer),
                     ("solver", solver), ("evaluator", evaluator), ("solver_retry", solver_retry),
                     ("evaluator_retry", evaluator_retry), ("finalizer", finalizer)):
        g.add_node(name, fn)
    g.add_edge(START, "planner")
    g.add_edge("planner", "hypothesizer")
    g.add_edge("hypothesizer", "analyzer")
    g.add_edge("analyzer", "solver")
    g.add_edge("solver", "evaluator")
    g.add_conditional_edges("evaluator", gate, ["finalizer", "solver_retry"])
    g.add_edge("solver_retry", "evaluator_retry")
    g.add_edge("evaluator_retry", "finalizer")
    return "finalizer"


ROLES = ("planner", "hypothesizer", "analyzer", "solver", "evaluator", "finalizer")
CALLS = {
    "accept": {"planner": 1, "hypothesizer": 1, "analyzer": 1, "solver": 1, "evaluator": 1, "finalizer": 1},
    "reject": {"planner": 1, "hypothesizer": 1, "analyzer": 1, "solver": 2, "evaluator": 2, "finalizer": 1},
}

SPEC = REGISTRY.register(PatternSpec(
    name="phase", label="PHASE", roles=ROLES, calls=CALLS, add_nodes=add_nodes,
    help=("Planner → Hypothesizer → Analyzer → Solver → Evaluator → gate → one Solver retry and a second "
          "review when rejected → Finalizer."),
))
