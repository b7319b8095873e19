"""Display names that cannot impersonate: one normal form, Unicode's confusable skeletons, no tags, a visible letter.

A participant's display name is shown beside their words on the projector and every phone, so it must not pose
as someone else or carry a fake tag:

- **NFKC first** — full-width ``ＡＤＡ`` is ``ADA``, superscript ``⁴⁰`` is ``40``, ligatures are letters;
- **invisible letters dropped** — the Hangul fillers (U+3164 …) and the braille blank are *letters* to Unicode
  but draw nothing: a name of one of them was a blank name. A name needs at least one visible letter;
- **confusable skeletons** (Unicode Technical Standard #39, from ICU's ``SpoofChecker`` via the PyPI wheel
  ``pyicu-wheels`` — Unicode's own data, kept current by ICU, not a table of ours): ``tеacher`` with a Cyrillic
  ``е`` has the skeleton of ``teacher``, so a reserved word is refused whatever script spells it, and two people
  whose names share a skeleton (``Anna`` in Latin and in Greek letters) are told apart on screen as ``Anna``,
  ``Anna (2)``;
- **no tag-like words** — vote counts and the words the room list uses for decisions (``accepted``,
  ``hidden`` …) are not names, so ``Ada accepted 40`` cannot look like a decided contribution.

Pure functions (no streamlit); :func:`skeleton` is what the workshop keys twins by.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from typing import Any

from ifworld.errors import InputError

__all__ = ["NameRefused", "clean_display_name", "has_visible_letter", "name_key", "skeleton"]

INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e")
"""Code points that Unicode counts as letters (or symbols) but that draw nothing: the Hangul choseong/jungseong/
compatibility/half-width fillers, the braille pattern blank, Khmer's inherent vowels, the Mongolian vowel
separator."""
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
NAME_PUNCTUATION = " .'-_"
MAX_MARKS_IN_A_ROW = 2
"""Combining marks after one letter (Devanagari and Vietnamese need two; "Zalgo" stacks dozens)."""
TAG_WORDS = frozenset({"accept", "accepted", "reject", "rejected", "hidden", "merged", "undecided", "edited",
                       "decided", "decision", "vote", "votes", "voted"})
"""Words the room list and the exports put beside a name or a contribution: a name made of them reads as a tag."""


class NameRefused(InputError):
    """A display name that could pass for someone or something else (the message says why)."""


@cache
def _checker() -> Any:
    import icu  # ICU's SpoofChecker (pyicu-wheels); imported on first use, the rest of ifworld never needs it

    return icu.SpoofChecker()


@lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """The UTS #39 confusable skeleton of ``text`` after NFKC and case folding: two strings with one skeleton
    look alike (``Аda`` with a Cyrillic ``А`` and ``Ada``; ``rn`` and ``m``)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return str(_checker().getSkeleton(0, folded))


def name_key(name: str) -> str:
    """What two display names must differ in to be two names on screen: their skeleton, spaces folded."""
    return " ".join(skeleton(name).split())


def has_visible_letter(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") and ch not in INVISIBLE_LETTERS for ch in text)


def _visible(text: str) -> str:
    kept = (ch for ch in text if unicodedata.category(ch) not in _INVISIBLE_CATEGORIES and ch not in INVISIBLE_LETTERS)
    return " ".join("".join(kept).split())


def _allowed(name: str) -> bool:
    marks = 0
    for i, ch in enumerate(name):
        if unicodedata.category(ch).startswith("M"):
            marks += 1
            if i == 0 or marks > MAX_MARKS_IN_A_ROW:
                return False
            continue
        marks = 0
        if not (ch.isalnum() or ch in NAME_PUNCTUATION):
            return False
    return True


def _words(name: str) -> list[str]:
    return [w for w in "".join(" " if ch in "-_." else ch for ch in name).split() if w.strip("'")]


@cache
def _skeletons(words: frozenset[str]) -> frozenset[str]:
    return frozenset(skeleton(w) for w in words)


def clean_display_name(value: Any, *, limit: int, reserved: frozenset[str] = frozenset(),
                       help_text: str = "letters, digits, spaces and . ' - _") -> str:
    """A display name as stored (NFKC, invisible code points dropped, spaces folded), or :class:`NameRefused`:
    empty or too long, characters outside ``help_text``, no visible letter, a word that is (or looks like, in any
    script) one of ``reserved`` or a tag word."""
    if not isinstance(value, str):
        raise NameRefused("the display name must be text")
    name = _visible(unicodedata.normalize("NFKC", value))
    if not name:
        raise NameRefused("the display name is empty")
    if len(name) > limit:
        raise NameRefused(f"the display name is {len(name):,} characters; at most {limit:,}")
    if not _allowed(name):
        raise NameRefused(f"a display name may use {help_text} only")
    if not has_visible_letter(name):
        raise NameRefused("a display name needs at least one letter")
    words = _words(name)
    keys = {skeleton(w.strip("'")) for w in words}
    if keys & _skeletons(frozenset(reserved)):
        raise NameRefused("choose another display name: it may not look like the facilitator, the panel or one of "
                          "its experts")
    if keys & _skeletons(TAG_WORDS):
        raise NameRefused("choose another display name: words such as 'accepted' or 'votes' read as the room's own "
                          "labels")
    return name
