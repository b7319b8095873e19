"""single-shot: one call with the question, preamble and hint; the answer ends with a "Final Answer:" line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ifworld.config import Settings
from ifworld.rws.patterns.base import PatternState, item_block, text_role
from ifworld.rws.patterns.spec import REGISTRY, PatternSpec

if TYPE_CHECKING:
    from langgraph.graph import StateGraph


def add_nodes(g: StateGraph, settings: Settings) -> str:
    """Add the pattern's nodes to ``g``; returns the name of the node that must lead to ``finish``."""
    from langgraph.graph import START

    def answer(state: PatternState) -> dict:
        text, upd = text_role(settings, state, "answer", "answer", item=item_block(state["item"]))
        return {**upd, "final_text": text}

    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    return "answer"


ROLES = ("answer",)
CALLS = {"accept": {"answer": 1}}

SPEC = REGISTRY.register(PatternSpec(
    name="single", label="Single-shot", roles=ROLES, calls=CALLS, add_nodes=add_nodes,
    preselected=True, in_table2=False,
    help=("One call with the question, preamble and hint; the answer ends with a 'Final Answer:' line "
          "(Table 1's baseline)."),
))
