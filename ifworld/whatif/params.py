"""Run parameters (defaults, budget estimate) and the final run record shared by every method."""

from __future__ import annotations

from typing import Any

from ifworld.errors import InputError
from ifworld.llm import KEPT_NOTE, usage_totals
from ifworld.whatif.experts import default_experts, personas_for
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.propositions import (
    MAX_BREADTH,
    MAX_DEBATE_ROUNDS,
    MAX_DEPTH,
    normalize_experts,
    validate_bound,
    validate_language,
    validate_proposition,
    validate_rounds,
)
from ifworld.whatif.report import with_degraded

DEFAULT_ROUNDS = 2
DEFAULT_BREADTH = 3
DEFAULT_DEPTH = 2
DEFAULT_DEBATE_ROUNDS = 2
BOUNDS = {"breadth": MAX_BREADTH, "depth": MAX_DEPTH, "debate_rounds": MAX_DEBATE_ROUNDS}
MAX_BUDGET_TOKENS = 5_000_000
PAUSES = ("review", "pause_between_rounds")  # human-in-the-loop pauses (IF-World only)
SWITCHES = ("no_debate", "no_conflict", "no_shared_frame", "no_refine")
OPTIONS: dict[str, str] = {
    "extend_panel": "the refiner adds up to two domains of its plan to the panel (IF-World §2.2 keeps the panel)",
    "expert_memory": "experts of round 2+ also see a digest of their own previous output (A.3 gives them the "
                     "scenario and the shared frame only)",
    "tree_angles": "tree variants revise the parent answer under hand-written angles (B.3: the parent prompt plus "
                   "'explore different plausible assumptions and branches')",
    "debate_history": "each debate turn sees the exchange so far (B.2: the proposition and the round only)",
}
"""Our deliberate departures from the papers, each off by default (docs/whatif.md lists them beside the section)."""
CALL_KEYS = ("role", "round", "start", "end", "prompt_tokens", "completion_tokens", "status", "latency_s",
             "retries", "model", "error", "inputs")
RECORD_KEYS = ("proposition", "method", "scenario", "rounds", "report", "calls", "usage", "params", "degraded",
               "frame_diffs", "judge")


def default_params(proposition: str, method: str = "ifworld", **overrides: Any) -> dict[str, Any]:
    """A complete, validated params dict (the Workflow contract) with defaults filled in."""
    METHOD_REGISTRY.check(method)
    params: dict[str, Any] = {
        "proposition": validate_proposition(proposition), "method": method, "experts": None,
        "rounds": DEFAULT_ROUNDS, **{s: False for s in SWITCHES}, "breadth": DEFAULT_BREADTH,
        "depth": DEFAULT_DEPTH, "debate_rounds": DEFAULT_DEBATE_ROUNDS, "cache": False,
        "review": False, "pause_between_rounds": False, "language": "auto", "budget_tokens": None,
        **{o: False for o in OPTIONS},
    }
    params.update({k: v for k, v in overrides.items() if v is not None})
    params["experts"] = normalize_experts(params["experts"])
    # the personas as this run uses them: a replay, resume or export never looks an expert up again
    params["personas"] = personas_for(params["experts"])
    params["rounds"] = validate_rounds(int(params["rounds"]))
    params["language"] = validate_language(params["language"])
    for key, upper in BOUNDS.items():
        params[key] = validate_bound(key, int(params[key]), upper)
    for key in (*SWITCHES, "cache", *PAUSES, *OPTIONS):
        params[key] = bool(params[key])
    params["budget_tokens"] = validate_budget(params["budget_tokens"])
    return params


def validate_budget(tokens: Any) -> float | None:
    """A baseline's token budget: ``None`` (fixed size) or a positive number up to :data:`MAX_BUDGET_TOKENS`."""
    if tokens is None:
        return None
    try:
        value = float(tokens)
    except (TypeError, ValueError):
        value = float("nan")
    if not 0 < value <= MAX_BUDGET_TOKENS:
        raise InputError(f"budget_tokens must be a number of tokens from 1 to {MAX_BUDGET_TOKENS:,} "
                         f"(got {tokens!r}).")
    return value


def estimate_calls(params: dict[str, Any]) -> int:
    """Model calls a run will make if nothing fails (repair retries not counted): its method's estimate."""
    method = METHOD_REGISTRY.get(params.get("method") or METHOD_REGISTRY.names()[0])
    return int(method.call("estimate", params))


def ifworld_calls(params: dict[str, Any]) -> int:
    """IF-World: refiner, experts × rounds, resolver and debate between rounds (unless ablated), the final
    resolver and the three report parts."""
    experts = len(params.get("experts") or default_experts())
    rounds = int(params.get("rounds", DEFAULT_ROUNDS))
    frameless = bool(params.get("no_shared_frame"))  # w/o shared frame: no resolver and no debate at all
    resolver = 0 if params.get("no_conflict") or frameless else 1
    debate = 0 if params.get("no_debate") or frameless else 3
    refine = 0 if params.get("no_refine") else 1
    return refine + rounds * experts + (rounds - 1) * (resolver + debate) + resolver + 3


def record_calls(calls: list[dict]) -> list[dict]:
    """The record's call list: accounting fields only (raw outputs stay in the store)."""
    return [{k: c.get(k) for k in CALL_KEYS} for c in calls]


def make_record(method: str, state: dict[str, Any], params: dict[str, Any], calls: list[dict], *,
                rounds: list[dict], report: dict, degraded: list[str], frame_diffs: list[dict],
                **extra: Any) -> dict[str, Any]:
    """The final run record (DESIGN.md CLI contract) for any method. Steps whose reply was cut at the token
    bound and used for the items it had finished are listed as degraded, in the record and the report."""
    kept = [str(c.get('error')) for c in calls
            if c.get("status") == "truncated" and KEPT_NOTE in (c.get("error") or "")]
    if kept:
        degraded = list(dict.fromkeys([*degraded, *kept]))
        report = with_degraded(report, degraded, params["proposition"]) if report else report
    return {
        "proposition": params["proposition"], "method": method, "scenario": state.get("scenario"),
        "rounds": rounds, "report": report, "calls": record_calls(calls), "usage": usage_totals(calls),
        "params": params, "degraded": degraded, "frame_diffs": frame_diffs, "judge": None, **extra,
    }
