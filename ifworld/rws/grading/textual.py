"""Textual stage: normalised exact match, then key-term containment — the programmatic pass only.

A paraphrase we cannot confirm is ``not_sure`` ("needs LLM verifier"), never ``incorrect``: judging
meaning is the verifier's job. We only say ``incorrect`` when the answer asserts the opposite of a key
term (``westward`` for ``eastward``) without also containing the gold term.
"""

from __future__ import annotations

import re
import unicodedata

from ifworld.rws.grading.latexnorm import fold_confusables
from ifworld.rws.grading.result import FORMAT_VIOLATION, NEEDS_VERIFIER, UNSCORED_GOLD, CheckResult, Verdict

_STOPWORDS = frozenset(
    "a an the of to in on at by for and or is are was were be it its this that these those with as from "
    "so which who whom into onto than then there their they them also".split()
)
_NEGATIONS = frozenset("not no never neither nor without cannot isnt doesnt dont wont".split())
_OPPOSITES = {
    "increases": "decreases", "increase": "decrease", "higher": "lower", "larger": "smaller",
    "north": "south", "northward": "southward", "east": "west", "eastward": "westward",
    "inward": "outward", "dawn": "dusk", "positive": "negative", "inner": "outer", "closer": "farther",
    "day": "night", "daytime": "nighttime", "parallel": "antiparallel", "yes": "no", "true": "false",
    "faster": "slower", "stronger": "weaker", "open": "closed",
}
_OPPOSITES.update({v: k for k, v in list(_OPPOSITES.items())})
_HEDGES = frozenset("either or maybe perhaps possibly might could may unclear uncertain probably likely unsure "
                    "depends".split())
"""Words that turn a containing answer into a hedge ("either eastward or westward")."""
HOMOGLYPH = "homoglyph"
MAX_CONTAINMENT_RATIO = 4
"""A containing answer may be at most this many times longer than the gold (else it could be a list)."""


def normalise(text: str) -> str:
    """Lower-case, strip accents, unify dashes/quotes, drop punctuation and LaTeX, squeeze spaces."""
    s, _ = fold_confusables(text)
    s = unicodedata.normalize("NFKD", s)
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"[\u2010-\u2015\u2212-]", " ", s)
    s = re.sub(r"\\(?:text|mathrm|textrm)\{([^{}]*)\}", r"\1", s).replace("$", " ")
    s = re.sub(r"[’'`]", "", s.lower())
    s = re.sub(r"[^\w\s]", " ", s)
    return " ".join(s.split())


def _content(words: list[str]) -> list[str]:
    """Words without stopwords."""
    return [w for w in words if w not in _STOPWORDS]


def _contains(haystack: list[str], needle: list[str]) -> int:
    """Start index of needle as a contiguous word run in haystack, or -1."""
    size = len(needle)
    for start in range(len(haystack) - size + 1):
        if haystack[start:start + size] == needle:
            return start
    return -1


def check_textual(pred: str, gold: str) -> CheckResult:
    """Grade a short textual answer programmatically; undecidable paraphrases are not_sure."""
    p_norm, g_norm = normalise(pred), normalise(gold)

    def result(verdict: Verdict, reason: str, notes: list[str] | None = None) -> CheckResult:
        return CheckResult(verdict=verdict, type="textual", reason=reason, pred_norm=p_norm, gt_norm=g_norm,
                           stage="textual", annotations=notes or [])

    if not g_norm:
        return result("not_sure", "unscored gold: empty after normalisation", [UNSCORED_GOLD])
    if not p_norm:
        return result("incorrect", "format violation: empty answer", [FORMAT_VIOLATION])
    p_words, g_words = p_norm.split(), g_norm.split()
    g_key = _content(g_words) or g_words
    p_key = _content(p_words) or p_words
    p_set = set(_content(p_words))
    g_set = set(g_words)
    if fold_confusables(pred)[1]:
        # a look-alike letter inside a Latin word: never "correct" (it is how a wrong answer hides)
        for word in g_key:
            opposite = _OPPOSITES.get(word)
            if opposite and opposite in p_set and word not in p_set and opposite not in g_set:
                return result("incorrect", f"answer says {opposite!r} where the gold says {word!r}", [HOMOGLYPH])
        return result("not_sure", "look-alike letters from another script in the answer", [HOMOGLYPH, NEEDS_VERIFIER])
    for word in g_key:  # opposites before any acceptance, so a hedge naming both is never "correct"
        opposite = _OPPOSITES.get(word)
        if opposite and opposite in p_set and opposite not in g_set:
            if word in p_set:
                return result("not_sure", f"answer names both {word!r} and its opposite {opposite!r} (hedge)",
                              [NEEDS_VERIFIER])
            return result("incorrect", f"answer says {opposite!r} where the gold says {word!r}")
    if p_norm == g_norm or _content(p_words) == _content(g_words):
        return result("correct", "exact match after normalisation")
    hedged = any(w in _HEDGES for w in p_words) and not any(w in _HEDGES for w in g_words)
    start = _contains(p_key, g_key)
    short_enough = len(p_words) <= MAX_CONTAINMENT_RATIO * len(g_words) + 4
    added_negation = any(w in _NEGATIONS for w in p_words) and not any(w in _NEGATIONS for w in g_words)
    contained = (start >= 0 and short_enough) or (len(g_key) <= 6 and set(g_key) <= p_set)
    if contained and hedged:
        return result("not_sure", "answer contains the gold phrase but hedges", [NEEDS_VERIFIER])
    extra = [w for w in _content(p_words) if w not in g_set]
    def joins(words: list[str], raw: str) -> int:
        return words.count("and") + raw.count(",") + raw.count(";")

    if contained and extra and joins(p_words, pred) > joins(g_words, gold):
        return result("not_sure", "answer lists more than the gold (several answers?)", [NEEDS_VERIFIER])
    if start >= 0 and not added_negation and short_enough:
        return result("correct", "answer contains the gold phrase")
    if len(g_key) <= 6 and set(g_key) <= p_set and not any(w in _NEGATIONS for w in p_words):
        return result("correct", "answer contains every gold key term")
    return result("not_sure", "no programmatic match; needs LLM verifier", [NEEDS_VERIFIER])
