"""single-shot: one call with the question, preamble and hint; the answer ends with a "Final Answer:" line."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from ifworld.config import Settings
from ifworld.rws.patterns.base import PatternState, item_block, text_role


def add_nodes(g: StateGraph, settings: Settings) -> str:
    """Add the pattern's nodes to ``g``; returns the name of the node that must lead to ``finish``."""

    def answer(state: PatternState) -> dict:
        text, upd = text_role(settings, state, "answer", "answer", item=item_block(state["item"]))
        return {**upd, "final_text": text}

    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    return "answer"


ROLES = ("answer",)
CALLS = {"accept": {"answer": 1}}
__all__ = ["add_nodes", "END"]
