"""The judge's rubric and its blinding: what the judge is asked and what it is shown (no model calls here).

Rubric: the paper's five dimensions with their point ranges (weights) from §3.2 ("The rubric spans five
dimensions totaling 100 points") and Appendix C.2 (the keys), described in our own words. The descriptions
name qualities of an analysis, never a method's section vocabulary (IF-World's "numbered assumptions",
"decision table", "minimal change", the tree's "critic score", the debate's "Pro/Con" …): a rubric that
quotes one method's headings rewards that method for matching words, not for reasoning.

Blinding (§3.1: "method names hidden from the judge to avoid bias"): every method's text goes through the
same :func:`blind` — method names, their spellings and role labels, and a method's references to itself
are replaced case-insensitively (also inside headings, with look-alike hyphens, zero-width characters or
Markdown emphasis between the parts). The judge then reads the whole blinded text, fitted to its model's window
by the one packer (:mod:`ifworld.llm.packing`) — the same for every method.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY


class Dimension(NamedTuple):
    key: str
    label: str
    max_points: int
    description: str


# §3.2 names and ranges (0–25, 0–25, 0–20, 0–15, 0–15); Appendix C.2 the JSON keys. Descriptions are ours.
RUBRIC: tuple[Dimension, ...] = (
    Dimension("rigor_traceability", "Rigor & traceability", 25,
              "how openly the analysis states what it takes for granted, grounds its claims in evidence or data, "
              "and lets a reader follow and check each step from premise to conclusion"),
    Dimension("integration_causality", "Integration & causality", 25,
              "how well it connects effects across fields of knowledge, explains the mechanisms that carry a "
              "cause to its consequences, and makes the parts add up to one coherent account"),
    Dimension("feasibility_minimality", "Feasibility & minimality", 20,
              "whether the consequences stay physically and practically plausible under real limits, without "
              "far-fetched or over-extended chains and without piling on assumptions the question does not need"),
    Dimension("uncertainty_adaptation", "Uncertainty & adaptation", 15,
              "whether it says how sure it is (ranges, confidence), which factors the outcome is sensitive to, "
              "and how people, markets, institutions or nature could substitute or adapt"),
    Dimension("decisionability", "Decisionability", 15,
              "how far it helps someone act: what to observe, at which levels a response is warranted, and "
              "which course of action follows from what is observed"),
)
RUBRIC_TOTAL = 100  # §3.2: "five dimensions totaling 100 points"
JUDGE_MAXIMA: dict[str, int] = {d.key: d.max_points for d in RUBRIC}
JUDGE_LABELS: dict[str, str] = {d.key: d.label for d in RUBRIC}
REDACTED = "[redacted]"

_SEP = r"[\W_]*"  # anything but letters and digits between the parts of a name: "IF-World", "IF **World**"
# Self-references of any method, as word sequences (matched with any separators, in any case); each method's
# own names are its spec's ``blind_words`` (ifworld.whatif.methods), added by :func:`method_names`.
GENERIC_NAMES: tuple[str, ...] = (
    "as the judge", "as judge", "baseline", "baselines", "multi agent", "multiagent",
)
# "IF-World" in any case with any non-space separator; with a plain space only when capitalised ("IF World"),
# so that English such as "even if world markets adapt" is left alone.
_IFWORLD = r"\bif(?:[^\w\s]|_)[\W_]*worlds?\b|(?-i:\b(?:IF|If)\s+(?:World|WORLD)s?\b)"
_ROLE_RE = re.compile(r"\b(?:agent\s*role\s*:?\s*)?whatif(?:\.[a-z_]+)+\b", re.I)  # our role ids
# A Pro/Con label: at the start of a line or heading, after "Round N", or as a Markdown emphasis label.
_SIDE_RE = re.compile(r"(?im)(^[\s#>*_\-\d.)]*|\bround\s*\d+\s*[:\-–—]?\s*|[*_]{1,2})(pro|con)\b"
                      r"(?=\s*(?:[:–—)]|-\s|[*_]{1,2}|$|\s+(?:side|argument|case|position|view)\b))")
_STEP_RE = re.compile(r"(?im)\b(?:step|variant|branch|node|depth)\s*#?\s*\d+(?:\.\d+)*\s*[:\-–—]?"
                      r"(?=[^\n]*\b(?:critic|score|assum\w*|answer|draft)\b)")
_SCORE_RE = re.compile(r"\(?\s*(?:critic\s*)?score\s*:?\s*\d+(?:\.\d+)?\s*/\s*10\s*\)?", re.I)
_INVISIBLE_RE = re.compile(r"[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")


def _name_pattern(words: str) -> str:
    return r"\b" + _SEP.join(re.escape(w) for w in words.split()) + r"\b"


def method_names() -> tuple[str, ...]:
    """Every word sequence the judge must not see: each registered method's name, label and ``blind_words``,
    and the generic self-references."""
    own = [w for spec in METHOD_REGISTRY for w in (spec.name.replace("_", " "), spec.label, *spec.blind_words)]
    return tuple(dict.fromkeys([*own, *GENERIC_NAMES]))


@lru_cache(maxsize=8)
def _names_re(names: tuple[str, ...]) -> re.Pattern[str]:
    words = sorted({" ".join(re.findall(r"[\w']+", n)) for n in names} - {""}, key=len, reverse=True)
    return re.compile("|".join([_IFWORLD, *(_name_pattern(n) for n in words)]), re.I)


def blind(text: str) -> str:
    """``text`` with method names, role labels and self-references replaced by :data:`REDACTED`.

    The text is NFKC-normalised first (full-width letters, look-alike hyphens) and stripped of zero-width
    characters, so "I\u200bF‑World" and "ＩＦ-World" are caught like "IF-World"."""
    out = _INVISIBLE_RE.sub("", unicodedata.normalize("NFKC", text))
    out = _ROLE_RE.sub(REDACTED, out)
    out = _SCORE_RE.sub("", out)
    out = _STEP_RE.sub("", out)
    out = _SIDE_RE.sub(lambda m: m.group(1) + REDACTED, out)
    return _names_re(method_names()).sub(REDACTED, out)


def judge_text(text: str) -> str:
    """What the judge is given of any method's output: the whole text, blinded (the packer fits it to the
    judge's window, alike for every method)."""
    return blind(text)


def rubric_text() -> str:
    """The rubric lines the judge prompt shows (ranges from :data:`RUBRIC`, the same numbers the schema checks)."""
    lines = [f"- {d.key} (0-{d.max_points}): {d.description}." for d in RUBRIC]
    return "\n".join([*lines, f"- overall (0-{RUBRIC_TOTAL}): the sum of the five scores."])
