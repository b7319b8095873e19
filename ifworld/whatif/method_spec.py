"""The what-if method spec and its registry (no entries: :mod:`ifworld.whatif.methods` imports the built-ins).

A leaf module — it imports no engine module — so the built-in specs and every consumer can import it without
an import cycle; everything else imports :mod:`ifworld.whatif.methods`, which also registers the built-ins.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ifworld.errors import InputError
from ifworld.registry import Registry, Spec

__all__ = ["DOC_COLUMNS", "METHOD_REGISTRY", "REGISTRY", "Hook", "MethodBudget", "MethodSpec", "ParamField",
           "check_method", "paper_methods", "reference_method"]

Hook = Callable[..., Any] | str
"""A callable, or ``"package.module:attribute"`` imported when first used."""


class ParamField(BaseModel):
    """One integer run parameter a method declares (``MethodSpec.params``): the one place its default, bounds,
    label and help live — the typed run parameters (:mod:`ifworld.whatif.run_params`), the page's number input
    and the CLI's option are made from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: int = Field(description="the value of a run that does not set it")
    ge: int = Field(description="smallest value allowed")
    le: int = Field(description="largest value allowed")
    label: str = Field(min_length=1, max_length=40, description="the page's widget label")
    help: str = Field(default="", max_length=300, description="help text of the widget and the CLI option")

    @model_validator(mode="after")
    def _ordered(self) -> ParamField:
        if not self.ge <= self.default <= self.le:
            raise InputError(f"default {self.default} is outside its bounds {self.ge}..{self.le}")
        return self


class MethodBudget(BaseModel):
    """How a method's size follows a token budget (§3.1's matched budgets): it adds steps while one more step
    brings its tokens closer to the target. A method without one runs at its fixed size ("unmatched")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step_param: str = Field(description="the params key of its fixed number of steps (depth, debate_rounds)")
    unit: str = Field(description="what a step is called in notes: 'expansion steps', 'rounds'")
    calls_per_step: int = Field(ge=1, description="model calls per step (per branch when per_branch)")
    final_calls: int = Field(default=0, ge=0, description="calls after the last step (a judge's synthesis)")
    fixed_calls: int = Field(default=0, ge=0, description="calls before the first step (a tree's first draft)")
    ceiling: int = Field(ge=1, description="safety ceiling of steps of a budgeted run")
    per_branch: bool = Field(default=False, description="a step has params['breadth'] branches (tree search)")


class MethodSpec(Spec):
    """One what-if method: what it is, what it costs, and the hooks its run and its pages use."""

    baseline: bool = Field(default=True, description="a baseline; False for the paper's own method (IF-World)")
    in_paper: bool = Field(default=False, description="one of the paper's §3.1 comparison ('paper' preset)")
    switches: tuple[str, ...] = Field(default=(), description="ablation switches that apply (no_debate, …)")
    options: tuple[str, ...] = Field(default=(), description="our departures from the paper that apply")
    size_params: tuple[str, ...] = Field(default=(), description="run-size params it reads (rounds, breadth, …)")
    params: Mapping[str, ParamField] = Field(default_factory=dict, description="its own run parameters, typed "
                                             "(name → default, bounds, label, help); joined into RunParams")
    loop_params: tuple[str, ...] = Field(default=(), description="its params that bound how often its graph loops "
                                         "(the run's recursion limit grows with them)")
    tokens_per_call: int = Field(default=3_000, ge=1, description="measured mean tokens per call (estimates)")
    calls_per_round: str = Field(default="", description="calls per round / step in words (docs table)")
    budget: MethodBudget | None = Field(default=None, description="matched token budgets; None: fixed size")
    build: Hook = Field(description="build(params, settings) -> uncompiled LangGraph StateGraph")
    initial: Hook = Field(description="initial(params) -> the graph's input")
    finalize: Hook = Field(description="finalize(state, params, calls) -> the run record (params.make_record)")
    estimate: Hook = Field(description="estimate(params) -> model calls if nothing fails")
    describe: Hook = Field(description="describe(params) -> what a run does, in words (the estimate line)")
    max_steps: Hook | None = Field(default=None, description="max_steps(params) -> superstep bound (optional)")
    step_namer: Hook | None = Field(default=None, description="replay step namer (ifworld.runs.StepNamer)")
    node_calls: Mapping[str, int] = Field(default_factory=dict, description="model calls per finished node "
                                                                           "(the CLI's progress bar)")
    step_labels: Mapping[str, str] = Field(default_factory=dict, description="live label per running node")
    report_label: str = Field(default="Report written", description="the report's step in a replay from a "
                                                                    "saved record (a baseline's own answer)")
    report_nodes: tuple[str, ...] = Field(default=(), description="node name prefixes that write the report")
    blind_words: tuple[str, ...] = Field(default=(), description="names of the method the judge must not see")
    demo_answer: Any = Field(
        default=None, description="what the demo model (and the tests' fake server) answers the method's own "
        "roles (whatif.<name>.…) with: {role suffix: reply} ('' answers every one; 'x#variant' a kind of call), "
        "or one reply for all; a reply is text, a JSON object or a callable(request body). None: the generic "
        "schema-valid answer")

    @model_validator(mode="after")
    def _loops_declared(self) -> MethodSpec:
        missing = [k for k in self.loop_params if k not in self.params]
        if missing:
            raise InputError(f"loop_params {missing} are not among the method's own params {list(self.params)}")
        return self

    @property
    def workflow(self) -> str:
        """The ``ifworld.runs`` workflow of a run of this method."""
        return f"whatif.{self.name}"

    def hook(self, field: str) -> Callable[..., Any] | None:
        """The callable of a hook field (a ``"module:attr"`` string is imported now)."""
        value = getattr(self, field)
        if value is None or callable(value):
            return value
        module, _, attr = str(value).partition(":")
        return getattr(importlib.import_module(module), attr)

    def call(self, field: str, *args: Any, **kwargs: Any) -> Any:
        """Call a hook field (``spec.call("estimate", params)``); a hook the spec does not have is a TypeError."""
        fn = self.hook(field)
        if fn is None:
            raise TypeError(f"method {self.name!r} has no {field} hook")
        return fn(*args, **kwargs)


REGISTRY: Registry[MethodSpec] = Registry("whatif.methods", MethodSpec, noun="method")
"""The what-if methods in their stated order (IF-World, then the baselines, then any registered later)."""
METHOD_REGISTRY = REGISTRY
"""The same registry under the name the front door ``ifworld.whatif`` exports."""

DOC_COLUMNS: dict[str, Callable[[MethodSpec], object]] = {
    "Name": lambda s: f"`{s.name}`",
    "Label": lambda s: s.label,
    "Kind": lambda s: "the paper's method" if not s.baseline else "baseline",
    "Calls": lambda s: s.calls_per_round,
    "Ablations": lambda s: s.switches or "—",
    "Token budget": lambda s: ("the reference" if not s.baseline else
                               f"matched ({s.budget.unit})" if s.budget else "fixed size, unmatched"),
    "What it does": lambda s: s.help,
}
"""The docs table (``<!-- registry-table: whatif.methods -->``)."""


def check_method(name: str) -> str:
    """A registered method's name, else ``UnknownEntry`` listing the choices."""
    return REGISTRY.check(name)


def paper_methods() -> list[str]:
    """The paper's §3.1 comparison, in registry order (the evaluation's ``paper`` preset)."""
    return [s.name for s in REGISTRY if s.in_paper]


def reference_method() -> str:
    """The method whose measured tokens are the baselines' matched budget: the first that is no baseline."""
    return next((s.name for s in REGISTRY if not s.baseline), REGISTRY.names()[0])

