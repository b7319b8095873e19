"""A facilitator's own experts: a name and a persona in plain words, kept with the run store.

"Add an expert" on the What-if page (and ``ifworld whatif experts add``) comes here. Adding and deleting are
facilitator actions checked by the engine (:func:`~ifworld.access.require_facilitator`). The text is checked
before it is stored: bounded lengths, one paragraph of plain words — no markup (``< >``, backticks, links),
no instructions to the model (``ignore the previous instructions``, ``system:`` …) — and a name that no
built-in or installed expert already uses. What is stored stays inert text: pages render it escaped, and an
expert prompt quotes it fenced and escaped as data (``custom_persona`` in ``prompts/whatif/expert.yaml``),
as it does a participant's contribution.

Stored experts are registered in :data:`~ifworld.whatif.experts.REGISTRY` (:func:`sync_custom_experts`), so the
panel picker, the review step, the CLI's ``--experts`` and the docs offer them like built-in ones. A run records
the personas it used (``params["personas"]``): changing or deleting an expert later never changes a run.
"""

from __future__ import annotations

import re
import unicodedata

from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.errors import InputError
from ifworld.registry import NAME_PATTERN
from ifworld.runs import RunStore, get_store
from ifworld.whatif.experts import DOMAIN_RE, REGISTRY, ExpertSpec, canonical_text, lookup

MIN_NAME_CHARS = 2
MAX_EXPERT_NAME_CHARS = 40
MIN_PERSONA_CHARS = 20
MAX_CUSTOM_PERSONA_CHARS = 500
MAX_CUSTOM_EXPERTS = 50


class CustomExpertError(InputError):
    """A custom expert's name or persona is not usable (the message says why and what to write instead)."""


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_MARKUP_RE = re.compile(r"[<>`]|\]\(|!\[|\{\{|\}\}|(?i:\b(?:https?|ftp|file|javascript|data):|\bwww\.)")
_INSTRUCTION_RE = re.compile(
    r"(?ix)\b(?:ignore|disregard|forget|override|bypass)\b[^.]{0,40}\b(?:instruction|instructions|rules|prompt|"
    r"above|previous|prior|everything|system)\b"
    r"|(?:^|[\s.;:])(?:system|assistant|user|developer)\s*:"
    r"|\b(?:new|updated|real)\s+instructions?\b"
    r"|\b(?:jailbreak|prompt\s+injection)\b"
    r"|\byou\s+(?:must|will|should)\s+(?:now\s+)?(?:answer|reply|respond|output|say|print|write)\b"
    r"|\b(?:respond|answer|reply)\s+only\s+with\b")


def slug(name: str) -> str:
    """The registry name of a domain: ASCII letters and digits joined by ``_`` (``Medieval history`` →
    ``medieval_history``)."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")[:MAX_EXPERT_NAME_CHARS]


def check_name(name: str) -> tuple[str, str]:
    """(registry name, domain) for a new expert's name, or :class:`CustomExpertError`."""
    label = canonical_text(_CONTROL_RE.sub(" ", str(name or "")))
    if not MIN_NAME_CHARS <= len(label) <= MAX_EXPERT_NAME_CHARS or not DOMAIN_RE.fullmatch(label):
        raise CustomExpertError(f"Name the expert's field in {MIN_NAME_CHARS}–{MAX_EXPERT_NAME_CHARS} characters of "
                                "letters, digits, spaces and / & ' -, e.g. 'medieval history'.")
    key = slug(label)
    if not re.fullmatch(NAME_PATTERN, key):
        raise CustomExpertError("The name must start with a letter a–z (it becomes the CLI name, e.g. "
                                "'medieval_history').")
    return key, label


def check_persona(persona: str) -> str:
    """The persona as stored (one paragraph, whitespace folded), or :class:`CustomExpertError` saying why."""
    text = " ".join(_CONTROL_RE.sub(" ", unicodedata.normalize("NFC", str(persona or ""))).split())
    if len(text) < MIN_PERSONA_CHARS:
        raise CustomExpertError(f"Describe how this expert reasons in at least {MIN_PERSONA_CHARS} characters, "
                                "e.g. 'You reason from archives, chronicles and how societies recovered from "
                                "past crises.'")
    if len(text) > MAX_CUSTOM_PERSONA_CHARS:
        raise CustomExpertError(f"The persona is {len(text):,} characters; at most {MAX_CUSTOM_PERSONA_CHARS:,}. "
                                "Keep it to two or three sentences.")
    if _MARKUP_RE.search(text):
        raise CustomExpertError("Write the persona in plain words: no markup, code or links (< > ` [..](..) "
                                "http://).")
    if _INSTRUCTION_RE.search(text):
        raise CustomExpertError("The persona describes how the expert reasons; it may not give the model "
                                "instructions (such as 'ignore the previous instructions' or 'system:').")
    return text


def _spec(row: dict) -> ExpertSpec:
    return ExpertSpec(name=row["name"], label=row["label"], persona=row["persona"], custom=True,
                      help="written by the facilitator in the app")


def custom_experts(*, store: RunStore | None = None) -> list[ExpertSpec]:
    """The store's custom experts, oldest first."""
    return [_spec(r) for r in (store or get_store()).custom_expert_rows()]


def sync_custom_experts(*, store: RunStore | None = None) -> list[ExpertSpec]:
    """Register the store's custom experts (and drop those deleted since); a name an installed or built-in
    expert took meanwhile is skipped, never replaced. Returns the custom experts registered."""
    stored = {s.name: s for s in custom_experts(store=store)}
    for spec in REGISTRY.specs():
        if spec.custom and spec.name not in stored:
            REGISTRY.unregister(spec.name)
    done = []
    for spec in stored.values():
        current = next((s for s in REGISTRY.specs() if s.name == spec.name), None)
        clash = lookup(spec.label)
        if (current and not current.custom) or (clash and not clash.custom and clash.name != spec.name):
            continue
        REGISTRY.register(spec, replace=True)
        done.append(spec)
    return done


def add_custom_expert(name: str, persona: str, *, caller: Caller = OPERATOR, store: RunStore | None = None,
                      replace: bool = False) -> ExpertSpec:
    """Check and store a facilitator's expert, then offer it everywhere; ``replace`` rewrites the persona of an
    existing custom expert of that name (runs already started keep the persona they recorded)."""
    require_facilitator(caller, "add an expert")
    key, label = check_name(name)
    for word in (key, label):
        taken = lookup(word)
        if taken is not None and not taken.custom:
            raise CustomExpertError(f"{label!r} is already a built-in expert ({taken.label}); choose another name "
                                    "or use the built-in one.")
    text = check_persona(persona)
    store = store or get_store()
    rows = store.custom_expert_rows()
    if not replace and len(rows) >= MAX_CUSTOM_EXPERTS:
        raise CustomExpertError(f"At most {MAX_CUSTOM_EXPERTS} custom experts; delete one first.")
    if not store.add_custom_expert_row(key, label, text, created_by=caller.via or caller.role.value,
                                       replace=replace):
        raise CustomExpertError(f"A custom expert {label!r} already exists; delete it first or change its persona.")
    sync_custom_experts(store=store)
    return REGISTRY.get(key)


def delete_custom_expert(name: str, *, caller: Caller = OPERATOR, store: RunStore | None = None) -> None:
    """Remove a facilitator's expert (by name or domain); runs that used it keep their recorded persona."""
    require_facilitator(caller, "delete an expert")
    store = store or get_store()
    key = slug(canonical_text(name))
    if not store.delete_custom_expert_row(key):
        raise CustomExpertError(f"There is no custom expert {str(name)[:60]!r}.")
    sync_custom_experts(store=store)
