"""Expert domains of the what-if panel as data: one file per domain, a registry of them, and the panels.

Each built-in domain is one YAML file under ``prompts/whatif/experts/`` (name, label — the domain as prompts
and records say it —, persona, aliases, topic keywords, default-panel membership), read through
:func:`ifworld.prompts.load_data` and validated into an :class:`ExpertSpec`; ``panels.yaml`` beside them lists
the built-in files in order (read explicitly, no folder scanning) and the topic panels of the Quick preset.
:data:`REGISTRY` (``whatif.experts``) holds them; an outside package registers more (``ifworld.extensions``),
and a facilitator's own experts (:mod:`ifworld.whatif.custom_experts`) are registered from the run store.

Any other field of expertise still works: a domain that no entry names gets a persona written from its name
(:func:`persona`). A run records the personas it used (``params["personas"]``, :func:`personas_for`), so its
replay, resume and exports never depend on an entry that changed or went away later.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ifworld import prompts
from ifworld.errors import InputError
from ifworld.llm.demo_answers.whatif import ExpertWords
from ifworld.registry import NAME_PATTERN, Registry, Spec, name_key

MAX_EXPERTS = 12
MAX_DOMAIN_CHARS = 60
MAX_PERSONA_CHARS = 600
DATA_DIR = "whatif/experts"
PANELS_FILE = f"{DATA_DIR}/panels"
DOMAIN_RE = re.compile(r"[\w][\w /&'\-]*", re.UNICODE)
BUILT_IN, FACILITATOR, GENERATED = "built-in", "facilitator", "generated"
"""Who wrote a persona: our files (or an installed package), the facilitator in the app, or the template."""


class DemoHints(BaseModel):
    """What the demo model (no model connected) writes for an expert: its mechanism, the quantity it estimates
    with its unit, and the expert (by name) its effects flow to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mechanism: str = Field(min_length=1, max_length=120)
    indicator: str = Field(min_length=1, max_length=80)
    unit: str = Field(min_length=1, max_length=30)
    downstream: str = Field(pattern=NAME_PATTERN)


class ExpertSpec(Spec):
    """One expert domain. ``label`` is the domain itself (lower case), as prompts, records and pages show it."""

    persona: str = Field(min_length=1, max_length=MAX_PERSONA_CHARS,
                         description="how this expert reasons, one or two sentences in the second person")
    aliases: tuple[str, ...] = Field(default=(), description="other names that mean this domain")
    topics: tuple[str, ...] = Field(default=(), description="keywords of propositions this expert suits")
    default_panel: bool = Field(default=False, description="on the panel a new run starts with")
    custom: bool = Field(default=False, description="written by the facilitator in the app (fenced as data)")
    demo: DemoHints | None = Field(default=None, description="what the demo model writes for this expert")

    @field_validator("label")
    @classmethod
    def _domain(cls, value: str) -> str:
        if value != canonical_text(value) or len(value) > MAX_DOMAIN_CHARS or not DOMAIN_RE.fullmatch(value):
            raise InputError(f"the label is the domain as prompts say it: lower case, at most {MAX_DOMAIN_CHARS} "
                             "characters of letters, digits, spaces and / & ' -")
        return value

    @field_validator("aliases", "topics")
    @classmethod
    def _lower(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(canonical_text(v) for v in value if canonical_text(v))

    @property
    def written_by(self) -> str:
        return FACILITATOR if self.custom else BUILT_IN


REGISTRY: Registry[ExpertSpec] = Registry("whatif.experts", ExpertSpec, noun="expert")
EXPERTS = REGISTRY
"""The registry under the name the front door exports (``ifworld.whatif.EXPERTS``)."""
DOC_COLUMNS = {"Name (`--experts`)": lambda s: f"`{s.name}`", "Domain": lambda s: s.label,
               "Also accepted": lambda s: ", ".join(s.aliases) or "—",
               "Default panel": lambda s: "yes" if s.default_panel else "", "Persona": lambda s: s.persona}


def canonical_text(text: Any) -> str:
    """A domain or alias as compared: lower case, whitespace folded."""
    return " ".join(str(text).strip().lower().split())


def _validated(data: dict[str, Any], where: Path) -> ExpertSpec:
    try:
        return ExpertSpec.model_validate({"help": "", **data})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "file"
        raise prompts.PromptError(f"{where}: {field}: {first.get('msg', 'invalid')}") from None


def load_expert(name: str) -> ExpertSpec:
    """The expert in ``prompts/whatif/experts/<name>.yaml``; a malformed file raises :class:`PromptError`
    (a :class:`~ifworld.errors.PackageError`) naming the file and the field."""
    where = prompts.data_path(f"{DATA_DIR}/{name}")
    spec = _validated(prompts.load_data(f"{DATA_DIR}/{name}"), where)
    if spec.name != name:
        raise prompts.PromptError(f"{where}: name {spec.name!r} must match the file name {name!r}")
    return spec


def expert_from_file(path: str | Path) -> ExpertSpec:
    """An expert from a YAML file of the same shape anywhere (an outside package's own experts, the example in
    ``examples/extending/toy_expert.yaml``); register it with ``REGISTRY.register(expert_from_file(path))``."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise prompts.PromptError(f"{path}: cannot read the expert: {exc}") from exc
    if not isinstance(data, dict):
        raise prompts.PromptError(f"{path}: must be a mapping of fields (name: …, persona: …)")
    return _validated(data, path)


@cache
def _panels() -> dict[str, Any]:
    data = prompts.load_data(PANELS_FILE)
    where = prompts.data_path(PANELS_FILE)
    experts, topics = data.get("experts"), data.get("topics", [])
    if not isinstance(experts, list) or not all(isinstance(e, str) for e in experts):
        raise prompts.PromptError(f"{where}: 'experts' must list the built-in expert files by name")
    if not isinstance(topics, list) or not all(
            isinstance(t, dict) and isinstance(t.get("keywords"), list) and isinstance(t.get("panel"), list)
            for t in topics):
        raise prompts.PromptError(f"{where}: each entry of 'topics' needs 'keywords' and 'panel' lists")
    for topic in topics:
        unknown = [p for p in topic["panel"] if p not in experts]
        if unknown:
            raise prompts.PromptError(f"{where}: topic panel names unknown experts {unknown}")
    return {"experts": list(experts), "topics": [(tuple(canonical_text(k) for k in t["keywords"]),
                                                  tuple(t["panel"])) for t in topics]}


def topic_panels() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(keywords, expert names) of each topic panel, in the order they are tried."""
    return list(_panels()["topics"])


def _register_built_ins() -> None:
    for name in _panels()["experts"]:
        REGISTRY.register(load_expert(name), replace=True)
    built_in = {s.name for s in REGISTRY.loaded()}  # at import: an installed extension loads on first listing
    for spec in REGISTRY.loaded():
        if spec.demo and spec.demo.downstream not in built_in:
            raise prompts.PromptError(f"{prompts.data_path(f'{DATA_DIR}/{spec.name}')}: demo.downstream: no "
                                      f"expert {spec.demo.downstream!r}")


_register_built_ins()


def demo_words(domain: str) -> ExpertWords | None:
    """What the demo model writes for the expert of this domain (its file's ``demo`` block), or None."""
    spec = next((s for s in REGISTRY if s.label == domain), None)
    if spec is None or spec.demo is None:
        return None
    down = REGISTRY.get(spec.demo.downstream).label if spec.demo.downstream in REGISTRY else ""
    return ExpertWords(spec.demo.mechanism, spec.demo.indicator, spec.demo.unit, down)


DEFAULT_EXPERTS: list[str] = [s.label for s in REGISTRY.loaded() if s.default_panel]
"""The built-in default panel (the paper's nine domains, from their files), fixed at import for benchmarks and
tests that reproduce the paper; the product asks :func:`default_experts`, which sees later entries too."""


# -- names → domains → personas --------------------------------------------------------------------------------
def lookup(text: Any) -> ExpertSpec | None:
    """The entry a user's word means: its name (``materials_chemistry``), domain or one of its aliases."""
    key, name = canonical_text(text), name_key(text)  # a typed name reads as every registry reads it
    for spec in REGISTRY:
        if spec.name in (key, name) or key == spec.label or key in spec.aliases:
            return spec
    return None


def default_experts() -> list[str]:
    """The panel a new run starts with: every entry with ``default_panel``, in registry order."""
    return [s.label for s in REGISTRY if s.default_panel]


def known_experts() -> list[str]:
    """Every registered domain (built-in, installed, the facilitator's), in registry order."""
    return [s.label for s in REGISTRY]


def normalize_experts(names: list[str] | str | None) -> list[str]:
    """Canonical expert domains (names and aliases resolved, duplicates dropped). Any field of expertise works:
    a domain that no entry names gets a persona written from its name (:func:`persona`)."""
    if names is None:
        return default_experts()
    if isinstance(names, str):
        names = names.split(",")
    out: list[str] = []
    for raw in names:
        name = canonical_text(raw)
        if not name:
            continue
        spec = lookup(name)
        name = spec.label if spec else name
        if len(name) > MAX_DOMAIN_CHARS or not DOMAIN_RE.fullmatch(name):
            raise InputError(f"Expert domain {str(raw).strip()[:80]!r} is not usable: write a field of expertise "
                             f"in at most {MAX_DOMAIN_CHARS} characters (letters, digits, spaces, / & ' -), e.g. "
                             "'urban planning'.")
        if name not in out:
            out.append(name)
    if not out:
        raise InputError("The expert list is empty: name at least one expert, e.g. physics,economics.")
    if len(out) > MAX_EXPERTS:
        raise InputError(f"{len(out)} experts given; at most {MAX_EXPERTS} (MAX_EXPERTS) are allowed.")
    return out


def generated_persona(domain: str) -> str:
    return (f"You reason with the methods, evidence, quantities and constraints that practitioners of {domain} "
            f"use, and you say where {domain} depends on physical, biological and economic limits.")


def persona(domain: str) -> str:
    """The expert's persona as it stands now: its entry's, or one written from the name."""
    spec = lookup(domain)
    return spec.persona if spec else generated_persona(domain)


def personas_for(domains: list[str]) -> dict[str, dict[str, str]]:
    """What a run records about its panel: ``{domain: {"persona": text, "by": built-in | facilitator |
    generated}}`` — the run uses these, never the registry again."""
    out = {}
    for d in domains:
        spec = lookup(d)
        out[d] = ({"persona": spec.persona, "by": spec.written_by} if spec
                  else {"persona": generated_persona(d), "by": GENERATED})
    return out


def persona_text(entry: dict[str, str] | None, domain: str) -> str:
    """The persona as it enters the expert's prompt: ours as written; the facilitator's fenced and escaped as
    data (like a participant's contribution, :mod:`ifworld.whatif.room`)."""
    entry = entry or personas_for([domain])[domain]
    text = str(entry.get("persona", ""))
    if entry.get("by") != FACILITATOR:
        return text
    return prompts.render("whatif/expert", "custom_persona", persona=escape(" ".join(text.split()), quote=False))


def suggest_experts(proposition: str, n: int = 2) -> list[str]:
    """A small panel that fits the proposition's topic: the first topic panel whose keyword appears, else the
    entries whose own topic keywords appear (registry order), filled up from the default panel."""
    text = proposition.lower()
    for words, panel in topic_panels():
        if any(w in text for w in words):
            return [REGISTRY.get(p).label for p in panel[:n]]
    hits = [s.label for s in REGISTRY if any(re.search(rf"\b{re.escape(w)}", text) for w in s.topics)]
    return list(dict.fromkeys([*hits, *default_experts()]))[:n]
