"""An RWS answer pattern in one file: "draft then check" — a single-shot draft, then a reviewer that checks its
Final Answer line (two model calls per item, no retry: a rejection is noted, the draft stands).

Its roles reuse the prompt files of the built-in patterns (``template=``): the single-shot solver's and the PACE
critic's. A pattern with prompts of its own puts them under ``prompts/rws/<name>/<role>.yaml`` and leaves
``template`` out. Reusing a prompt does not make it another pattern's role: its calls are
``rws.draft_check.draft`` and ``rws.draft_check.check`` on the wire, and the demo model answers them with the
spec's ``demo_answer`` (without one, a generic answer valid for the reply's schema). Register it
(``register()``), then ``ifworld rws run --pattern draft_check`` and the RWS benchmark page offer it, and Table 2
has a "Draft + check" column.
"""

from __future__ import annotations

from langgraph.graph import START, StateGraph

from ifworld.config import Settings
from ifworld.rws import PATTERN_REGISTRY, PatternSpec
from ifworld.rws.patterns.base import PatternState, as_text, item_block, json_role, passes, text_role
from ifworld.rws.patterns.schemas import Review

NO_PLAN = "(no plan: check the draft's Final Answer line for type, units and sanity)"


def add_nodes(g: StateGraph, settings: Settings) -> str:
    """The pattern's nodes: ``draft`` → ``check``; returns the node that leads to grading (``finish``)."""

    def draft(state: PatternState) -> dict:
        text, upd = text_role(settings, state, "draft", "draft", template="rws/single/answer",
                              item=item_block(state["item"]))
        return {**upd, "final_text": text}

    def check(state: PatternState) -> dict:
        review, upd = json_role(settings, state, "check", "check", Review, template="rws/pace/critic",
                                plan=NO_PLAN, answer=state["out"]["draft"])
        note = [] if passes(review) else [f"draft_check: the check did not accept the draft: {as_text(review)}"]
        return {**upd, "annotations": note}

    g.add_node("draft", draft)
    g.add_node("check", check)
    g.add_edge(START, "draft")
    g.add_edge("draft", "check")
    return "check"


SPEC = PatternSpec(
    name="draft_check", label="Draft + check", roles=("draft", "check"),
    calls={"accept": {"draft": 1, "check": 1}}, add_nodes=add_nodes,
    demo_answer={"draft": "Reasoning: a canned draft.\nFinal Answer: 42",
                 "check": {"accept": True, "confidence": 0.9, "issues": [], "fix": ""}},
    help="A single-shot draft, then a reviewer checks its Final Answer line; a rejection is noted, not retried.",
)


def register() -> PatternSpec:
    """Add the pattern to the registry (an outside package would do this when imported)."""
    return PATTERN_REGISTRY.register(SPEC)
