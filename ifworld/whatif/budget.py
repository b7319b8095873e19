"""Matched token budgets for the baselines (paper §3.1: "under the same model family … and matched token
budgets"); pure functions, no model calls.

The evaluation runs IF-World first and gives the tree and debate baselines its measured tokens for the same
proposition as a target (``params["budget_tokens"]``). The baseline's graph then keeps adding steps — tree
expansions, debate rounds — while one more step brings its measured tokens closer to the target, so the run
ends within ±:data:`BUDGET_TOLERANCE` of it whatever the model's reply lengths. A safety ceiling bounds the
steps; a run that stops there short of the target (replies too short) says so in ``record["budget"]``.
The single agent stays one call and is reported as unmatched.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel

from ifworld.llm import UsageTracker
from ifworld.whatif.propositions import MAX_BREADTH

BUDGET_TOLERANCE = 0.25
"""A matched run's tokens are within ±25 % of the target (the bound the evaluation checks and reports)."""
MAX_MATCHED_TREE_STEPS = 40
MAX_MATCHED_DEBATE_ROUNDS = 60
"""Safety ceilings of a budgeted run (a model whose replies are a few tokens long never reaches a budget)."""
CALLS_PER_STEP = {"tree": 2, "debate": 2}  # tree: variant + critic per branch; debate: pro + con per round
FINAL_CALLS = {"tree": 0, "debate": 1}  # what follows the last step: the tree returns its best leaf, the
# debate has its judge's synthesis (which reads the transcript)
# Mean prompt + completion tokens per call, measured against gpt-4o-mini on the paper's propositions
# (IF-World 27 calls / 88k tokens, single 1 / 3.6k, tree 14 / 40k, debate 5 / 6.3k): sizes a budget before a
# run has measured anything.
TOKENS_PER_CALL: dict[str, int] = {"ifworld": 3_260, "single": 3_600, "tree": 2_860, "debate": 1_260}
Status = Literal["matched", "below", "above", "unmatched", "none"]


class Budget(BaseModel):
    """How a run's tokens compare with its target (``record["budget"]``; the evaluation's columns)."""

    target: float | None = None
    tokens: int = 0
    steps: int = 0
    status: Status = "none"
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.tokens / self.target if self.target else None


def ceiling(method: str) -> int:
    return MAX_MATCHED_TREE_STEPS if method == "tree" else MAX_MATCHED_DEBATE_ROUNDS


def tree_breadth(tokens: float) -> int:
    """Branches per tree step for a budget of ``tokens``: about as many as the steps the budget buys
    (breadth × steps ≈ (calls − 2) / 2 with the measured tokens per call), within 1…:data:`MAX_BREADTH`."""
    area = max(1.0, (tokens / TOKENS_PER_CALL["tree"] - 2) / 2)
    return min(MAX_BREADTH, max(1, round(math.sqrt(area))))


def planned_steps(method: str, params: dict[str, Any]) -> int:
    """The steps a run of ``params`` is expected to take: its fixed size, or what its budget should buy."""
    fixed = int(params.get("depth" if method == "tree" else "debate_rounds") or 1)
    target = params.get("budget_tokens")
    if not target or method not in CALLS_PER_STEP:
        return fixed
    calls = target / TOKENS_PER_CALL[method] - FINAL_CALLS[method] - (2 if method == "tree" else 0)
    per_step = CALLS_PER_STEP[method] * (int(params.get("breadth") or 1) if method == "tree" else 1)
    return min(ceiling(method), max(1, round(calls / per_step)))


def keep_going(method: str, spent: float, calls: int, steps: int, target: float, breadth: int = 1) -> bool:
    """Whether one more step (a tree expansion of ``breadth`` branches, a debate round) brings the run's
    final tokens closer to ``target``: ``spent`` tokens over ``calls`` calls so far, ``steps`` done."""
    if steps >= ceiling(method):
        return False
    per_call = spent / calls if calls else TOKENS_PER_CALL.get(method, 1)
    step = per_call * CALLS_PER_STEP[method] * (breadth if method == "tree" else 1)
    final = per_call * FINAL_CALLS[method]
    return spent + final + step / 2 < target


def run_tracker() -> UsageTracker | None:
    """The usage tracker of the run whose graph node is running (``None`` outside a run)."""
    try:
        from langgraph.config import get_config

        manager = get_config().get("callbacks")
    except (RuntimeError, ImportError):
        return None
    handlers = getattr(manager, "handlers", None) or (manager if isinstance(manager, list) else [])
    return next((h for h in handlers if isinstance(h, UsageTracker)), None)


def measured(known: dict[str, int] | None) -> dict[str, int]:
    """Tokens per finished call of this run: ``known`` (kept in the graph state, so a resumed run still counts
    the calls of its earlier drives) plus what the run's tracker has seen since."""
    out = dict(known or {})
    tracker = run_tracker()
    if tracker is not None:
        out.update({cid: rec.prompt_tokens + rec.completion_tokens for cid, rec in list(tracker.calls.items())
                    if rec.end})
    return out


def outcome(method: str, params: dict[str, Any], calls: list[dict], steps: int) -> Budget:
    """The run's :class:`Budget` from its call log: matched within ±:data:`BUDGET_TOLERANCE`, or below / above
    with a note that says why and what to change."""
    tokens = sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in calls
                 if c.get("role") != "whatif.judge")
    target = params.get("budget_tokens")
    if not target:
        return Budget(tokens=tokens, steps=steps, status="unmatched" if method == "single" else "none")
    ratio = tokens / target
    if abs(ratio - 1) <= BUDGET_TOLERANCE:
        return Budget(target=target, tokens=tokens, steps=steps, status="matched")
    unit = "expansion steps" if method == "tree" else "rounds"
    per_call = tokens / max(1, len(calls))
    if ratio < 1:
        why = (f"stopped at the safety ceiling of {ceiling(method)} {unit}" if steps >= ceiling(method)
               else f"stopped after {steps} {unit}")
        note = (f"budget not reached: {why} with {tokens:,} of {target:,.0f} tokens ({ratio:.0%}); the model's "
                f"calls average {per_call:,.0f} tokens — its replies are too short to fill this budget.")
        return Budget(target=target, tokens=tokens, steps=steps, status="below", note=note)
    why = ("the smallest run of this method costs more than the budget" if steps <= 1 else
           f"one step of this method costs more than the ±{BUDGET_TOLERANCE:.0%} tolerance allows")
    note = f"budget exceeded: {tokens:,} of {target:,.0f} tokens ({ratio:.0%}) after {steps} {unit}; {why}."
    return Budget(target=target, tokens=tokens, steps=steps, status="above", note=note)
