"""Answer kinds, decided on the LaTeX text before any parsing: what shape of answer is this?

A symbolic answer is one of: an expression, an equation (possibly chained ``x = 5+5+1 = 11``), a relation
(``x \\leq 5``, ``a < x \\le b``), an interval (``[1, 2)``, ``x \\in (-\\infty, 5]``), a set (``\\{1, 2\\}``),
a tuple (``(1, 2, 3)``), a matrix (``\\begin{pmatrix}…``) or several answers (``x = 1, x = 2``,
``\\pm 2``, ``1 \\text{ or } 2``). Each kind has its own comparison rule (:mod:`ifworld.rws.grading.symcompare`);
deciding the kind here, as plain string work, keeps the parser from guessing (sympy reads ``(1, 2)``
as a tuple, ``[1, 2)`` not at all, and an equation compared with one of its sides is a classic false
"correct").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ifworld.errors import GradingError

MAX_PARTS = 50
"""More elements than this in one set/tuple/matrix are refused."""

_REL = re.compile(r"\\leq?(?![a-zA-Z])|\\geq?(?![a-zA-Z])|\\leqslant|\\geqslant|\\lt(?![a-zA-Z])|"
                  r"\\gt(?![a-zA-Z])|\\neq?(?![a-zA-Z])|<=|>=|≤|≥|≠|!=|<|>")
_REL_CANON = {"\\le": "<=", "\\leq": "<=", "\\leqslant": "<=", "<=": "<=", "≤": "<=", "\\lt": "<", "<": "<",
              "\\ge": ">=", "\\geq": ">=", "\\geqslant": ">=", ">=": ">=", "≥": ">=", "\\gt": ">", ">": ">",
              "\\ne": "!=", "\\neq": "!=", "≠": "!=", "!=": "!="}
_MATRIX = re.compile(r"^\\begin\{([pbvBV]?matrix|array)\}(?:\{[^{}]*\})?(.*)\\end\{\1\}$", re.S)


class UnreadableAnswer(GradingError, ValueError):
    """An answer too large or malformed to compare (too many parts, an empty side); its verdict says so."""


_OR = re.compile(r"\\text\{\s*(?:or|and)\s*\}|\\(?:quad|qquad)\s*(?:\\text\{\s*or\s*\}\s*)?|\s+or\s+|\\lor(?![a-zA-Z])")


@dataclass(frozen=True)
class Answer:
    """A decided answer: `kind` and its parts (LaTeX strings or nested Answers).

    kinds: expr (parts=[text]), eq (parts=[lhs, rhs, …] — more than two for a chain), rel (parts=[lhs, rhs],
    ops=[op, …] — chained relations keep every link), interval (parts=[lo, hi], closed=(lo?, hi?), var),
    set, list (unordered answers), tuple (ordered), matrix (rows of Answers).
    """

    kind: str
    parts: tuple = ()
    ops: tuple = ()
    closed: tuple = (False, False)
    var: str = ""
    rows: tuple = field(default_factory=tuple)


def split_top(text: str, seps: str = ",") -> list[str]:
    """Split at top-level separators (outside (), [], {} and \\left…\\right pairs)."""
    parts, depth, current = [], 0, []
    index = 0
    while index < len(text):
        char = text[index]
        if text.startswith("\\{", index) or text.startswith("\\}", index):
            depth += 1 if text[index + 1] == "{" else -1
            current.append(text[index:index + 2])
            index += 2
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if depth == 0 and char in seps and not (char == "," and _thousands_comma(text, index)):
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _thousands_comma(text: str, index: int) -> bool:
    """``10,455``: a comma between a digit and exactly three digits is a thousands separator."""
    return (index > 0 and text[index - 1].isdigit()
            and re.match(r"\d{3}(?!\d)", text[index + 1:index + 5]) is not None
            and not re.search(r"\d,\d{1,2}(?!\d)|,\s", text))


def _strip_outer(text: str) -> str:
    s = text.strip()
    s = re.sub(r"^\\left\s*", "", s)
    s = re.sub(r"\\right\s*(?=[)\]}]$|\\\}$)", "", s)
    return s.strip()


def _balanced_inner(text: str, open_len: int, close_len: int) -> str | None:
    """Inner text when the first opening bracket closes at the very end, else None."""
    depth = 0
    body = text
    for index, char in enumerate(body):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0 and index != len(body) - 1:
                return None
    return body[open_len:len(body) - close_len]


def _interval_or_tuple(s: str) -> Answer | None:
    s = re.sub(r"\\left\s*|\\right\s*", "", s).strip()
    if len(s) < 3 or s[0] not in "([" or s[-1] not in ")]":
        return None
    depth = 0
    for index, char in enumerate(s):  # the first bracket must close at the end (not ``(a)(b)``)
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and index != len(s) - 1:
            return None
    inner = s[1:-1]
    parts = split_top(inner)
    if len(parts) < 2 or len(parts) > MAX_PARTS or not all(parts):
        return None
    if len(parts) == 2 and (s[0] != s[-1].translate(str.maketrans(")]", "([")) or "\\infty" in s):
        return Answer("interval", (parts[0], parts[1]), closed=(s[0] == "[", s[-1] == "]"))
    if s[0] == "[" and s[-1] == "]" and len(parts) == 2:
        return Answer("interval", (parts[0], parts[1]), closed=(True, True))
    return Answer("tuple", tuple(parts), ops=(s[0] + s[-1],))


def _set(s: str) -> Answer | None:
    s = re.sub(r"\\left\s*|\\right\s*", "", s).strip()
    if not (s.startswith("\\{") and s.endswith("\\}")):
        return None
    inner = s[2:-2].strip()
    parts = [p for p in split_top(inner) if p]
    if len(parts) > MAX_PARTS:
        raise UnreadableAnswer(f"more than {MAX_PARTS} elements")
    return Answer("set", tuple(parts))


def _matrix(s: str) -> Answer | None:
    match = _MATRIX.match(s.strip())
    if match is None:
        return None
    rows = [r for r in re.split(r"\\\\", match.group(2)) if r.strip()]
    cells = tuple(tuple(c.strip() for c in row.split("&")) for row in rows)
    if sum(len(r) for r in cells) > MAX_PARTS * 4:
        raise UnreadableAnswer(f"matrix too large (more than {MAX_PARTS * 4} cells)")
    return Answer("matrix", rows=cells)


def _relation(s: str) -> Answer | None:
    pieces = _REL.split(s)
    ops = [_REL_CANON[m.group(0).strip()] for m in _REL.finditer(s)]
    if not ops:
        return None
    parts = tuple(p.strip() for p in pieces)
    if not all(parts):
        return None
    # a < x <= b with a lone middle symbol → an interval of that symbol
    if len(ops) == 2 and ops[0] in ("<", "<=") and ops[1] in ("<", "<=") and _lone_symbol(parts[1]):
        return Answer("interval", (parts[0], parts[2]), closed=(ops[0] == "<=", ops[1] == "<="), var=parts[1])
    if len(ops) == 2 and ops[0] in (">", ">=") and ops[1] in (">", ">=") and _lone_symbol(parts[1]):
        return Answer("interval", (parts[2], parts[0]), closed=(ops[1] == ">=", ops[0] == ">="), var=parts[1])
    return Answer("rel", parts, ops=tuple(ops))


def _lone_symbol(text: str) -> bool:
    return re.fullmatch(r"\s*(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{?[a-zA-Z0-9]+\}?)?\s*", text) is not None


def decide(text: str) -> Answer:
    """The kind of one (already cleaned) LaTeX answer. Raises ValueError for oversized structures."""
    s = _strip_outer(text)
    for maker in (_matrix, _set):
        found = maker(s)
        if found is not None:
            return found
    membership = re.match(r"^\s*((?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{?[a-zA-Z0-9]+\}?)?)\s*\\in(?![a-zA-Z])\s*(.+)$", s)
    if membership:
        inner = decide(membership.group(2))
        if inner.kind == "interval":
            return Answer("interval", inner.parts, closed=inner.closed, var=membership.group(1).strip())
        return inner
    unions = [u for u in re.split(r"\\cup(?![a-zA-Z])|∪", s)]
    if len(unions) > 1 and all(u.strip() for u in unions) and len(split_top(s, "")) == 1:
        return Answer("set", tuple(decide(u) for u in unions[:MAX_PARTS]), ops=("union",))
    mixed = re.fullmatch(r"\s*(-?)(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}\s*", s)
    if mixed:  # 2\frac{1}{3} is a mixed number (a product would be written 2 \cdot \frac{1}{3})
        sign, whole, num, den = mixed.groups()
        return Answer("expr", (f"{sign}({whole} + \\frac{{{num}}}{{{den}}})",))
    answers = [a for a in _OR.split(s) if a and a.strip()]
    if len(answers) > 1:
        return Answer("list", tuple(decide(a) for a in answers[:MAX_PARTS]))
    found = _interval_or_tuple(s)
    if found is not None:
        return found
    top = split_top(s)
    if len(top) > 1 and all(top):
        if len(top) > MAX_PARTS:
            raise UnreadableAnswer(f"more than {MAX_PARTS} answers")
        return Answer("list", tuple(decide(part) for part in top))
    pm = re.match(r"^(.*?)\\(?:pm|mp)(?![a-zA-Z])(.*)$", s)
    if pm and "\\pm" not in pm.group(2) and "=" not in pm.group(2):
        head, tail = pm.group(1).strip(), pm.group(2).strip()
        lhs, eq, rest = head.rpartition("=")
        prefix = f"{lhs}=" if eq else ""
        base = rest.strip()
        plus = f"{prefix}{base} + {tail}" if base else f"{prefix}{tail}"
        minus = f"{prefix}{base} - ({tail})" if base else f"{prefix}-({tail})"
        return Answer("list", (decide(plus), decide(minus)))
    relation = _relation(s)
    if relation is not None:
        return relation
    if "=" in s:
        sides = tuple(p.strip() for p in s.split("="))
        if not all(sides):
            raise UnreadableAnswer("empty side of an equation")
        return Answer("eq", sides)
    return Answer("expr", (s,))
