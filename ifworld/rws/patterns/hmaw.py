"""HMAW: a CEO writes instructions for a Manager, the Manager writes concrete instructions for a Worker, the
Worker answers. One pass, no reviews and no retries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ifworld.config import Settings
from ifworld.rws.patterns.base import PatternState, item_block, text_role
from ifworld.rws.patterns.spec import REGISTRY, PatternSpec

if TYPE_CHECKING:
    from langgraph.graph import StateGraph


def add_nodes(g: StateGraph, settings: Settings) -> str:
    from langgraph.graph import START

    def ceo(state: PatternState) -> dict:
        _, upd = text_role(settings, state, "ceo", "ceo", item=item_block(state["item"]))
        return upd

    def manager(state: PatternState) -> dict:
        _, upd = text_role(settings, state, "manager", "manager", item=item_block(state["item"]),
                           ceo=state["out"]["ceo"])
        return upd

    def worker(state: PatternState) -> dict:
        text, upd = text_role(settings, state, "worker", "worker", item=item_block(state["item"]),
                              manager=state["out"]["manager"])
        return {**upd, "final_text": text}

    g.add_node("ceo", ceo)
    g.add_node("manager", manager)
    g.add_node("worker", worker)
    g.add_edge(START, "ceo")
    g.add_edge("ceo", "manager")
    g.add_edge("manager", "worker")
    return "worker"


ROLES = ("ceo", "manager", "worker")
CALLS = {"accept": {"ceo": 1, "manager": 1, "worker": 1}}

SPEC = REGISTRY.register(PatternSpec(
    name="hmaw", label="HMAW", roles=ROLES, calls=CALLS, add_nodes=add_nodes,
    help=("A CEO writes instructions for a Manager, the Manager concrete instructions for a Worker, the "
          "Worker answers. One pass, no reviews and no retries."),
))
