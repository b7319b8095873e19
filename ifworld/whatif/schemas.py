"""Pydantic schemas for every IF-World agent output and the final report.

Models are lenient where real models drift (``"positive"`` → ``"+"``, strength clamped to 1–3,
percentages clamped to 0–100) and strict where the record shape is a contract (causal edge keys).
Graph state never holds these objects: nodes store ``model_dump(mode="json")`` dicts.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ifworld.whatif.rubric import JUDGE_MAXIMA, RUBRIC_TOTAL
from ifworld.whatif.variant_ids import assign_variant_ids


def _sign(value: Any) -> str:
    text = str(value).strip().lower()
    if text in ("-", "−", "negative", "neg", "-1", "decrease", "minus"):
        return "-"
    return "+"


def _clamp(value: Any, low: float, high: float) -> float:
    try:
        number = float(str(value).rstrip("%"))
    except (TypeError, ValueError):
        return low
    return max(low, min(high, number))


def _keyword(choices: Any, default: str) -> BeforeValidator:
    """For a Literal field: any text containing one of its ``choices`` is that choice ("long term" → "long")."""
    def pick(value: Any) -> str:
        text = str(value).lower()
        return next((c for c in get_args(choices) if c in text), default)
    return BeforeValidator(pick)


def _clamped(low: float, high: float) -> BeforeValidator:
    return BeforeValidator(lambda v: _clamp(v, low, high))


def _fraction(value: Any) -> float:
    x = _clamp(value, 0, 100)
    return x / 100 if x > 1 else x


# Lenient field types: real models drift in how they write signs, strengths, percentages and categories.
Sign = Annotated[Literal["+", "-"], BeforeValidator(_sign)]
Strength = Annotated[int, Field(ge=1, le=3), BeforeValidator(lambda v: int(round(_clamp(v, 1, 3))))]
# Field before the validator: pydantic then writes standard ``minimum``/``maximum`` into the JSON schema
# (after a BeforeValidator it writes non-standard ``ge``/``le``, which schema-guided models ignore).
Percent = Annotated[float, Field(ge=0, le=100), _clamped(0, 100)]
Fraction = Annotated[float, Field(ge=0, le=1), BeforeValidator(_fraction)]
Score10 = Annotated[float, Field(ge=0, le=10), _clamped(0, 10)]
HorizonName = Literal["short", "medium", "long"]
Horizon = Annotated[HorizonName, _keyword(HorizonName, "short")]
ConflictKindName = Literal["hard", "granularity", "soft"]
ConflictKind = Annotated[ConflictKindName, _keyword(ConflictKindName, "soft")]
Domains = Annotated[list[str], BeforeValidator(lambda v: [v] if isinstance(v, str) else list(v or []))]
Text = Annotated[str, BeforeValidator(str)]

_SCHEMA_CACHE: dict[tuple, dict] = {}


class _Base(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Pydantic's JSON schema, memoised per class and arguments (it is sent with every model call)."""
        key = (cls, args, tuple(sorted(kwargs.items())))
        if key not in _SCHEMA_CACHE:
            _SCHEMA_CACHE[key] = super().model_json_schema(*args, **kwargs)
        return copy.deepcopy(_SCHEMA_CACHE[key])


class CausalEdge(_Base):
    source: str
    target: str
    sign: Sign = "+"
    strength: Strength = 2
    domains: Domains = Field(default_factory=list)
    mechanism: str = ""


class MatrixCell(_Base):
    mechanism: str
    domain: str
    sign: Sign = "+"
    strength: Strength = 2


class Probability(_Base):
    probability_pct: Percent = 50.0


# -- refiner ------------------------------------------------------------------------------------------
class Variant(_Base):
    id: str = Field("", description="leave empty: the app numbers the variants V1, V2, … once")
    name: str
    description: str


def numbered_variants(raw: Any) -> list[Variant]:
    """A scenario's variants (dicts or models; any without a name left out), each with its id."""
    out = []
    for v in raw or []:
        d = v.model_dump() if isinstance(v, BaseModel) else v
        if isinstance(d, dict) and str(d.get("name") or "").strip():
            out.append(Variant.model_validate({"description": "", **d}))
    assign_variant_ids(out)
    return out


class IndicatorSpec(_Base):
    name: str
    unit: str = ""
    threshold: str = ""


class Timescales(_Base):
    short: str = ""
    medium: str = ""
    long: str = ""


class Scenario(_Base):
    language: str = Field("", description="the proposition's language, e.g. English, Français")
    restated: str = ""
    premises: list[str] = Field(default_factory=list)
    constants: list[str] = Field(default_factory=list, description="constraints held constant")
    timescales: Timescales = Field(default_factory=Timescales)
    key_uncertainties: list[str] = Field(default_factory=list)
    expert_plan: list[str] = Field(default_factory=list, description="domains to involve")
    variants: list[Variant] = Field(default_factory=list, description="2-3 scenario variants")
    indicators: list[IndicatorSpec] = Field(default_factory=list, description="3-5 measurable indicators")

    @model_validator(mode="after")
    def _number_variants(self) -> Scenario:
        assign_variant_ids(self.variants)
        return self


# -- expert -------------------------------------------------------------------------------------------
class ReasoningStep(_Base):
    cause: str
    effect: str
    mechanism: str = ""
    domains: list[str] = Field(default_factory=list)


class QuantRange(_Base):
    quantity: str
    low: float
    high: float
    unit: str = ""


class Conclusion(_Base):
    statement: str
    ranges: list[QuantRange] = Field(default_factory=list)


class FeasibilityAudit(_Base):
    resources: str = ""
    technology: str = ""
    policy: str = ""


class FeasibilityRow(_Base):
    constraint: str
    estimate: Text
    unit: str = ""
    bottleneck: str = ""
    mitigation: str = ""


class Assumption(_Base):
    id: str
    text: str


class Uncertainty(_Base):
    description: str
    lever: str = Field("", description="substitution or adaptation lever")


class CalibrationRange(_Base):
    quantity: str
    unit: str = ""
    ci50: list[float] = Field(default_factory=list, description="[low, high] 50% interval")
    ci80: list[float] = Field(default_factory=list)
    ci95: list[float] = Field(default_factory=list)


class Dependency(_Base):
    domain: str
    note: str = ""


class ScenarioBranch(Probability):
    name: str
    description: str = ""


class TimelineEntry(Probability):
    horizon: Horizon = "short"
    event: str = ""


class Indicator(_Base):
    name: str
    threshold: str = ""
    flips_to: str = Field("", description="which branch the indicator flips to")


class TraceRow(_Base):
    assumption_id: str
    claim: str


class ExpertOutput(_Base):
    domain: str = ""
    reasoning_steps: list[ReasoningStep] = Field(default_factory=list)
    verdict: str = Field("", description="one-sentence testable verdict")
    conclusions: list[Conclusion] = Field(default_factory=list)
    feasibility_audit: FeasibilityAudit = Field(default_factory=FeasibilityAudit)
    feasibility_table: list[FeasibilityRow] = Field(default_factory=list)
    assumptions: list[Assumption] = Field(default_factory=list)
    uncertainties: list[Uncertainty] = Field(default_factory=list)
    calibration: list[CalibrationRange] = Field(default_factory=list)
    dependencies: list[Dependency] = Field(default_factory=list)
    minimal_change: str = Field("", description="minimal-change variant: the fewest extra assumptions under which "
                                "the conclusions still hold")
    scenarios: list[ScenarioBranch] = Field(default_factory=list)
    timeline: list[TimelineEntry] = Field(default_factory=list)
    indicators: list[Indicator] = Field(default_factory=list)
    trace: list[TraceRow] = Field(default_factory=list)
    causal_matrix: list[MatrixCell] = Field(default_factory=list)
    key_causal_edges: list[CausalEdge] = Field(default_factory=list)
    alignment_notes: list[str] = Field(default_factory=list, description="rounds >= 2: how the frame changed this")


# -- resolver / debate --------------------------------------------------------------------------------
# The adjudication rules of the paper, in precedence order, plus evidence weight for conflicts of equal rank.
ADJUDICATION_RULES: dict[str, str] = {
    "physics": "physical law first", "biology_survival": "biological survival", "basic_resources":
    "basic resources (water, food, energy)", "social": "social dynamics", "economy": "economics",
    "evidence_weight": "weight of evidence", "none": "not adjudicated",
}
def _synonyms(choices: Any, stems: dict[str, tuple[str, ...]], default: str) -> BeforeValidator:
    """For a Literal field: free text maps to a choice by keyword stems ("biological survival" →
    biology_survival); choices are tried in their Literal order."""
    table: dict[str, tuple[str, ...]] = {c: stems.get(c, ()) for c in get_args(choices)}

    def pick(value: Any) -> str:
        text = str(value).lower().replace("-", "_")
        return next((c for c, words in table.items() if c in text or any(w in text for w in words)), default)
    return BeforeValidator(pick)


RuleName = Literal["physics", "biology_survival", "basic_resources", "social", "economy", "evidence_weight", "none"]
Rule = Annotated[RuleName, _synonyms(RuleName, {
    "physics": ("physic",), "biology_survival": ("surviv", "biolog"),
    "basic_resources": ("resource", "water", "food", "energy"), "social": ("social", "societ"),
    "economy": ("econom",), "evidence_weight": ("evidence", "weight")}, "none")]
TreatmentName = Literal["prioritised", "branched", "reconciled", "open"]
Treatment = Annotated[TreatmentName, _synonyms(TreatmentName, {
    "prioritised": ("priorit",), "branched": ("branch", "condition"),
    "reconciled": ("reconcil", "convert", "unit", "scale")}, "open")]
# Ids are compared case-insensitively by the consistency check; here only whitespace is trimmed.
BranchId = Annotated[str, BeforeValidator(lambda v: str(v or "").strip())]


class ConsensusPoint(_Base):
    point: str
    confidence: Fraction = 0.5


def _sides(value: Any) -> Any:
    """Legacy ``positions: ["economics: 1-2 years", …]`` → sides with the named expert."""
    out = []
    for item in value or []:
        if isinstance(item, str):
            head, _, tail = item.partition(":")
            out.append({"position": tail.strip() or item, "experts": [head.strip()] if tail else []})
        else:
            out.append(item)
    return out


class ConflictSide(_Base):
    position: str
    experts: Domains = Field(default_factory=list, description="experts (domains) holding this position")


class Conflict(_Base):
    topic: str
    kind: ConflictKind = Field("soft", description="hard, soft or granularity")
    sides: Annotated[list[ConflictSide], BeforeValidator(_sides)] = Field(
        default_factory=list, validation_alias=AliasChoices("sides", "positions"),
        description="each position with the experts on that side")
    rule: Rule = Field("none", description="adjudication rule applied: physics > biology_survival > "
                       "basic_resources > social > economy, or evidence_weight")
    treatment: Treatment = Field("open", description="prioritised (hard), branched (soft), reconciled "
                                 "(granularity) or open")
    resolution: str = ""


class Branch(Probability):
    id: BranchId = Field("", description="short stable id such as B1; reused in later rounds and the report")
    name: str = ""
    condition: str
    description: str = ""
    domains: list[str] = Field(default_factory=list)


class DecisionRule(_Base):
    indicator: str
    threshold: str = ""
    branch_id: BranchId = Field("", validation_alias=AliasChoices("branch_id", "branch"),
                                description="id of the branch this indicator points to")
    action: str = Field("", description="recommended action")
    actor: str = Field("", description="who acts")
    lead_time: str = ""


class OpenUncertainty(_Base):
    description: str
    indicator: str = ""


class Synthesis(_Base):
    # an adjudication with no consensus point at all is an empty reply, not a finding (see llm_schema)
    REQUIRED_CONTENT: ClassVar[tuple[str, ...]] = ("consensus",)

    consensus: list[ConsensusPoint] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    branches: list[Branch] = Field(default_factory=list)
    decision_rules: list[DecisionRule] = Field(default_factory=list)
    uncertainties: list[OpenUncertainty] = Field(default_factory=list)
    treatment_notes: list[str] = Field(default_factory=list, description="how conflicts were treated")


class ContentionPoint(_Base):
    issue: str
    pro: str = ""
    con: str = ""
    crux: str = Field("", description="what evidence would settle it")


class DebateBrief(_Base):
    points: list[ContentionPoint] = Field(default_factory=list)
    summary: str = ""


# -- report -------------------------------------------------------------------------------------------
class ExecutiveVerdict(_Base):
    verdict: str = ""
    feasibility: str = ""
    minimal_change: str = Field("", description="the fewest extra assumptions under which the verdict still holds")


class Claim(_Base):
    id: str
    text: str
    assumptions: list[str] = Field(default_factory=list)


class ReportTrace(_Base):
    assumption_id: str
    claim_id: str
    note: str = ""


class MapNode(_Base):
    id: str
    label: str = ""
    domain: str = ""


class CausalMap(_Base):
    nodes: list[MapNode] = Field(default_factory=list)
    edges: list[CausalEdge] = Field(default_factory=list)


class Alignment(_Base):
    consensus: list[ConsensusPoint] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)


class ScenarioAnalysis(Probability):
    """One branch of the canonical scenario structure; every other report part refers to it by ``id``."""
    id: BranchId = Field("", description="branch id such as B1 (keep the resolver's ids)")
    name: str
    condition: str = ""
    drivers: list[str] = Field(default_factory=list)
    pros: list[str] = Field(default_factory=list)
    cons: list[str] = Field(default_factory=list)
    indicators: list[str] = Field(default_factory=list)


class TimelineEvent(_Base):
    horizon: Horizon = "short"
    event: str = ""
    branch_id: BranchId = Field("", description="id of the branch this event belongs to; empty = every branch")


class CheckResult(_Base):
    name: str
    passed: bool
    details: list[str] = Field(default_factory=list)


class ConsistencyChecks(_Base):
    resolutions: list[str] = Field(default_factory=list)
    residual_disagreements: list[str] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    normalised: list[str] = Field(default_factory=list, description="deterministic fixes (no model)")
    repaired: list[str] = Field(default_factory=list, description="violations fixed by the repair turn")
    violations: list[str] = Field(default_factory=list, description="violations that remain")


class ReportCore(_Base):
    summary_bullets: list[str] = Field(default_factory=list, description="5 rubric-aligned bullets")
    executive_verdict: ExecutiveVerdict = Field(default_factory=ExecutiveVerdict)
    core_conclusions: list[str] = Field(default_factory=list)
    uncertainty_analysis: list[str] = Field(default_factory=list)
    assumptions: list[Assumption] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    trace_table: list[ReportTrace] = Field(default_factory=list)


class ReportAnalysis(_Base):
    causal_matrix: list[CausalEdge] = Field(default_factory=list, description="top 6-10 edges")
    causal_map: CausalMap = Field(default_factory=CausalMap)
    feasibility_table: list[FeasibilityRow] = Field(default_factory=list)
    calibration_ranges: list[CalibrationRange] = Field(
        default_factory=list, description="each with nested non-degenerate intervals: ci50 inside ci80 inside ci95")


class VariantProbability(_Base):
    """The panel's probability for one variant of the scenario, by the id the room predicted on."""
    variant_id: str = Field(description="a variant id from the scenario definition, such as V1")
    probability_pct: Percent = Field(50.0, description="probability (%) of this variant")


class ReportScenarios(_Base):
    scenarios: list[ScenarioAnalysis] = Field(default_factory=list, description="branches; probabilities sum to 100")
    variant_probabilities: list[VariantProbability] = Field(
        default_factory=list, description="one entry per variant id of the scenario definition (V1, V2, …), "
                                          "each with the panel's probability that it comes about")
    timeline: list[TimelineEvent] = Field(default_factory=list)
    decision_table: list[DecisionRule] = Field(
        default_factory=list, description="each indicator also listed in its branch's indicators")


class CalibrationPart(_Base):
    calibration_ranges: list[CalibrationRange] = Field(default_factory=list)


class Report(ReportCore, ReportAnalysis, ReportScenarios):
    natural: bool = Field(False, description="a baseline's own text in ``markdown``; no structured sections")
    contributions: list[str] = Field(default_factory=list, description="workshop participants' input, cited")
    review_notes: list[str] = Field(default_factory=list, description="what the user changed at the review")
    alignment: Alignment = Field(default_factory=Alignment)
    consistency_checks: ConsistencyChecks = Field(default_factory=ConsistencyChecks)
    degraded: list[str] = Field(default_factory=list)
    language: str = ""
    markdown: str = ""


class ReportDraft(Report):
    """What a single agent / tree node / debate judge writes: a full report (markdown rendered by us)."""


# -- baselines and judge ------------------------------------------------------------------------------
class Critique(_Base):
    score: Score10 = 5.0
    reason: str = ""


class Judgement(_Base):
    """The judge's reply (Appendix C.2: "numeric scores (floats)"); the bounds are the rubric's ranges."""

    rigor_traceability: float = Field(ge=0, le=JUDGE_MAXIMA["rigor_traceability"])
    integration_causality: float = Field(ge=0, le=JUDGE_MAXIMA["integration_causality"])
    feasibility_minimality: float = Field(ge=0, le=JUDGE_MAXIMA["feasibility_minimality"])
    uncertainty_adaptation: float = Field(ge=0, le=JUDGE_MAXIMA["uncertainty_adaptation"])
    decisionability: float = Field(ge=0, le=JUDGE_MAXIMA["decisionability"])
    overall: float = Field(ge=0, le=RUBRIC_TOTAL)
    rationale: str = ""
