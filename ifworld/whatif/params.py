"""Run parameters (defaults, budget estimate) and the final run record shared by every method."""

from __future__ import annotations

from typing import Any

from ifworld.llm import KEPT_NOTE, usage_totals
from ifworld.whatif.experts import default_experts
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.report import with_degraded
from ifworld.whatif.run_params import (  # noqa: F401  (re-exported: their old home)
    MAX_BUDGET_TOKENS,
    OPTIONS,
    PAUSES,
    SWITCHES,
    size_fields,
    validate_budget,
    validate_params,
)

CALL_KEYS = ("role", "round", "start", "end", "prompt_tokens", "completion_tokens", "status", "latency_s",
             "retries", "model", "error", "inputs")
RECORD_KEYS = ("proposition", "method", "scenario", "rounds", "report", "calls", "usage", "params", "degraded",
               "frame_diffs", "judge")


def default_of(name: str) -> int:
    """The default of a method's own parameter (``rounds``, ``breadth`` …), as its spec declares it."""
    return size_fields()[name][0].default


def default_params(proposition: str, method: str = "ifworld", **overrides: Any) -> dict[str, Any]:
    """A complete, validated params dict (the Workflow contract) with defaults filled in: the typed
    :class:`~ifworld.whatif.run_params.RunParams` of the registered methods, dumped to JSON-ready values.
    ``None`` overrides mean "the default"; a value out of bounds is an InputError naming the bounds."""
    METHOD_REGISTRY.check(method)
    values = {k: v for k, v in overrides.items() if v is not None and k != "personas"}
    return validate_params({**values, "proposition": proposition, "method": method}).model_dump(mode="json")


def estimate_calls(params: dict[str, Any]) -> int:
    """Model calls a run will make if nothing fails (repair retries not counted): its method's estimate."""
    method = METHOD_REGISTRY.get(params.get("method") or METHOD_REGISTRY.names()[0])
    return int(method.call("estimate", params))


def ifworld_calls(params: dict[str, Any]) -> int:
    """IF-World: refiner, experts × rounds, resolver and debate between rounds (unless ablated), the final
    resolver and the three report parts."""
    experts = len(params.get("experts") or default_experts())
    rounds = int(params.get("rounds", default_of("rounds")))
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
