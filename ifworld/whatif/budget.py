"""Matched token budgets for the baselines (paper §3.1: "under the same model family … and matched token
budgets"); pure functions, no model calls.

The evaluation runs IF-World first and gives the baselines whose spec has a :class:`MethodBudget` (tree and
debate among the built-ins) its measured tokens for the same proposition as a target
(``params["budget_tokens"]``). The baseline's graph then keeps adding steps — tree expansions, debate rounds —
while one more step brings its measured tokens closer to the target, so the run
ends within ±:data:`BUDGET_TOLERANCE` of it whatever the model's reply lengths. A safety ceiling bounds the
steps; a run that stops there short of the target (replies too short) says so in ``record["budget"]``.
A baseline of fixed size (the single agent, one call) is reported as unmatched.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from ifworld.llm import UsageTracker
from ifworld.whatif.methods import REGISTRY, MethodBudget

BUDGET_TOLERANCE = 0.25
"""A matched run's tokens are within ±25 % of the target (the bound the evaluation checks and reports)."""
# Per method (its spec in ifworld.whatif.methods): the safety ceiling of a budgeted run (a model whose replies
# are a few tokens long never reaches a budget), calls per step, calls before the first and after the last step,
# and the measured mean tokens per call that sizes a budget before a run has measured anything.
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


def budget_of(method: str) -> MethodBudget | None:
    """How ``method``'s size follows a token budget (None: a fixed size, never matched)."""
    return REGISTRY.get(method).budget


def budgeted() -> list[str]:
    """The methods whose size follows a token budget, in registry order."""
    return [s.name for s in REGISTRY if s.budget is not None]


def tokens_per_call(method: str) -> int:
    return REGISTRY.get(method).tokens_per_call


def ceiling(method: str) -> int:
    spec = budget_of(method)
    return spec.ceiling if spec else 1


def planned_steps(method: str, params: dict[str, Any]) -> int:
    """The steps a run of ``params`` is expected to take: its fixed size, or what its budget should buy."""
    spec = budget_of(method)
    fixed = int(params.get(spec.step_param if spec else "depth") or 1)
    target = params.get("budget_tokens")
    if not target or spec is None:
        return fixed
    calls = target / tokens_per_call(method) - spec.final_calls - spec.fixed_calls
    per_step = spec.calls_per_step * (int(params.get("breadth") or 1) if spec.per_branch else 1)
    return min(ceiling(method), max(1, round(calls / per_step)))


def keep_going(method: str, spent: float, calls: int, steps: int, target: float, breadth: int = 1) -> bool:
    """Whether one more step (a tree expansion of ``breadth`` branches, a debate round) brings the run's
    final tokens closer to ``target``: ``spent`` tokens over ``calls`` calls so far, ``steps`` done."""
    spec = budget_of(method)
    if spec is None or steps >= ceiling(method):
        return False
    per_call = spent / calls if calls else tokens_per_call(method)
    step = per_call * spec.calls_per_step * (breadth if spec.per_branch else 1)
    final = per_call * spec.final_calls
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
        return Budget(tokens=tokens, steps=steps, status=unbudgeted_status(method))
    ratio = tokens / target
    if abs(ratio - 1) <= BUDGET_TOLERANCE:
        return Budget(target=target, tokens=tokens, steps=steps, status="matched")
    spec = budget_of(method)
    unit = spec.unit if spec else "steps"
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


def unbudgeted_status(method: str) -> Status:
    """A run without a target: a baseline of fixed size is "unmatched" (the single agent), else "none"."""
    spec = REGISTRY.get(method) if method in REGISTRY else None
    return "unmatched" if spec is not None and spec.baseline and spec.budget is None else "none"
