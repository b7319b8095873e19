"""Propositions and input validation for IF-World (expert domains: :mod:`ifworld.whatif.experts`).

The proposition is user data: it is validated here (length cap, control characters) before any model sees
it, and every prompt wraps it in ``<proposition>`` delimiters with an instruction to treat it as data.
"""

from __future__ import annotations

import re
import unicodedata

from ifworld.errors import InputError
from ifworld.whatif.experts import (  # noqa: F401  (expert domains are data now: re-exported for callers)
    DEFAULT_EXPERTS,
    MAX_DOMAIN_CHARS,
    MAX_EXPERTS,
    default_experts,
    known_experts,
    normalize_experts,
    persona,
    suggest_experts,
)

MAX_PROPOSITION_CHARS = 2_000
MAX_LANGUAGE_CHARS = 40
# The bounds of the run-size parameters (rounds, breadth, depth, debate_rounds) are declared once, by the method
# that reads them (``MethodSpec.params`` in :mod:`ifworld.whatif.builtin_methods`; :mod:`ifworld.whatif.run_params`).
# The paper's ten evaluation topics (§3.1, in its order and its wording, as "What if …?" questions; nothing
# added, such as an "overnight"), and its ablation topic (§3.4). Sea level uses the case study's 10 meters (§3.5).
PAPER_PROPOSITIONS: list[str] = [
    "What if there were a persistent global cloud?",
    "What if a supervolcano erupted next?",
    "What if all insects disappeared?",
    "What if Earth's axial tilt increased?",
    "What if Earth's magnetic field collapsed?",
    "What if Earth's rotation slowed?",
    "What if global sea levels rose by 10 meters?",
    "What if gravity were ×10?",
    "What if oxygen levels rose?",
    "What if the Moon disappeared?",
]
ABLATION_PROPOSITION = "What if Earth's magnetic field collapsed for ten years?"

CLASSROOM_PRESETS: list[str] = [
    "What if a city of one million people lost its tap water supply for two weeks?",
    "What if a regional power grid failed for 72 hours during a winter cold snap?",
    "What if a 45 °C heatwave lasted ten days in a temperate European capital?",
    "What if a new respiratory virus doubled hospital admissions for three months?",
    "What if our school moved to a four-day week?",
]

_LANGUAGE_RE = re.compile(r"[^\W\d_](?:[^\W\d_]|[ ()\-])*", re.UNICODE)
_CONTROL_RE = re.compile(r"[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]")


def validate_proposition(text: str | None) -> str:
    """The cleaned proposition, or ValueError saying exactly what is wrong.

    Control and zero-width characters are removed, whitespace runs collapse; empty text and text over
    :data:`MAX_PROPOSITION_CHARS` are refused. Any language is accepted (the report is written in English).
    """
    if text is None:
        raise InputError("The proposition is empty: write a what-if question such as 'What if the Moon vanished?'")
    cleaned = unicodedata.normalize("NFC", _CONTROL_RE.sub(" ", str(text).replace("\t", " ")))
    cleaned = re.sub(r"[ ]{2,}", " ", cleaned)
    cleaned = "\n".join(line.strip() for line in cleaned.splitlines()).strip()
    if not cleaned:
        raise InputError("The proposition is empty (only whitespace or control characters): "
                         "write a what-if question such as 'What if the Moon vanished?'")
    if len(cleaned) > MAX_PROPOSITION_CHARS:
        raise InputError(f"The proposition is {len(cleaned):,} characters long; the limit is "
                         f"{MAX_PROPOSITION_CHARS:,} characters (MAX_PROPOSITION_CHARS). Shorten it.")
    return cleaned


def validate_language(language: str | None) -> str:
    """``auto`` (the report follows the proposition's language) or a language name of at most 40 letters."""
    text = " ".join(str(language or "auto").split())
    if text.lower() == "auto":
        return "auto"
    if len(text) > MAX_LANGUAGE_CHARS or not _LANGUAGE_RE.fullmatch(text):
        raise InputError(f"Report language {text[:60]!r} is not usable: name a language (e.g. 'Français') "
                         f"in at most {MAX_LANGUAGE_CHARS} letters, or 'auto'.")
    return text


def workflow_name(method: str) -> str:
    """Registered workflow for a method name (``ifworld`` → ``whatif.ifworld``); an unknown name is an
    ``UnknownEntry`` listing the registered methods (:mod:`ifworld.whatif.methods`)."""
    from ifworld.whatif.methods import REGISTRY

    return REGISTRY.get(method).workflow
