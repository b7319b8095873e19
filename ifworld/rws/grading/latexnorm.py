"""String-level normalisation for the numeric and textual stages: Unicode look-alikes, LaTeX shorthand, numbers.

No sympy and no pint here, so the parent process and the loader can use it cheaply. Why each rewrite:

* confusables — a Cyrillic ``е`` or a Greek ``ο`` inside a Latin word must not slip past the textual
  stage's opposite-term check, and must not turn a wrong symbol into an unknown one;
* ``\\sqrt3``, ``\\frac12``, ``\\frac3{3}``, ``\\dfrac``/``\\tfrac``/``\\cfrac`` — shorthand every LaTeX
  writer uses, which our magnitude reader does not read (symbolic answers go to Math-Verify instead);
* Unicode superscripts (``3×10⁵``), ``\\( 9 \\)`` inside a line, decimal commas (``3,14``) vs thousands
  separators (``10,455``).
"""

from __future__ import annotations

import re
import unicodedata

# Letters that render like Latin ones (Cyrillic, Greek, fullwidth handled by NFKC). A word mixing scripts
# is suspicious: we map these to Latin and let the caller know that something was mapped.
CONFUSABLES = {
    "а": "a", "в": "b", "с": "c", "е": "e", "ё": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "ѕ": "s", "т": "t", "у": "y", "х": "x", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M", "О": "O",
    "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y",
    "ο": "o", "ν": "v", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ı": "i", "ℓ": "l",
}
_CONFUSABLE_RE = re.compile("[" + "".join(CONFUSABLES) + "]")
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_SUB_RUN = re.compile(r"[₀₁₂₃₄₅₆₇₈₉]+")


TEXT_COMMANDS = "text|textrm|textnormal|textbf|textit|textsf|textup|emph|mathrm|rm|mbox"
"""LaTeX commands whose argument is words (a unit after a number, a textual answer), not maths (a regex
alternation)."""


def fold_confusables(text: str) -> tuple[str, bool]:
    """NFKC-normalise, drop invisible characters and map look-alike letters to Latin.

    Returns (text, changed) where `changed` says a look-alike letter *inside a Latin word* was mapped —
    the sign of a homoglyph (a whole Cyrillic or Greek word is left alone: it is a real word).
    """
    # superscripts first: NFKC would turn ``10⁵`` into ``105``
    s = _INVISIBLE.sub("", unicodedata.normalize("NFKC", superscripts(text))).replace("⁄", "/")
    mixed = False

    def word(match: re.Match) -> str:
        nonlocal mixed
        token = match.group(0)
        latin = sum("a" <= ch.lower() <= "z" for ch in token)
        if latin and _CONFUSABLE_RE.search(token):
            mixed = True
            return _CONFUSABLE_RE.sub(lambda m: CONFUSABLES[m.group(0)], token)
        return token

    s = re.sub(r"\w+", word, s)
    return s, mixed


def superscripts(text: str) -> str:
    """``10⁵`` → ``10^{5}``, ``x₁`` → ``x_{1}``."""
    s = _SUPER_RUN.sub(lambda m: "^{" + m.group(0).translate(_SUPERSCRIPTS) + "}", text)
    return _SUB_RUN.sub(lambda m: "_{" + m.group(0).translate(_SUBSCRIPTS) + "}", s)


_SHORT_ARG = r"(\d|\\[a-zA-Z]+|[a-zA-Z])"


def latex_shorthand(text: str) -> str:
    """Brace the arguments of ``\\sqrt3``, ``\\frac12``, ``\\frac3{3}``; unify fraction commands."""
    s = re.sub(r"\\(?:dfrac|tfrac|cfrac)(?![a-zA-Z])", r"\\frac", text)
    s = re.sub(r"\\(?:dbinom|tbinom)(?![a-zA-Z])", r"\\binom", s)
    s = re.sub(r"\\sqrt\s*" + _SHORT_ARG, r"\\sqrt{\1}", s)
    # \frac12 → \frac{1}{2}; \frac3{3} → \frac{3}{3}; \frac{a}b → \frac{a}{b}
    s = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\frac\s*" + _SHORT_ARG + r"\s*(?=\{)", r"\\frac{\1}", s)
    s = re.sub(r"\\frac\s*(\{[^{}]*\})\s*" + _SHORT_ARG, r"\\frac\1{\2}", s)
    s = re.sub(r"\\frac\s*" + _SHORT_ARG + r"\s*" + _SHORT_ARG, r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\(?:textbf|textit|textnormal|textup|mathsf|mathtt)\s*\{", r"\\text{", s)
    return s


def decimal_commas(text: str) -> str:
    """``3,14`` → ``3.14`` (a comma between digits not followed by exactly three digits).

    ``10,455`` stays (thousands, joined elsewhere); ``1, 2`` (a list) stays because of the space.
    """
    return re.sub(r"(?<![\d,])(\d+),(\d{1,2}|\d{4,})(?![\d,])", r"\1.\2", text)


def inline_math(text: str) -> str:
    """Drop ``\\( \\)`` / ``\\[ \\]`` / ``$`` delimiters anywhere in a line (the content stays)."""
    return re.sub(r"\\[()\[\]]", " ", text).replace("$", " ")
