"""Text answers as people word them: word families of one direction and the field's abbreviations.

Used by :mod:`ifworld.rws.grading.textual` on both the answer and the reference before they are compared, so
a rewriting can only make two texts that say the same thing look the same:

* ``toward(s) the south`` / ``to the south`` / ``southwards`` → ``southward``, ``towards the Sun`` →
  ``sunward``, ``away from the Sun`` → ``antisunward`` (``from the north`` is left alone: a flow *from* the north
  goes south);
* abbreviations (``CME``, ``HCS``, ``IMF`` …) → their long names, from one data file, ``data/abbreviations.tsv``,
  matched as whole upper-case words (a plural ``s`` kept: ``CMEs`` → ``coronal mass ejections``).

The opposite direction and sign words the textual grader refuses (north/south, strengthens/weakens, hot/cold …)
are data too, in one file, ``data/antonyms.tsv`` (:func:`opposites`): adding a pair needs no code.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ifworld import resources

ABBREVIATIONS_FILE = "abbreviations.tsv"
ANTONYMS_FILE = "antonyms.tsv"
_DIRECTIONS = r"north|south|east|west|sun|earth|dawn|dusk|equator|pole"
_MOTION = r"directed|heading|pointing|points?|moving|moves?|going|goes|flows?|flowing|travels?|travelling|propagates?"
_TOWARD = re.compile(rf"(?i)(?:\b(?:{_MOTION})\s+(?:to|toward|towards)|\btowards?)\s+(?:the\s+)?({_DIRECTIONS})\b")
"""A direction phrase: "toward(s) the X", or "to the X" after a verb of motion ("the distance to the Sun" is not)."""
_AWAY = re.compile(r"(?i)\baway\s+from\s+(?:the\s+)?(sun)\b")
_WARDS = re.compile(rf"(?i)\b({_DIRECTIONS}|up|down|in|out)wards\b")


def _pairs(name: str) -> list[tuple[str, str]]:
    """The ``left <tab> right`` rows of a data file (comments and blank lines skipped)."""
    rows = []
    for line in resources.data_path(name).read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "\t" in line:
            left, right = line.split("\t", 1)
            rows.append((left.strip(), right.strip()))
    return rows


@lru_cache(maxsize=1)
def abbreviations() -> dict[str, str]:
    """ABBREVIATION → long name, read once from ``data/abbreviations.tsv``."""
    return dict(_pairs(ABBREVIATIONS_FILE))


@lru_cache(maxsize=1)
def opposites() -> dict[str, str]:
    """word → its opposite, both ways, read once from ``data/antonyms.tsv`` (a word keeps its first opposite)."""
    table: dict[str, str] = {}
    for left, right in _pairs(ANTONYMS_FILE):
        table.setdefault(left.lower(), right.lower())
        table.setdefault(right.lower(), left.lower())
    return table


@lru_cache(maxsize=1)
def _abbreviation_re() -> re.Pattern[str]:
    names = sorted(abbreviations(), key=len, reverse=True)
    return re.compile(r"\b(%s)(s?)\b" % "|".join(map(re.escape, names)))


def expand(text: str) -> str:
    """`text` with abbreviations written out and direction phrases as one ``-ward`` word (see module docstring)."""
    table = abbreviations()
    text = _abbreviation_re().sub(lambda m: table[m.group(1)] + m.group(2), text)
    text = _AWAY.sub(lambda m: f"anti{m.group(1).lower()}ward", text)
    text = _TOWARD.sub(lambda m: f"{m.group(1).lower()}ward", text)
    return _WARDS.sub(lambda m: f"{m.group(1).lower()}ward", text)
