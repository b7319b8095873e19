"""Textual stage: normalised exact match, then key-term containment — the programmatic pass only.

A paraphrase we cannot confirm is ``not_sure`` ("needs LLM verifier"), never ``incorrect``: judging
meaning is the verifier's job. We say ``incorrect`` only where no model is needed: the answer asserts the
opposite of a key term (``westward`` for ``eastward``, ``weakens`` for ``strengthens``) without also containing
the gold term, hedges between the two ("either sunward or antisunward"), or is the gold with a negation added
or removed ("is not adiabatic" for "is adiabatic"). The pairs of opposite words are data, ``data/antonyms.tsv``
(read by :func:`ifworld.rws.grading.wording.opposites`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ifworld.rws.grading.latexnorm import fold_confusables
from ifworld.rws.grading.result import FORMAT_VIOLATION, NEEDS_VERIFIER, UNSCORED_GOLD, CheckResult, Verdict
from ifworld.rws.grading.wording import expand, opposites

_STOPWORDS = frozenset(
    "a an the of to in on at by for and or is are was were be it its this that these those with as from "
    "so which who whom into onto than then there their they them also".split()
)
_NEGATIONS = frozenset("not no never neither nor without cannot isnt doesnt dont wont".split())
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
    s = re.sub(r"(?i)\b(anti|non|counter)[\u2010-\u2015\u2212\s-]+(?=[a-z])", r"\1", s)  # one word: anti-sunward
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


def _opposed(p_words: list[str], g_words: list[str], g_key: list[str]) -> tuple[Verdict, str] | None:
    """An opposite direction or sign word (``southward`` for ``northward``, ``nonadiabatic`` for ``adiabatic``):
    incorrect; both the word and its opposite: incorrect when hedged ("either … or …"), else not_sure."""
    p_set, g_set = set(_content(p_words)), set(g_words)
    table = opposites()  # data/antonyms.tsv
    for word in g_key:
        candidates = {table.get(word, ""), f"non{word}", word[3:] if word.startswith("non") else ""} - {""}
        for opposite in sorted(candidates):
            if opposite in p_set and opposite not in g_set:
                if word not in p_set:
                    return "incorrect", f"answer says {opposite!r} where the gold says {word!r}"
                if any(w in _HEDGES for w in p_words):
                    return "incorrect", f"a hedge naming both {word!r} and its opposite {opposite!r}"
                return "not_sure", f"answer names both {word!r} and its opposite {opposite!r} (hedge)"
    return None


def _negated(p_words: list[str], g_words: list[str]) -> str:
    """The reference with a negation added or removed ("is not adiabatic" for "is adiabatic"), or ""."""
    def core(words: list[str]) -> list[str]:
        return [w for w in _content(words) if w not in _NEGATIONS]

    p_neg, g_neg = (sum(w in _NEGATIONS for w in words) for words in (p_words, g_words))
    p_core, g_core = core(p_words), core(g_words)
    if p_neg % 2 == g_neg % 2 or not g_core:
        return ""
    if p_core == g_core or (_contains(p_core, g_core) >= 0 and len(p_core) <= len(g_core) + 2):
        return "a negation added to the gold" if p_neg > g_neg else "the gold's negation removed"
    return ""


def check_textual(pred: str, gold: str) -> CheckResult:
    """Grade a short textual answer programmatically; undecidable paraphrases are not_sure.

    Abbreviations and direction phrases are read first (:mod:`ifworld.rws.grading.wording`); an opposite word,
    a hedge naming both and an added or removed negation are decided here — no model is needed for them.
    """
    p_norm, g_norm = normalise(expand(pred)), normalise(expand(gold))

    def result(verdict: Verdict, reason: str, notes: list[str] | None = None) -> CheckResult:
        return CheckResult(verdict=verdict, type="textual", reason=reason, pred_norm=p_norm, gt_norm=g_norm,
                           stage="textual", annotations=notes or [])

    if not g_norm:
        return result("not_sure", "unscored gold: empty after normalisation", [UNSCORED_GOLD])
    if not p_norm:
        return result("incorrect", "format violation: empty answer", [FORMAT_VIOLATION])
    p_words, g_words = p_norm.split(), g_norm.split()
    g_key = _content(g_words) or g_words
    if fold_confusables(pred)[1]:
        # a look-alike letter inside a Latin word: never "correct" (it is how a wrong answer hides)
        opposed = _opposed(p_words, g_words, g_key)
        if opposed is not None and opposed[0] == "incorrect":
            return result("incorrect", opposed[1], [HOMOGLYPH])
        return result("not_sure", "look-alike letters from another script in the answer", [HOMOGLYPH, NEEDS_VERIFIER])
    opposed = _opposed(p_words, g_words, g_key)  # before any acceptance: a hedge naming both is never "correct"
    if opposed is not None:
        return result(opposed[0], opposed[1], [NEEDS_VERIFIER] if opposed[0] == "not_sure" else [])
    negated = _negated(p_words, g_words)
    if negated:
        return result("incorrect", f"{negated}: the answer says the opposite")
    if p_norm == g_norm or _content(p_words) == _content(g_words):
        return result("correct", "exact match after normalisation")
    return _contained(pred, gold, p_words, g_words, g_key, result)


def _contained(pred: str, gold: str, p_words: list[str], g_words: list[str], g_key: list[str],
               result: Callable[..., CheckResult]) -> CheckResult:
    """An answer that contains the gold phrase or all its key terms: correct unless hedged, negated or a list."""
    p_key = _content(p_words) or p_words
    p_set, g_set = set(_content(p_words)), set(g_words)
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
