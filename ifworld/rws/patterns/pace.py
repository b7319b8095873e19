"""PACE: Planner (JSON) → Answer → Critic (JSON) → gate → [one Answer retry with the critic's fix] → Encloser.

The gate is a conditional edge: the answer stands when the critic accepts with confidence ≥ GATE_CONFIDENCE.
Each role is sent what the paper's conductor sends it (Appendix C.2): the critic PLAN + DRAFT, the retry
QUERY + PLAN + FIX, the encloser the MESSAGE only.
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
from ifworld.rws.patterns.schemas import Plan, Review
from ifworld.rws.patterns.spec import REGISTRY, PatternSpec

if TYPE_CHECKING:
    from langgraph.graph import StateGraph


def _best_answer(state: PatternState) -> str:
    out = state["out"]
    return out.get("answer_retry") or out.get("answer") or ""


def add_nodes(g: StateGraph, settings: Settings) -> str:
    from langgraph.graph import START

    def planner(state: PatternState) -> dict:
        _, upd = json_role(settings, state, "planner", "planner", Plan, item=item_block(state["item"]))
        return upd

    def answer(state: PatternState) -> dict:
        _, upd = text_role(settings, state, "answer", "answer", item=item_block(state["item"]),
                           plan=as_text(state["out"].get("planner")))
        return upd

    def critic(state: PatternState) -> dict:
        # only PLAN + DRAFT, as in the paper: the critic checks the draft against the plan
        _, upd = json_role(settings, state, "critic", "critic", Review,
                           plan=as_text(state["out"].get("planner")), answer=state["out"]["answer"])
        return upd

    def answer_retry(state: PatternState) -> dict:
        # C.2: QUERY + PLAN + FIX (the critic's JSON); not the first draft
        _, upd = text_role(settings, state, "answer", "answer_retry", prompt="user_retry",
                           item=item_block(state["item"]), plan=as_text(state["out"].get("planner")),
                           fix=as_text(state["out"].get("critic")))
        return upd

    def encloser(state: PatternState) -> dict:
        upd, notes = format_final(settings, state, "encloser", _best_answer(state))
        return {**upd, "annotations": notes}

    def gate(state: PatternState) -> str:
        return "encloser" if passes(state["out"].get("critic")) else "answer_retry"

    for name, fn in (("planner", planner), ("answer", answer), ("critic", critic),
                     ("answer_retry", answer_retry), ("encloser", encloser)):
        g.add_node(name, fn)
    g.add_edge(START, "planner")
    g.add_edge("planner", "answer")
    g.add_edge("answer", "critic")
    g.add_conditional_edges("critic", gate, ["encloser", "answer_retry"])
    g.add_edge("answer_retry", "encloser")
    return "encloser"


ROLES = ("planner", "answer", "critic", "encloser")
CALLS = {
    "accept": {"planner": 1, "answer": 1, "critic": 1, "encloser": 1},
    "reject": {"planner": 1, "answer": 2, "critic": 1, "encloser": 1},
}

SPEC = REGISTRY.register(PatternSpec(
    name="pace", label="PACE", roles=ROLES, calls=CALLS, add_nodes=add_nodes, preselected=True,
    help=("Planner (JSON) → Answer → Critic (JSON) → gate → one Answer retry with the critic's fix when "
          "rejected → Encloser."),
))
