"""Extraction stage: pull the final answer out of free model output.

Order of preference (the last occurrence wins inside each kind, because models restate and correct
themselves): a JSON object with ``final``/``answer``, a ``Final Answer:`` line, the last ``\\boxed{}``,
then — for long outputs only — the last inline/display math. Wrappers (``$…$``, ``\\( \\)``,
``\\[ \\]``, code fences, ``<think>`` blocks, labels like ``numeric:``) are stripped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_INPUT_CHARS = 20_000
"""Predictions longer than this are cut to their last MAX_INPUT_CHARS characters before extraction."""
MAX_ANSWER_CHARS = 2_000
"""An extracted answer longer than this is refused (no grader stage needs more)."""

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.S)
_FINAL_LINE = re.compile(r"(?im)^[\s*#>_-]*(?:\*\*)?final\s+answer(?:\*\*)?\s*[:：]?(?:\*\*)?\s*(.*)$")
_LABEL = re.compile(r"^\s*(?:numeric|symbolic|textual|text|answer|final|result)\s*[:：]\s*", re.I)
_INLINE_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.S)


@dataclass(frozen=True)
class Extraction:
    """The extracted answer, how it was found ("json", "final_line", "boxed", "math", "whole")."""

    answer: str
    how: str
    truncated: bool = False


def _last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{…}``/``\\fbox{…}`` with balanced braces."""
    starts = [m.end() for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text)]
    if not starts:
        return None
    start = starts[-1]
    depth = 1
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return None


def _json_answer(text: str) -> str | None:
    """The ``final``/``answer`` field of the last JSON object in text, if any."""
    for match in reversed(list(re.finditer(r"\{[^{}]*\}", text))):
        try:
            obj = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            for key in ("final", "final_answer", "answer"):
                if key in obj and isinstance(obj[key], (str, int, float)):
                    return str(obj[key])
    return None


def strip_wrappers(text: str) -> str:
    """Remove math delimiters, code fences, trailing full stops and labels around an answer."""
    s = text.strip()
    fence = _FENCE.fullmatch(s)
    if fence:
        s = fence.group(1).strip()
    for _ in range(3):
        before = s
        s = _LABEL.sub("", s).strip()
        if s.startswith("$$") and s.endswith("$$") and len(s) > 4:
            s = s[2:-2].strip()
        elif s.startswith("$") and s.endswith("$") and len(s) > 2:
            s = s[1:-1].strip()
        elif (s.startswith("\\(") and s.endswith("\\)")) or (s.startswith("\\[") and s.endswith("\\]")):
            s = s[2:-2].strip()
        boxed = _last_boxed(s)
        if boxed is not None and re.fullmatch(r"\\(?:boxed|fbox)\s*\{.*\}", s, re.S):
            s = boxed.strip()
        s = s.strip("*").strip()
        s = re.sub(r"(?<![\\\d])[.。]\s*$", "", s).strip()
        if s == before:
            break
    return s


def extract_answer(text: str) -> Extraction:
    """Find the final answer in free model output (see module docstring for the order)."""
    truncated = len(text) > MAX_INPUT_CHARS
    s = text[-MAX_INPUT_CHARS:] if truncated else text
    s = _THINK.sub("", s)
    s = re.sub(r"^.*</think>", "", s, flags=re.S).strip()
    found = _json_answer(s)
    if found is not None and s.lstrip().startswith(("{", "```")):
        return Extraction(strip_wrappers(found), "json", truncated)
    lines = _FINAL_LINE.findall(s)
    if lines:
        candidate = lines[-1].strip()
        boxed = _last_boxed(candidate)
        return Extraction(strip_wrappers(boxed if boxed is not None else candidate), "final_line", truncated)
    boxed = _last_boxed(s)
    if boxed is not None:
        return Extraction(strip_wrappers(boxed), "boxed", truncated)
    if found is not None:
        return Extraction(strip_wrappers(found), "json", truncated)
    stripped = strip_wrappers(s)
    if "\n" in stripped.strip():
        maths = _INLINE_MATH.findall(stripped)
        if maths:
            last = next(part for part in maths[-1] if part)
            return Extraction(strip_wrappers(last), "math", truncated)
    return Extraction(stripped, "whole", truncated)
