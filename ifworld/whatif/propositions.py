"""Propositions, expert panels and input validation for IF-World.

The proposition is user data: it is validated here (length cap, control characters) before any model sees
it, and every prompt wraps it in ``<proposition>`` delimiters with an instruction to treat it as data.
"""

from __future__ import annotations

import re
import unicodedata

MAX_PROPOSITION_CHARS = 2_000
MIN_ROUNDS = 1
MAX_ROUNDS = 6
MAX_EXPERTS = 12
METHODS = ("ifworld", "single", "tree", "debate")

PAPER_PROPOSITIONS: list[str] = [
    "What if Earth's surface gravity were 10% stronger?",
    "What if the Moon disappeared overnight?",
    "What if room-temperature superconductors became cheap and widely available?",
    "What if photosynthesis in all major crops became twice as efficient?",
    "What if antibiotics stopped working worldwide within five years?",
    "What if the global Internet went down for one month?",
    "What if all fossil-fuel extraction stopped tomorrow?",
    "What if average healthy human lifespan rose to 150 years?",
    "What if the Atlantic Meridional Overturning Circulation collapsed within a decade?",
    "What if humans no longer needed to sleep?",
]

CLASSROOM_PRESETS: list[str] = [
    "What if a city of one million people lost its tap water supply for two weeks?",
    "What if a regional power grid failed for 72 hours during a winter cold snap?",
    "What if a 45 °C heatwave lasted ten days in a temperate European capital?",
    "What if a new respiratory virus doubled hospital admissions for three months?",
    "What if our school moved to a four-day week?",
]

DEFAULT_EXPERTS: list[str] = [
    "physics", "materials chemistry", "biology/ecology", "medicine", "sociology", "economics", "engineering",
    "environment", "politics",
]
EXTRA_EXPERTS: list[str] = ["psychology", "law", "computer science", "geology", "astronomy", "agriculture",
                            "public health", "education"]
KNOWN_EXPERTS: list[str] = DEFAULT_EXPERTS + EXTRA_EXPERTS
EXPERT_ALIASES: dict[str, str] = {
    "biology": "biology/ecology", "ecology": "biology/ecology", "chemistry": "materials chemistry",
    "materials": "materials chemistry", "environmental science": "environment", "political science": "politics",
    "economy": "economics", "engineer": "engineering", "medical": "medicine", "health": "public health",
    "cs": "computer science",
}
_CONTROL_RE = re.compile(r"[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]")


def validate_proposition(text: str | None) -> str:
    """The cleaned proposition, or ValueError saying exactly what is wrong.

    Control and zero-width characters are removed, whitespace runs collapse; empty text and text over
    :data:`MAX_PROPOSITION_CHARS` are refused. Any language is accepted (the report is written in English).
    """
    if text is None:
        raise ValueError("The proposition is empty: write a what-if question such as 'What if the Moon vanished?'")
    cleaned = unicodedata.normalize("NFC", _CONTROL_RE.sub(" ", str(text).replace("\t", " ")))
    cleaned = re.sub(r"[ ]{2,}", " ", cleaned)
    cleaned = "\n".join(line.strip() for line in cleaned.splitlines()).strip()
    if not cleaned:
        raise ValueError("The proposition is empty (only whitespace or control characters): "
                         "write a what-if question such as 'What if the Moon vanished?'")
    if len(cleaned) > MAX_PROPOSITION_CHARS:
        raise ValueError(f"The proposition is {len(cleaned):,} characters long; the limit is "
                         f"{MAX_PROPOSITION_CHARS:,} characters (MAX_PROPOSITION_CHARS). Shorten it.")
    return cleaned


def normalize_experts(names: list[str] | str | None) -> list[str]:
    """Canonical expert domains (aliases resolved, duplicates dropped); ValueError on an unknown one."""
    if names is None:
        return list(DEFAULT_EXPERTS)
    if isinstance(names, str):
        names = [n for n in names.split(",")]
    out: list[str] = []
    for raw in names:
        name = " ".join(str(raw).strip().lower().split())
        if not name:
            continue
        name = EXPERT_ALIASES.get(name, name)
        if name not in KNOWN_EXPERTS:
            raise ValueError(f"Unknown expert {raw.strip()!r}. Known experts: {', '.join(KNOWN_EXPERTS)} "
                             f"(aliases: {', '.join(sorted(EXPERT_ALIASES))}).")
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("The expert list is empty: name at least one expert, e.g. physics,economics.")
    if len(out) > MAX_EXPERTS:
        raise ValueError(f"{len(out)} experts given; at most {MAX_EXPERTS} (MAX_EXPERTS) are allowed.")
    return out


def validate_rounds(rounds: int) -> int:
    if not isinstance(rounds, int) or rounds < MIN_ROUNDS or rounds > MAX_ROUNDS:
        raise ValueError(f"rounds must be an integer from {MIN_ROUNDS} to {MAX_ROUNDS} (got {rounds!r}).")
    return rounds


def workflow_name(method: str) -> str:
    """Registered workflow for a method name (``ifworld`` → ``whatif.ifworld``)."""
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    return f"whatif.{method}"
