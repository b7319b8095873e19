"""Typed what-if run parameters: one pydantic model, the one source of every default, bound, label and help.

The fields every method shares are declared on :class:`RunParams`; each method declares its own (IF-World's
``rounds``, the tree's ``breadth`` and ``depth``, the debate's ``debate_rounds``) in its spec
(:attr:`~ifworld.whatif.method_spec.MethodSpec.params`). :func:`params_model` joins them into one model (made
again when a method with new fields is registered). The What-if page's widgets, the options of ``ifworld whatif
run`` / ``eval``, :func:`~ifworld.whatif.params.default_params` and the run record
(:class:`~ifworld.whatif.records.WhatIfRecord` ``.params``) all read it, so a bound changes in one place.

Graph state and the store keep the plain dict (``model_dump``): the Workflow contract and the checkpointer
need JSON. A record saved before the parameters were typed loads unchanged (:func:`load_params`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator
from pydantic.config import JsonDict

from ifworld.errors import InputError
from ifworld.whatif.experts import normalize_experts, personas_for
from ifworld.whatif.method_spec import ParamField
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.propositions import validate_language, validate_proposition

__all__ = ["MAX_BUDGET_TOKENS", "OPTIONS", "PAUSES", "SWITCHES", "RunParams", "load_params", "param_info",
           "params_model", "size_fields", "validate_budget", "validate_params"]

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


def _field(default: Any, label: str, help: str = "") -> Any:
    extra: JsonDict = {"label": label}
    return Field(default, description=help, json_schema_extra=extra)


def _flag(default: bool, label: str, help: str = "") -> Any:
    return _field(default, label, help)


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


class RunParams(BaseModel):
    """The parameters every what-if method shares; :func:`params_model` adds each method's own fields."""

    model_config = ConfigDict(extra="forbid")

    proposition: str = _field(..., "Proposition", "The what-if question (user data, validated).")
    method: str = _field("ifworld", "Method", "A registered what-if method.")
    experts: list[str] = _field(None, "Expert panel", "Expert names or any domains (None: the default panel).")
    personas: dict[str, Any] = _field(None, "Personas", "The personas as this run uses them (kept for replays).")
    no_debate: bool = _flag(False, "No debate", "IF-World ablation: no pro/con debate between rounds.")
    no_conflict: bool = _flag(False, "No conflict resolver", "IF-World ablation: no conflict resolver.")
    no_shared_frame: bool = _flag(False, "No shared frame", "IF-World ablation: experts share no frame.")
    no_refine: bool = _flag(False, "No problem refiner", "IF-World ablation: the proposition is not refined.")
    cache: bool = _flag(False, "Cache identical model calls", "Reuse identical finished steps (no model calls).")
    review: bool = _flag(False, "Pause for review after the refiner",
                         "Edit every part of the refined scenario and the panel before any expert runs.")
    pause_between_rounds: bool = _flag(False, "Pause between rounds for workshop input",
                                       "Add the room's own contribution; the resolver weighs it like an expert's "
                                       "and the report lists it.")
    language: str = _field("auto", "Report language", "'auto' follows the proposition, or a language name.")
    budget_tokens: float | None = _field(None, "Token budget", "Tree/debate: add steps until the run's tokens "
                                                               "are within ±25 % of this budget.")
    extend_panel: bool = _flag(False, "extend_panel", OPTIONS["extend_panel"])
    expert_memory: bool = _flag(False, "expert_memory", OPTIONS["expert_memory"])
    tree_angles: bool = _flag(False, "tree_angles", OPTIONS["tree_angles"])
    debate_history: bool = _flag(False, "debate_history", OPTIONS["debate_history"])

    @model_validator(mode="before")
    @classmethod
    def _fill(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if v is not None or k == "budget_tokens"}
        flags = [k for k, f in cls.model_fields.items() if f.annotation in (bool, "bool")]
        data.update({k: bool(data[k]) for k in flags if k in data})
        data["experts"] = normalize_experts(data.get("experts"))
        if not isinstance(data.get("personas"), dict):
            # the personas as this run uses them: a replay, resume or export never looks an expert up again
            data["personas"] = personas_for(data["experts"])
        return data

    @field_validator("proposition")
    @classmethod
    def _proposition(cls, value: str) -> str:
        return validate_proposition(value)

    @field_validator("method")
    @classmethod
    def _method(cls, value: str) -> str:
        return METHOD_REGISTRY.check(value)

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        return validate_language(value)

    @field_validator("budget_tokens", mode="before")
    @classmethod
    def _budget(cls, value: Any) -> float | None:
        return validate_budget(value)


def size_fields() -> dict[str, tuple[ParamField, str]]:
    """Every method's own parameters, in registry order: name → (its declaration, the method declaring it).
    Two methods may share a field only when they declare it alike."""
    out: dict[str, tuple[ParamField, str]] = {}
    for spec in METHOD_REGISTRY:
        for name, declared in spec.params.items():
            if name in RunParams.model_fields:
                raise InputError(f"method {spec.name!r} declares {name!r}, a parameter every method shares")
            if name in out and out[name][0] != declared:
                raise InputError(f"method {spec.name!r} declares {name!r} unlike method {out[name][1]!r}")
            out.setdefault(name, (declared, spec.name))
    return out


_MODELS: dict[tuple[tuple[str, ParamField], ...], type[RunParams]] = {}


def params_model() -> type[RunParams]:
    """The what-if run parameters of the registered methods: :class:`RunParams` plus each method's own fields
    (one integer field each, with its bounds, label and help)."""
    fields = size_fields()
    key = tuple((name, f) for name, (f, _) in fields.items())
    if key not in _MODELS:
        own: dict[str, Any] = {
            name: (int, Field(f.default, ge=f.ge, le=f.le, description=f.help,
                              json_schema_extra={"label": f.label, "method": method}))
            for name, (f, method) in fields.items()}
        _MODELS[key] = create_model("WhatIfParams", __base__=RunParams, **own)
    return _MODELS[key]


def param_info(name: str) -> dict[str, Any]:
    """A parameter's default, bounds (``min``/``max``, None for flags and text), label and help: what a widget
    or an option needs."""
    field = params_model().model_fields.get(name)
    if field is None:
        raise InputError(f"unknown what-if parameter {name!r}")
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    bounds = {type(m).__name__: getattr(m, type(m).__name__.lower(), None) for m in field.metadata}
    return {"default": field.default, "min": bounds.get("Ge"), "max": bounds.get("Le"),
            "label": str(extra.get("label", name)), "help": field.description or ""}


def _input_error(exc: ValidationError) -> InputError:
    """The first problem of a validation as a specific InputError (an InputError from a validator as it is)."""
    first = exc.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InputError):
        return cause
    name = ".".join(str(p) for p in first.get("loc", ())) or "params"
    if name in size_fields():
        info = param_info(name)
        return InputError(f"{name} must be an integer from {info['min']} to {info['max']} "
                          f"(got {first.get('input')!r}).")
    if first.get("type") == "extra_forbidden":
        return InputError(f"unknown what-if parameter {name!r}")
    return InputError(f"{name}: {first.get('msg')} (got {first.get('input')!r}).")


def validate_params(values: dict[str, Any]) -> RunParams:
    """Typed, validated parameters (defaults filled in), else an InputError naming the parameter and its bounds."""
    try:
        return params_model().model_validate(values)
    except ValidationError as exc:
        raise _input_error(exc) from None


def load_params(stored: Any) -> RunParams:
    """The parameters of a stored record, typed, as the run used them: they were validated when it started and
    are not checked again against today's experts, methods or bounds (a replay shows what ran). Records saved
    before the parameters were typed load the same way; keys no model field names are dropped, fields a record
    lacks (a method registered later) take their defaults."""
    if isinstance(stored, RunParams):
        return stored
    model = params_model()
    data = {k: v for k, v in (stored if isinstance(stored, dict) else {}).items() if k in model.model_fields}
    defaults = {k: f.default for k, f in model.model_fields.items() if not f.is_required()}
    return model.model_construct(**{**defaults, "proposition": "", "experts": [], "personas": {}, **data})
