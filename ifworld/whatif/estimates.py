"""Estimates of the built-in methods (their specs' ``estimate`` and ``describe`` hooks): the graphs' shapes in
numbers, repair retries not counted, and what a run does in words. IF-World's call count is
:func:`ifworld.whatif.params.ifworld_calls`."""

from __future__ import annotations

from typing import Any

from ifworld.whatif.budget import planned_steps
from ifworld.whatif.params import default_of


# -- estimates: the graphs' shapes ---------------------------------------------------------------------------
def single_calls(params: dict[str, Any]) -> int:
    return 1


def tree_calls(params: dict[str, Any]) -> int:
    """A budgeted run: the steps its budget is expected to buy (two first drafts, variant + critic per branch)."""
    return 2 + 2 * int(params.get("breadth", default_of("breadth"))) * planned_steps("tree", params)


def debate_calls(params: dict[str, Any]) -> int:
    return 2 * planned_steps("debate", params) + 1


# -- what a run does, in words (the estimate line) -------------------------------------------------------------
def ifworld_text(params: dict[str, Any]) -> str:
    experts, rounds = len(params.get("experts") or []), int(params.get("rounds") or 1)
    return f"IF-World: {experts} expert(s), {rounds} round(s)"


def single_text(params: dict[str, Any]) -> str:
    return "single agent: one model call"


def tree_text(params: dict[str, Any]) -> str:
    budget = params.get("budget_tokens")
    steps = (f"as many expansion steps as ≈{budget:,.0f} tokens buy (≈{planned_steps('tree', params)})" if budget
             else f"{params.get('depth', 2)} expansion step(s)")
    return f"tree search: breadth {params.get('breadth', 3)}, {steps}, a critic score per answer, best leaf wins"


def debate_text(params: dict[str, Any]) -> str:
    budget = params.get("budget_tokens")
    turns = (f"as many rounds as ≈{budget:,.0f} tokens buy (≈{planned_steps('debate', params)})" if budget
             else f"{params.get('debate_rounds', 2)} round(s)")
    return f"debate: {turns} of pro and con, then a judge's synthesis"


