"""Pydantic schemas of the patterns' JSON roles. Lenient on shape (a string where a list is expected, a long
list) so that small models pass validation; strict on meaning (confidence in [0, 1])."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_PLAN_STEPS = 4
MAX_PACE_CHECKS = 2
MAX_SCHEMA_CHECKS = 3
MAX_EXPERTS = 3


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v if isinstance(v, str) else str(v) for v in value]
    return value


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Plan(_Lenient):
    """PACE planner output."""

    expected_type: str = "numeric"
    required_units: str = ""
    format_hints: str = ""
    plan: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)

    @field_validator("plan", mode="before")
    @classmethod
    def _plan(cls, v: Any) -> Any:
        return _as_list(v)[:MAX_PLAN_STEPS]

    @field_validator("checks", mode="before")
    @classmethod
    def _checks(cls, v: Any) -> Any:
        return _as_list(v)[:MAX_PACE_CHECKS]

    @field_validator("required_units", "format_hints", "expected_type", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else ", ".join(map(str, v)) if isinstance(v, list) else str(v)


class PhasePlan(Plan):
    """PHASE planner output: the PACE plan plus a domain hint."""

    domain_hint: str = ""


class Hypotheses(_Lenient):
    """PHASE hypothesizer output: the problem's setting, laid out before any derivation."""

    assumptions: list[str] = Field(default_factory=list)
    knowns: list[str] = Field(default_factory=list)
    unknowns: list[str] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    equations_latex: list[str] = Field(default_factory=list)
    units: list[str] = Field(default_factory=list)
    required_units: str = ""
    facts: list[str] = Field(default_factory=list)

    @field_validator("assumptions", "knowns", "unknowns", "constraints", "equations_latex", "units", "facts",
                     mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _as_list(v)

    @field_validator("required_units", mode="before")
    @classmethod
    def _units(cls, v: Any) -> Any:
        return "" if v is None else ", ".join(map(str, v)) if isinstance(v, list) else str(v)


class Review(_Lenient):
    """A reviewer's verdict (PACE critic, PHASE evaluator, SCHEMA guard)."""

    accept: bool
    confidence: float = Field(ge=0.0, le=1.0)
    issues: list[str] = Field(default_factory=list)
    fix: str = ""

    @field_validator("issues", mode="before")
    @classmethod
    def _issues(cls, v: Any) -> Any:
        return _as_list(v)

    @field_validator("confidence", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and 1 < v <= 100:
            return v / 100
        return v

    @field_validator("fix", mode="before")
    @classmethod
    def _fix(cls, v: Any) -> Any:
        return "" if v is None else str(v)


class ExpertStep(_Lenient):
    """One expert in a SCHEMA architecture."""

    role: str = ""
    prompt: str = ""
    produces: str = ""
    consumes: str = ""

    @field_validator("role", "prompt", "produces", "consumes", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else ", ".join(map(str, v)) if isinstance(v, list) else str(v)


class Architecture(_Lenient):
    """SCHEMA architect output."""

    q_type: str = ""
    format_hints: str = ""
    plan: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)
    expert_sequence: list[ExpertStep] = Field(default_factory=list)

    @field_validator("plan", mode="before")
    @classmethod
    def _plan(cls, v: Any) -> Any:
        return _as_list(v)[:MAX_PLAN_STEPS]

    @field_validator("checks", mode="before")
    @classmethod
    def _checks(cls, v: Any) -> Any:
        return _as_list(v)[:MAX_SCHEMA_CHECKS]

    @field_validator("format_hints", "q_type", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else ", ".join(map(str, v)) if isinstance(v, list) else str(v)
