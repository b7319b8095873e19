"""Configuration of a belief-exchange simulation: one frozen pydantic model, the single source of truth.

Every parameter is declared once, in :class:`BeliefConfig`, with its bounds (pydantic constraints),
its help text and a widget hint. The CLI options (:func:`ifworld.beliefs.cli.config_options`), the page's
widgets (``ui/beliefs_view.py``) and the validation messages are generated from these fields, so a
bound changes in one place. The update rule and the topology are names checked against their registries
(``beliefs.rules`` in :mod:`ifworld.beliefs.rules`, ``beliefs.topologies`` in :mod:`ifworld.beliefs.topology`):
their choices and help are read from there, so a registered rule is a valid value everywhere.
An impossible value raises :class:`ConfigError` (a ``ValueError``) whose
message names the parameter, so a run, a sweep row or a CLI call fails before any work starts.

Upper bounds keep one request within memory and minutes on a laptop (the page once accepted 1 M
agents, 4.8 GB): see :data:`LIMITS`; :func:`ifworld.beliefs.engine.simulate` also bounds
runs x agents x facts (``MAX_CELLS``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.config import JsonDict

from ifworld.errors import BeliefConfigError

STRATEGIES = ("highest_confidence", "strategic")
DOMAINS = ("family", "abstract")

MAX_AGENTS = 100_000
MAX_PAIRS = 500  # family trees of more pairs take tens of seconds to draw
MAX_ROUNDS = 1_000
MAX_BANDWIDTH = 100
MAX_INITIAL_FACTS = 1_000
MAX_SEED = 2**32 - 1
MAX_RUNS = 10_000_000  # independent runs of one simulate() call
MAX_DEGREE = 1_000

# Bounded rule: confidences live on a grid of tenths, stored as small integers in [0, BOUNDED_SCALE].
BOUNDED_SCALE = 10
BOUNDED_START = 5  # 0.5: undecided
BOUNDED_STEP = 1  # 0.1 per received report
BOUNDED_INIT_STEP = 2  # 0.5 -> 0.7 for an initially held fact (and 0.3 for its negation)

# LLM populations: the parameters their form and command offer, and their smaller defaults. No update
# rule (nor trust / discount): the model itself updates the beliefs. The sharing strategy sets what an agent
# is asked to pass on (strategic: its choice, the paper's default and Appendix A; highest_confidence: its
# most confident statements) — Table 4's two LLM rows.
LLM_FIELDS = ("agents", "facts", "true_facts", "false_facts", "bandwidth", "rounds", "strategy", "threshold",
              "stop_share", "domain", "liars", "noise", "topology", "degree", "rewire", "graph_seed")
LLM_NO_RULE = ("Update rules (and their parameters) do not apply to LLM agents: "
               "the model itself updates its beliefs.")
LLM_DEFAULTS = {"agents": 6, "facts": 8, "true_facts": 3, "false_facts": 2, "rounds": 5, "strategy": "strategic"}
LLM_INITIAL_CONFIDENCE = 1.0
"""Every held fact's confidence at the start, the paper's: §3.2 (the framework, for every agent class) says "The
initial belief score for any fact f ∈ K_i(0) is set to B_i(f,0) = 1"; §4.2's "initializes every fact with confidence
0.5" is said of the heuristic baseline only, and Appendix A's 0.8 and 0.6 are an example reply, not a start. The
``initial_confidence`` option (ours) sets another value."""
LLM_PAIRED_CONFIDENCE = 0.5
"""The ``pair_negations`` option (ours, off by default): a fact held together with its negation starts at 0.5, both.
Shown side by side in the prompt, the two 0.5s tell the model that the two are exclusive; Appendix A does not."""
LLM_OPTION_HELP = {  # our departures from Appendix A for LLM agents, each off by default (CLI and page help)
    "negation_hint": "Ours: also tell the agents that a statement and its opposite cannot both be true (the paper's "
                     "prompt, Appendix A, does not).",
    "initial_confidence": "Confidence every held statement starts at; 1 is the paper's (§3.2: B_i(f,0) = 1), "
                          "another value is ours.",
    "pair_negations": "Ours: start a statement held together with its opposite at 0.5, both (which tells the "
                      "agents the two are exclusive; Appendix A does not).",
}

# Discounted-evidence rule: evidence in 1/16 units; discount = 1 - 2^-shift keeps it integer.
EVIDENCE_UNIT = 16
DISCOUNT_SHIFTS = {0.5: 1, 0.75: 2, 0.875: 3, 0.9375: 4}

# Stop vote: an agent also votes STOP once it has an opinion on every pair, each at least this sure.
STOP_CONFIDENCE_PCT = 80


ConfigError = BeliefConfigError
"""The name this module has always raised (:class:`ifworld.errors.BeliefConfigError`, a ``ValueError``)."""


def _field(default: Any, label: str, help: str, *, flag: str | None = None, step: float | None = None,
           choice: bool = False, registry: str | None = None, **constraints: Any) -> Any:
    """A field with its widget label, CLI flag and help (``json_schema_extra`` carries the UI hints);
    ``registry`` names the extension point whose entries are the field's choices."""
    extra: JsonDict = {"label": label}
    if registry:
        extra["registry"] = registry
    if flag:
        extra["flag"] = flag
    if step is not None:
        extra["step"] = step
    strict = isinstance(default, (int, float)) and not isinstance(default, bool) and not choice
    return Field(default, description=help, json_schema_extra=extra, strict=strict or None, **constraints)


class BeliefConfig(BaseModel):
    """Parameters of one belief-exchange condition (paper defaults).

    ``facts`` is K, the number of proposition pairs (|U| = 2K); ``true_facts`` / ``false_facts`` are
    M_T / M_F, the facts each agent starts with (drawn with replacement unless ``with_replacement`` is
    False); ``threshold`` is the collective acceptance threshold on population-mean normalised
    confidence; ``liars`` is the fraction of agents that share negations of what they believe and
    ``noise`` the probability that a shared fact is flipped to its negation in transit.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    agents: int = _field(20, "Agents N", "Population size N.", ge=2, le=MAX_AGENTS)
    facts: int = _field(20, "Fact pairs K", "Number of proposition pairs K (2K facts).", ge=1, le=MAX_PAIRS)
    true_facts: int = _field(5, "True facts each (M_T)", "True facts each agent starts with (M_T).",
                             flag="--true", ge=0, le=MAX_INITIAL_FACTS)
    false_facts: int = _field(3, "False facts each (M_F)", "False facts each agent starts with (M_F).",
                              flag="--false", ge=0, le=MAX_INITIAL_FACTS)
    bandwidth: int = _field(3, "Bandwidth C", "Facts shared per agent per round (C).", ge=1, le=MAX_BANDWIDTH)
    rounds: int = _field(20, "Round cap", "Most rounds a run lasts.", ge=1, le=MAX_ROUNDS)
    strategy: Literal["highest_confidence", "strategic"] = _field(
        "highest_confidence", "Sharing strategy",
        "highest_confidence: the C most believed facts; strategic: C believed facts at random.")
    rule: str = _field("additive", "Update rule", "How a received fact changes a belief.",
                       registry="beliefs.rules")
    trust: float = _field(0.8, "Trust (bayes)", "Probability that a report is right, for the bayes rule.",
                          step=0.05, gt=0.5, lt=1)
    # pydantic reads a float Literal as its four allowed values; the typing spec allows no floats in Literal
    discount: Literal[0.5, 0.75, 0.875, 0.9375] = _field(  # type: ignore[valid-type]
        0.75, "Discount (discounted)", "Share of its evidence an agent keeps per round (discounted rule).",
        choice=True)
    threshold: float = _field(0.5, "Acceptance threshold",
                              "The collective accepts a fact whose mean confidence exceeds this.",
                              step=0.05, ge=0, le=1)
    stop_share: float = _field(0.75, "STOP share", "Share of STOP votes that ends a run.", step=0.05, gt=0, le=1)
    domain: Literal["family", "abstract"] = _field(
        "family", "Domain", "family: statements about a random family tree; abstract: p1..pK.")
    domain_seed: int = _field(0, "Domain seed", "Seed of the fact universe (fixed across runs).",
                              ge=0, le=MAX_SEED)
    liars: float = _field(0.0, "Liars (share)", "Fraction of agents that send the negation of each pick.",
                          step=0.05, ge=0, le=1)
    noise: float = _field(0.0, "Noise (flip prob.)", "Probability that a sent fact is flipped in transit.",
                          step=0.05, ge=0, le=1)
    with_replacement: bool = _field(True, "Draw with replacement",
                                    "Draw initial facts with replacement (an agent may get fewer distinct).")
    false_from: Literal["negations", "truths"] = _field(
        "negations", "False facts drawn from",
        "negations: the M_F 'false' facts are negations of true ones (the model as written); truths: they "
        "are drawn from T too, so no false fact circulates (a reading of the paper, see README).")
    constraints: bool = _field(
        False, "Domain constraints",
        "Agents accept only a consistent set of facts under the family domain's rules (a fact excludes its "
        "negation, parent-of is asymmetric, a grandparent is a parent's parent, …): §6.1's reading, see "
        "docs/beliefs.md.")
    topology: str = _field("complete", "Who meets whom", "Who may meet whom.", registry="beliefs.topologies")
    degree: int = _field(4, "Graph degree k", "Neighbours per agent in the ring / small-world graph (even); "
                         "twice the links a newcomer makes in the scale-free graph.", ge=2, le=MAX_DEGREE)
    rewire: float = _field(0.1, "Rewiring probability", "Share of ring edges rewired in the small-world graph.",
                           step=0.05, ge=0, le=1)
    graph_seed: int = _field(0, "Graph seed", "Seed of the interaction graph (fixed across runs).",
                             ge=0, le=MAX_SEED)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(describe(exc)) from None

    @field_validator("rule", "topology")
    @classmethod
    def _registered(cls, value: str, info: Any) -> str:
        try:
            return entries(cls.model_fields[info.field_name]).check(value)
        except KeyError as exc:  # UnknownEntry: "unknown rule 'x'; choose from additive, bounded, …"
            raise ConfigError(str(exc)) from None

    @model_validator(mode="after")
    def _graph_fits(self) -> BeliefConfig:
        if self.topology == type(self).model_fields["topology"].default:  # the complete graph: nothing to fit
            return self  # (and the CLI builds a default config at import, before numpy or networkx loads)
        spec = entries(type(self).model_fields["topology"]).get(self.topology)
        if spec.graph is not None:
            if self.degree >= self.agents:
                raise ConfigError(f"degree ({self.degree}) must be smaller than agents ({self.agents})")
            if spec.even_degree and self.degree % 2:
                raise ConfigError(f"degree ({self.degree}) must be even for a {self.topology} graph")
        return self

    @model_validator(mode="after")
    def _draws_fit(self) -> BeliefConfig:
        if not self.with_replacement:
            for name in ("true_facts", "false_facts"):
                if getattr(self, name) > self.facts:
                    raise ConfigError(f"{name} ({getattr(self, name)}) cannot exceed facts ({self.facts}) "
                                      "when drawing without replacement")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of all parameters (for tidy rows, JSON and hashing)."""
        return self.model_dump()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BeliefConfig:
        """Build from a dict, rejecting unknown keys by name."""
        return cls(**data)

    def replace(self, **changes: Any) -> BeliefConfig:
        """A validated copy with ``changes`` applied."""
        return type(self)(**{**self.to_dict(), **changes})


def describe(exc: ValidationError) -> str:
    """One line per problem: ``name: what is wrong, got VALUE`` (pydantic's text, without its URLs)."""
    known = ", ".join(BeliefConfig.model_fields)
    lines = []
    for err in exc.errors(include_url=False):
        name = ".".join(str(p) for p in err["loc"]) or "parameters"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            lines.append(f"unknown parameter: {name}; known: {known}")
        elif err["loc"]:
            lines.append(f"{name}: {msg[:1].lower() + msg[1:]}, got {err['input']!r}")
        else:
            lines.append(msg)
    return "; ".join(lines)


def registry_point(name: str) -> str | None:
    """The extension point whose entries are field ``name``'s choices (None for other fields); imports nothing."""
    raw = BeliefConfig.model_fields[name].json_schema_extra
    return str(raw["registry"]) if isinstance(raw, dict) and raw.get("registry") else None


def entries(info: Any) -> Any:
    """The registry behind a field declared with ``registry=`` (imported on first use: the rules need numpy)."""
    from ifworld.registry import registry

    raw = info.json_schema_extra
    return registry(str(raw["registry"]))


def field_info(name: str) -> dict[str, Any]:
    """Everything a generator needs about one parameter: default, help, label, flag, step, bounds,
    choices and Python type (a registry field's choices and help are its registered entries, read now; its
    ``registry`` is the extension point)."""
    info = BeliefConfig.model_fields[name]
    raw = info.json_schema_extra  # always the dict _field wrote
    extra = dict(raw) if isinstance(raw, dict) else {}
    if extra.get("registry"):
        reg = entries(info)
        help = (info.description or "") + " " + "; ".join(f"{s.name}: {s.help.rstrip('.')}" for s in reg) + "."
        return {"name": name, "default": info.default, "help": help, "label": extra.get("label", name),
                "flag": extra.get("flag", "--" + name.replace("_", "-")), "step": None, "type": str,
                "choices": reg.names(), "registry": reg.point, "labels": reg.labels(), "min": None, "max": None}
    bounds = {"ge": None, "gt": None, "le": None, "lt": None}
    for meta in info.metadata:
        for key in bounds:
            if getattr(meta, key, None) is not None:
                bounds[key] = getattr(meta, key)
    choices = getattr(info.annotation, "__args__", None)
    kind = type(choices[0]) if choices else info.annotation
    return {"name": name, "default": info.default, "help": info.description or "", "label": extra.get("label", name),
            "flag": extra.get("flag", "--" + name.replace("_", "-")), "step": extra.get("step"), "type": kind,
            "choices": tuple(choices) if choices else None, "registry": None, "labels": None,
            "min": bounds["ge"] if bounds["ge"] is not None else bounds["gt"],
            "max": bounds["le"] if bounds["le"] is not None else bounds["lt"]}


def bounds_text(name: str) -> str:
    """Human range of a numeric parameter, e.g. ``2 – 100,000``."""
    f = field_info(name)
    if f["choices"]:
        return " | ".join(map(str, f["choices"]))
    if f["type"] is bool:
        return "yes | no"
    return f"{f['min']:,} – {f['max']:,}" if f["min"] is not None and f["max"] is not None else ""


def llm_calls(config: BeliefConfig) -> int:
    """Model calls an LLM population makes at most (one per agent and round; a malformed reply adds a
    repair call) — what the confirmation threshold (``ifworld.limits.CONFIRM_CALLS``) is checked against."""
    return config.agents * config.rounds


def condition_label(config: BeliefConfig) -> str:
    """Short name of the experimental condition (rule plus any adversarial extension).

    Tables group by it; an LLM population would report e.g. ``llm-<model>`` in the same column.
    """
    label = f"heuristic-{config.rule}"
    if config.liars > 0:
        label += f"+liars{config.liars:g}"
    if config.noise > 0:
        label += f"+noise{config.noise:g}"
    if config.topology != BeliefConfig.model_fields["topology"].default:  # the paper's complete graph
        label += f"+{config.topology}"
    if config.constraints:
        label += "+constraints"
    return label


BeliefParams = BeliefConfig
"""The name the design notes use for the one parameter model (same class)."""
