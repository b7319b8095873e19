"""Pydantic schemas of the patterns' JSON roles. Lenient on shape (a string where a list is expected, a long
list) so that small models pass validation; strict on meaning (confidence in [0, 1])."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = ["MAX_ALLOCATION_CHECKS", "MAX_EXPERTS", "MAX_PACE_CHECKS", "MAX_PLAN_STEPS", "MAX_SCHEMA_CHECKS",
           "AllocatedStep", "Allocation", "Architecture", "ExpertStep", "Hypotheses", "PhasePlan", "Plan",
           "QuestionType", "Review"]

MAX_PLAN_STEPS = 4
MAX_PACE_CHECKS = 2
MAX_SCHEMA_CHECKS = 3
MAX_EXPERTS = 3
MAX_ALLOCATION_CHECKS = 2


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v if isinstance(v, str) else str(v) for v in value]
    return value


def _as_text(value: Any) -> Any:
    return "" if value is None else ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _fraction(value: Any) -> Any:
    """Confidence given in percent (e.g. 85) becomes 0.85."""
    return value / 100 if isinstance(value, int | float) and 1 < value <= 100 else value


def _capped(limit: int | None = None) -> BeforeValidator:
    """For a list of strings: accept a lone string, cut to ``limit`` items."""
    return BeforeValidator(lambda v: _as_list(v)[:limit] if limit else _as_list(v))


Text = Annotated[str, BeforeValidator(_as_text)]
Items = Annotated[list[str], _capped()]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Plan(_Lenient):
    """PACE planner output."""

    expected_type: Text = "numeric"
    required_units: Text = ""
    format_hints: Text = ""
    plan: Annotated[list[str], _capped(MAX_PLAN_STEPS)] = Field(default_factory=list)
    checks: Annotated[list[str], _capped(MAX_PACE_CHECKS)] = Field(default_factory=list)


class PhasePlan(Plan):
    """PHASE planner output: the PACE plan plus a domain hint."""

    domain_hint: str = ""


class Hypotheses(_Lenient):
    """PHASE hypothesizer output: the problem's setting, laid out before any derivation."""

    assumptions: Items = Field(default_factory=list)
    knowns: Items = Field(default_factory=list)
    unknowns: Items = Field(default_factory=list)
    constraints: Items = Field(default_factory=list)
    equations_latex: Items = Field(default_factory=list)
    units: Items = Field(default_factory=list)
    required_units: Text = ""
    facts: Items = Field(default_factory=list)


class Review(_Lenient):
    """A reviewer's verdict (PACE critic, PHASE evaluator, SCHEMA guard)."""

    accept: bool
    confidence: Annotated[float, BeforeValidator(_fraction), Field(ge=0.0, le=1.0)]
    issues: Items = Field(default_factory=list)
    fix: Text = ""


class ExpertStep(_Lenient):
    """One expert in a SCHEMA architecture."""

    role: Text = ""
    prompt: Text = ""
    produces: Text = ""
    consumes: Text = ""


class Architecture(_Lenient):
    """SCHEMA architect output."""

    q_type: Text = ""
    format_hints: Text = ""
    plan: Annotated[list[str], _capped(MAX_PLAN_STEPS)] = Field(default_factory=list)
    checks: Annotated[list[str], _capped(MAX_SCHEMA_CHECKS)] = Field(default_factory=list)
    expert_sequence: list[ExpertStep] = Field(default_factory=list)


class AllocatedStep(_Lenient):
    """One SCHEMA allocator step: who does what, what it hands on, how it is accepted."""

    id: Text = ""
    role: Text = ""
    prompt: Text = ""
    expected_type: Text = ""
    produces: Text = ""
    acceptance: Annotated[list[str], _capped(MAX_ALLOCATION_CHECKS)] = Field(default_factory=list)


class Allocation(_Lenient):
    """SCHEMA allocator output: the execution steps (the pattern runs at most :data:`MAX_EXPERTS`)."""

    steps: list[AllocatedStep] = Field(default_factory=list)
    q_type: Text = ""
    notes: Text = ""


class QuestionType(_Lenient):
    """SCHEMA question-type call output: the answer type every later role works to."""

    q_type: Text = ""
    format_hints: Text = ""
