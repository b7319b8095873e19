"""Physics notation before Math-Verify: refuse hostile LaTeX, then rewrite what its parser would misread.

String work only (no sympy). Math-Verify's parser (latex2sympy2_extended) lower-cases every symbol, reads
``\\times``/``\\cdot`` between vectors as commutative products, ``\\nabla`` as a plain letter and rejects
``\\partial_t f``, ``\\dot n`` and ``v_\\perp``. Before it parses a prediction and its gold we therefore
replace, with one table shared by both sides, each construct we understand by a placeholder symbol
``\\Upsilon_k`` (a name nobody types: typed in, it is refused; one-character subscripts because the parser
is several times slower on braced ones):

* derivatives written any way (``\\frac{\\partial f}{\\partial t}``, ``\\partial_t f``, ``\\dot f``,
  ``\\frac{df}{dt}``) → one placeholder per (order, function, variable);
* vector algebra (:mod:`ifworld.rws.grading.vectors`) → ordered / signed placeholders;
* letters that differ only in case between the two sides (``B`` and ``b``, ``\\Omega`` and ``\\omega``)
  → one placeholder per spelling, so lower-casing cannot merge them.

The renaming is a bijection on spellings applied to both sides, so it changes no mathematics.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ifworld.errors import GradingError
from ifworld.rws.grading.latexnorm import TEXT_COMMANDS
from ifworld.rws.grading.result import FORMAT_VIOLATION, PARSE_FAILURE
from ifworld.rws.grading.vectors import OpaqueVector, has_vectors, replace_vectors

MAX_MATH_CHARS = 2_000
"""A maths answer longer than this is refused before parsing."""
MAX_NESTING = 30
"""Deeper bracket nesting is refused before parsing."""
MAX_EXPONENT_DIGITS = 3
"""Integer exponents with more digits than this (``x^{99999999}``) are refused before parsing."""
PLACEHOLDER = re.compile(r"\\Upsilon_(?:\{\d+\}|[0-9a-df-z])")
"""Our placeholder symbols: ``\\Upsilon_0`` … ``\\Upsilon_z`` (not ``_e``, which the parser rejects), then
``\\Upsilon_{35}`` …"""
_SUBSCRIPTS = "0123456789abcdfghijklmnopqrstuvwxyz"

_FORBIDDEN = re.compile(
    r"\\(?:def|edef|gdef|xdef|let|newcommand|renewcommand|providecommand|input|include|catcode|csname|"
    r"expandafter|write|immediate|openout|read|loop|repeat)(?![a-zA-Z])")
_UNICODE = {"∂": r"\partial", "∇": r"\nabla", "·": r"\cdot", "×": r"\times", "−": "-", "–": "-", "≈": "=",
            "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "∞": r"\infty", "±": r"\pm", "²": "^2", "³": "^3",
            "√": r"\sqrt", "∝": r"\propto", "ℏ": r"\hbar", "∈": r"\in", "⊥": r"\perp", "∥": r"\parallel",
            "⊙": r"\odot", "⊕": r"\oplus", "∼": r"\sim", "′": "'", "″": "''", "µ": r"\mu", "ϵ": r"\epsilon",
            "ϕ": r"\phi", "ϑ": r"\theta", "ς": r"\sigma"}
"""Unicode maths symbols as the LaTeX a model would type (Greek letters are named by :func:`unicode_latex`)."""
_GREEK_CAPITALS = frozenset("Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split())
"""Greek capitals with a LaTeX command; the others (Α, Β, Ε …) are written as the Latin letter they look like."""
_LATIN_CAPITALS = {"Alpha": "A", "Beta": "B", "Epsilon": "E", "Zeta": "Z", "Eta": "H", "Iota": "I", "Kappa": "K",
                   "Mu": "M", "Nu": "N", "Omicron": "O", "Rho": "P", "Tau": "T", "Chi": "X"}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_GREEK_VARIANTS = {"varepsilon": "epsilon", "varphi": "phi", "vartheta": "theta", "varrho": "rho",
                   "varsigma": "sigma", "varpi": "pi"}
_SYMBOL = r"(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{[^{}]*\}|_\\?[a-zA-Z0-9]+)?"
_TEXTLIKE = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mbox|begin|end)\s*\{[^{}]*\}")
_IDENT = re.compile(r"(\\[a-zA-Z]+|[a-zA-Z])(_\{[^{}\\]*\}|_[a-zA-Z0-9])?")
"""A command (consumed whole, so ``\\frac`` yields no letters) or one letter, with its subscript."""
_CASELESS_COMMANDS = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi rho sigma tau phi chi psi omega "
    "ell".split())
_SPELLED = re.compile(
    r"(?<![\\A-Za-z])(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|rho|sigma|tau|"
    r"upsilon|phi|chi|psi|omega|pi|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega|"
    r"sin|cos|tan|cot|sinh|cosh|tanh|arcsin|arccos|arctan|ln|log|exp)(?![A-Za-z])")
_SPELLED_FUNCTIONS = frozenset("sin cos tan cot sinh cosh tanh arcsin arccos arctan ln log exp".split())
"""Greek letters and functions spelled without a backslash (``tan psi = Omega r / V``, ``B A cos θ``): LaTeX
would read them letter by letter (t·a·n·p·s·i), so they are read as the commands they name. ``sec`` and ``csc``
are left out: ``sec`` is more often seconds."""
_MATH_REGION = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|(?<![\\$])\$(.+?)\$", re.S)


class RefusedInput(GradingError, ValueError):
    """Input refused before parsing; `kind` is the annotation (parse failure / format violation)."""

    def __init__(self, message: str, kind: str = PARSE_FAILURE) -> None:
        super().__init__(message)
        self.kind = kind


def max_depth(text: str) -> int:
    """Deepest nesting of (), [], {} in text."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def guard(text: str, limit: int = MAX_MATH_CHARS) -> None:
    """Refuse input that could hang or abuse a parser — cheap string checks only (raises RefusedInput)."""
    if len(text) > limit:
        raise RefusedInput(f"maths longer than {limit} characters")
    if re.search(r"\\Upsilon(?![a-zA-Z])", text):
        raise RefusedInput("\\Upsilon is reserved by the grader")
    if _FORBIDDEN.search(text):
        raise RefusedInput("TeX macro definitions and file commands are not accepted")
    if max_depth(text) > MAX_NESTING:
        raise RefusedInput(f"nesting deeper than {MAX_NESTING}")
    if re.search(r"(?:\^|\*\*)\s*\{?\s*[-+]?\s*\(?\s*\d{%d,}" % (MAX_EXPONENT_DIGITS + 1), text):
        raise RefusedInput(f"integer exponent with more than {MAX_EXPONENT_DIGITS} digits: cannot evaluate")
    if exponent_tower(text):
        raise RefusedInput("a tower of exponents: cannot evaluate")
    if re.search(r"__|\bimport\b|\blambda\s*:|\beval\b|\bexec\b|\bos\.", text):
        raise RefusedInput("looks like code, not mathematics", FORMAT_VIOLATION)


def exponent_tower(text: str) -> bool:
    """True for a number raised to a power inside an exponent (``10^{10^{10}}``, ``e^{e^{e^{42}}}``,
    ``2**3**4``): its value cannot be evaluated. ``e^{-x^2}`` is fine (the inner base is a symbol)."""
    if re.search(r"\d\s*\*\*[^*+\-/]*\*\*", text):
        return True
    numeric_power = re.compile(r"(?:\d|(?<![a-zA-Z\\])e|\\exp)\s*\^|\\exp\s*\(")
    for match in re.finditer(r"\^\s*\{", text):
        depth, index = 1, match.end()
        while index < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
        if numeric_power.search(text, match.end(), index):
            return True
    return bool(re.search(r"(?:\d|(?<![a-zA-Z\\])e)\s*\^\s*\\?[a-zA-Z0-9]+\s*\^", text))


def _partial_key(order: str, func: str, var: str) -> str:
    """One key per derivative, so ∂_t n and \\frac{\\partial n}{\\partial t} agree."""
    def squash(text: str) -> str:
        return re.sub(r"[{}\s]", "", text)

    return f"d{order or '1'}:{squash(func)}/{squash(var)}"


def _latex_name(char: str) -> str:
    """``ω`` → ``\\omega``, ``Φ`` → ``\\Phi``, ``∝`` → ``\\propto`` (from the Unicode name), else itself."""
    if char in _UNICODE:
        return _UNICODE[char]
    parts = unicodedata.name(char, "").split()
    if len(parts) == 4 and parts[:2] == ["GREEK", "SMALL"] and parts[2] == "LETTER":
        return "\\" + {"lamda": "lambda"}.get(parts[3].lower(), parts[3].lower())
    if len(parts) == 4 and parts[:2] == ["GREEK", "CAPITAL"] and parts[2] == "LETTER":
        name = {"Lamda": "Lambda"}.get(parts[3].capitalize(), parts[3].capitalize())
        return "\\" + name if name in _GREEK_CAPITALS else _LATIN_CAPITALS.get(name, char)
    return char


def unicode_latex(text: str) -> str:
    """Unicode Greek letters and maths symbols read as their LaTeX names (``ω_p`` → ``\\omega_p``, ``Φ_B`` →
    ``\\Phi_B``); a space follows a command only where a letter would run into it (``\\cos θ`` → ``\\cos \\theta``)."""
    if not _NON_ASCII.search(text):
        return text

    def one(match: re.Match) -> str:
        name = _latex_name(match.group(0))
        following = text[match.end():match.end() + 1]
        return name + " " if name.startswith("\\") and following.isalpha() else name

    return _NON_ASCII.sub(one, text)


def spelled_commands(text: str) -> str:
    """Spelled Greek letters and function names as LaTeX commands (``omega_p`` → ``\\omega_p``, ``v_perp`` →
    ``v_{perp}``), outside ``\\text{…}`` and its kin (where a word is a word)."""
    def one(match: re.Match) -> str:
        before = match.string[max(0, match.start() - 2):match.start()]
        if match[1] in _SPELLED_FUNCTIONS and before.endswith(("_", "_{")):
            return match[0]  # a subscript word (t_{exp}, x_{log}) is a label, not a function
        return "\\" + match[1] + " "

    pieces = re.split(f"({_TEXTLIKE.pattern})", text)
    for index in range(0, len(pieces), 2):
        piece = _SPELLED.sub(one, pieces[index])
        pieces[index] = re.sub(r"_(perp|par)(?:allel)?(?![A-Za-z])", r"_{\1}", piece)
    return "".join(pieces)


def clean(text: str) -> str:
    """Unicode maths, spelled Greek and functions, Greek variants and ``_\\perp`` subscripts as the parser
    expects them."""
    s = spelled_commands(unicode_latex(text))
    s = re.sub(r"\\([a-zA-Z]+)", lambda m: "\\" + _GREEK_VARIANTS.get(m[1], m[1]), s)
    s = re.sub(r"_(?:\{\s*\\(perp|parallel)\s*\}|\\(perp|parallel)(?![a-zA-Z]))",
               lambda m: "_{" + {"perp": "perp", "parallel": "par"}[m[1] or m[2]] + "}", s)
    s = re.sub(r"\\(?:approx|simeq|equiv)(?![a-zA-Z])", "=", s)
    s = re.sub(r"\\(?:dfrac|tfrac|cfrac)(?![a-zA-Z])", r"\\frac", s)
    s = re.sub(r"\\(?:left|right)\s*\.|\\(?:left|right|[bB]igg?[lr]?)(?![a-zA-Z])\s*", "", s)  # sizes only
    return _strip_trailing_unit(s)


def _strip_trailing_unit(text: str) -> str:
    """Drop a trailing ``\\,\\mathrm{m}``/``\\text{ km/s}`` (a unit after a symbolic answer)."""
    match = re.search(r"(\\[,;]|~|\s|(?<=\d))\s*\\(?:%s)\s*\{([^{}]*)\}\s*$" % TEXT_COMMANDS, text)
    if match is None or not re.fullmatch(r"[\sA-Za-z/^\-0-9]+", match.group(2)):
        return text
    return text[:match.start()]


class Placeholders:
    """The shared table: key (what a placeholder stands for) → ``\\Upsilon_k``."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        if key not in self.table:
            count = len(self.table)
            sub = _SUBSCRIPTS[count] if count < len(_SUBSCRIPTS) else "{%d}" % count
            self.table[key] = f"\\Upsilon_{sub}"
        return self.table[key]

    @staticmethod
    def sympy_name(placeholder: str) -> str:
        """The symbol name the parser gives a placeholder (``\\Upsilon_a`` → ``upsilon_a``)."""
        return "upsilon_" + placeholder.split("_", 1)[1]

    def render(self, text: str) -> str:
        """Text with placeholders shown by what they stand for (for pred_norm / gt_norm)."""
        shown = {}
        for key, value in self.table.items():
            label = key.split(":", 1)[-1] if key.startswith(("id:", "vec:")) else "{" + key + "}"
            shown[value] = shown[self.sympy_name(value)] = label
        pattern = r"\\Upsilon_(?:\{\d+\}|[0-9a-z])|upsilon_(?:\{\d+\}|[0-9a-z])(?![0-9a-z])"
        return re.sub(pattern, lambda m: shown.get(m[0], m[0]), text)


def _derivatives(text: str, name: Callable[[str], str]) -> str:
    frac = re.compile(r"\\frac\s*\{\s*\\?(partial|mathrm\{d\}|d)\s*(?:\^\s*\{?(\d)\}?)?\s*(%s)\s*\}\s*"
                      r"\{\s*\\?(?:partial|mathrm\{d\}|d)\s*(%s)\s*(?:\^\s*\{?\d\}?)?\s*\}" % (_SYMBOL, _SYMBOL))
    text = frac.sub(lambda m: " " + name(_partial_key(m[2], m[3], m[4])) + " ", text)
    sub = re.compile(r"\\partial_\{?\s*(%s)\s*\}?\s*(%s)" % (_SYMBOL, _SYMBOL))
    text = sub.sub(lambda m: " " + name(_partial_key("", m[2], m[1])) + " ", text)
    return re.sub(r"\\(?:dot|ddot)\s*(?:\{([^{}]*)\}|([a-zA-Z]))",
                  lambda m: " " + name(_partial_key("", (m[1] or m[2]).strip(), "t")) + " ", text)


def _spelling(head: str, sub: str | None) -> str:
    """Canonical spelling of an identifier: ``v_{A}`` and ``v_A`` are both ``v_A``."""
    return head + ("_" + re.sub(r"[{}\s]", "", sub[1:]) if sub else "")


def _identifiers(text: str) -> set[str]:
    """Identifier spellings (``B``, ``v_A``, ``\\Omega``) outside text-like macros."""
    found = set()
    for match in _IDENT.finditer(_TEXTLIKE.sub(" ", text)):
        head = match.group(1)
        if head.startswith("\\") and head[1:].lower() not in _CASELESS_COMMANDS:
            continue
        found.add(_spelling(head, match.group(2)))
    return found


def _case_clashes(texts: list[str]) -> set[str]:
    """Spellings that fold to the same lower-case name as another spelling present (``B`` and ``b``)."""
    groups: dict[str, set[str]] = {}
    for text in texts:
        for spelling in _identifiers(text):
            groups.setdefault(spelling.lower(), set()).add(spelling)
    return {s for group in groups.values() if len(group) > 1 for s in group}


def _rename(text: str, clashes: set[str], name: Callable[[str], str]) -> str:
    """Subscripted names and case clashes → placeholders (the parser lower-cases names and misreads ``T_e``)."""
    def one(match: re.Match) -> str:
        head = match.group(1)
        if head.startswith("\\") and head[1:].lower() not in _CASELESS_COMMANDS:
            return match.group(0)
        spelling = _spelling(head, match.group(2))
        if match.group(2) or spelling in clashes:
            return " " + name("id:" + spelling) + " "
        return match.group(0)

    pieces, last = [], 0
    for masked in _TEXTLIKE.finditer(text):
        pieces.append(_IDENT.sub(one, text[last:masked.start()]) + masked.group(0))
        last = masked.end()
    pieces.append(_IDENT.sub(one, text[last:]))
    return "".join(pieces)


_PRIMED = re.compile(r"(\\[a-zA-Z]+|[a-zA-Z])(_\{[^{}]*\}|_[a-zA-Z0-9])?('+|\^\{?(?:\\prime)+\}?|(?:\^\\prime)+)")
"""A name with primes (``f'``, ``y''``, ``x^{\\prime}``): a different quantity from the name without them."""


def _primes(text: str, name: Callable[[str], str]) -> str:
    """Primed names → one placeholder per (name, number of primes): the parser drops a prime (``f'(x)`` read as
    ``f(x)``), which would make a derivative equal to its function."""
    def one(match: re.Match) -> str:
        if match.group(1).startswith("\\") and match.group(1)[1:].lower() not in _CASELESS_COMMANDS:
            return match.group(0)
        marks = match.group(3)
        count = marks.count("'") + marks.count("\\prime")
        return " " + name(f"prime{count}:" + _spelling(match.group(1), match.group(2))) + " "

    return _PRIMED.sub(one, text) if "'" in text or "\\prime" in text else text


def in_math(text: str, rewrite: Callable[[str], str], whole: bool) -> str:
    """Apply `rewrite` to every math region of a reply (the whole text when `whole`)."""
    if whole:
        return rewrite(text)

    def one(match: re.Match) -> str:
        for index in range(1, 5):
            if match.group(index) is not None:
                start, end = match.span(index)
                return match.group(0)[:start - match.start()] + rewrite(match.group(index)) + \
                    match.group(0)[end - match.start():]
        return match.group(0)

    out = _MATH_REGION.sub(one, text)
    # \boxed{…} outside delimiters
    return re.sub(r"\\boxed\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", lambda m: "\\boxed{" + rewrite(m[1]) + "}", out) \
        if "\\boxed" in out and not _MATH_REGION.search(text) else out


def math_regions(text: str, whole: bool) -> list[str]:
    """The maths of a reply: its delimited regions and boxed contents (or the whole text)."""
    if whole:
        return [text]
    found = [next(g for g in m.groups() if g is not None) for m in _MATH_REGION.finditer(text)]
    found += re.findall(r"\\boxed\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", text)
    return found


def prepare(pred: str, gold: str, pred_whole: bool, gold_whole: bool) -> tuple[str, str, Placeholders]:
    """Rewrite both sides with one shared placeholder table (see the module docstring).

    `*_whole`: the text is bare maths (else only its math regions are rewritten). Raises RefusedInput
    with ``.side`` for a vector construct we cannot order (answered not_sure by the caller).
    """
    names = Placeholders()
    regions = math_regions(pred, pred_whole) + math_regions(gold, gold_whole)
    vector_mode = any(has_vectors(r) for r in regions)
    clashes = _case_clashes([clean(r) for r in regions])

    def rewrite(text: str) -> str:
        s = replace_vectors(clean(text), lambda key: names(key), vector_mode)
        s = _rename(_primes(_derivatives(s, names), names), clashes, names)
        return re.sub(r"\s+", " ", s)

    out = []
    for side, text, whole in (("pred", pred, pred_whole), ("gold", gold, gold_whole)):
        try:
            out.append(in_math(text, rewrite, whole))
        except OpaqueVector as exc:
            refused = RefusedInput(str(exc))
            refused.side = side  # type: ignore[attr-defined]
            raise refused from exc
    return out[0], out[1], names
