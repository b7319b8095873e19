"""How RWS items read on a page: plain Unicode labels for pickers, LaTeX with upright units for answers.

Streamlit's select boxes show text only, so an item's question (``$V = 400$ km/s and $\\Omega = 2.7 \\times
10^{-6}$ rad/s``) becomes ``V = 400 km/s and Ω = 2.7 × 10⁻⁶ rad/s`` through pylatexenc's LaTeX-to-text converter;
pylatexenc leaves exponents as ``^-6``, so :func:`plain_text` turns simple ones (digits and a sign) into
superscripts — a dozen-character table, not worth another dependency. In maths mode every letter is italic, so a
numeric answer typed as ``37.1 km s^{-1}`` would read as the product of variables k, m and s:
:func:`answer_latex` sets the number, then the unit upright with thin spaces (``37.1\\,\\mathrm{km\\,s^{-1}}``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

SUPERSCRIPTS = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_EXPONENT = re.compile(r"\^\{?([-+]?\d{1,3})\}?")
_DIGIT_SUBSCRIPT = re.compile(r"(?<=[A-Za-zα-ωΑ-Ω])_\{?(\d{1,2})\}?")
_NUMBER = re.compile(r"^\s*(?P<num>[-+−]?\d[\d,]*(?:\\,\d+)*(?:\.\d+)?(?:[eE][-+]?\d+)?"
                     r"(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?[-+−]?\d+\}?)?)\s*(?P<unit>.*?)\s*$")
_PROSE_SPECIALS = re.compile(r"(?<!\\)[%&]")
_DEGREE = re.compile(r"^\^\{?\\circ\}?(?P<rest>.*)$")


@lru_cache(maxsize=1)
def _converter() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text")


def plain_text(text: str) -> str:
    """Mixed prose and LaTeX as readable Unicode text (no dollar signs, Greek letters, ×, superscripts)."""
    escaped = _PROSE_SPECIALS.sub(r"\\\g<0>", text or "")  # "50 %" is prose here, not a LaTeX comment
    try:
        out = _converter().latex_to_text(escaped)
    except Exception:  # noqa: BLE001 — a label must never fail: fall back to the raw text without dollars
        out = (text or "").replace("$", "")
    out = _EXPONENT.sub(lambda m: m.group(1).translate(SUPERSCRIPTS), out)
    out = _DIGIT_SUBSCRIPT.sub(lambda m: m.group(1).translate(SUBSCRIPTS), out).replace("^∘", "°")
    return re.sub(r"\s+", " ", out).strip()


def item_label(item_id: str, kind: str, question: str, width: int = 70) -> str:
    """A picker label: ``id · type · question`` with the question as plain text, cut at ``width`` characters."""
    text = plain_text(question)
    return f"{item_id} · {kind} · {text if len(text) <= width else text[: width - 1].rstrip() + '…'}"


def _upright(unit: str) -> str:
    tokens = [_PROSE_SPECIALS.sub(r"\\\g<0>", t) for t in re.split(r"\s+|\\,|\\;|~", unit) if t]
    return r"\mathrm{" + r"\,".join(tokens) + "}"


def answer_latex(final: str, kind: str) -> str | None:
    """The answer as LaTeX to display, or ``None`` when it is prose (textual answers, or numeric ones that do not
    start with a number): symbolic answers as written; numeric ones as number, thin space, upright unit."""
    if kind == "symbolic":
        return final.strip()
    if kind != "numeric":
        return None
    found = _NUMBER.match(final)
    if not found:
        return None
    number, unit = found.group("num").replace("−", "-"), found.group("unit")
    if not unit:
        return number
    degree = _DEGREE.match(unit)
    if degree:
        rest = degree.group("rest").strip()
        return number + r"^\circ" + (r"\," + _upright(rest) if rest else "")
    return number + r"\," + _upright(unit)
