"""Extraction stage: pull the final answer out of free model output.

Order of preference (the last occurrence wins inside each kind, because models restate and correct
themselves): a JSON object with ``final``/``answer``, a ``Final Answer:`` line, the last ``\\boxed{}``,
then — for long outputs only — the last inline/display math. Wrappers (``$…$``, ``\\( \\)``,
``\\[ \\]``, code fences, ``<think>`` blocks, HTML tags, labels like ``numeric:``) are stripped.

Symbolic answers use this only for a ``Final Answer:`` line or a JSON field; otherwise Math-Verify's own
extraction reads the reply (:mod:`ifworld.rws.grading.symbolic`). Numeric and textual answers need the words
and units around the value, which Math-Verify's extraction drops, so they use this.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ifworld.rws.grading.constants import MAX_ANSWER_CHARS, MAX_INPUT_CHARS  # noqa: F401 - re-exported

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.S)
_FINAL_LINE = re.compile(r"(?im)^[\s*#>_-]*(?:\*\*)?(?:final\s+answer|answer)(?:\*\*)?\s*[:：](?:\*\*)?\s*(.*)$"
                         r"|^[\s*#>_-]*(?:\*\*)?final\s+answer(?:\*\*)?\s+(?!is\b)(.*)$"
                         r"|\b(?:the\s+)?final\s+answer\s+is\s*[:：]?\s*(.*)$"
                         r"|\bfinal\s+answer(?:\*\*)?\s*[:：](?:\*\*)?\s*(.*)$")
_PHRASE = re.compile(r"(?i)\b(?:the|this)\s+(?:number|answer|result|value|total)\s+(?:is|equals)\s*[:：]?\s*"
                     r"((?:\$|\\\(|\\boxed|[-+−]?\.?\d)[^\n]{0,200})$")
""""…, so the number is 42." — a closing phrase that names the answer (read only when it starts with maths)."""
_BETWEEN_BOXES = re.compile(r"\s*\$?\s*(?:(?:,|;|&|\\quad|\\qquad|\\,|\bor\b|\band\b|"
                            r"\\text\{\s*(?:and|or|,)\s*\})\s*){0,4}\$?\s*")
"""What may stand between two boxes of one answer list (``\\boxed{3} and \\boxed{-4}``)."""
_HTML_BLOCK = re.compile(r"<(script|style)\b[^>]{0,200}>.*?</\1\s*>", re.S | re.I)
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]{0,15}(?:\s[^<>]{0,200})?/?>")
"""HTML in a reply is markup, not the answer: script/style blocks go, other tags leave their text."""
_END_OF_TURN = re.compile(r"<\|(?:im_end|eot_id|endoftext|end|eom_id|end_of_turn)\|>|</s>|<end_of_turn>"
                         r"|<\|im_start\|>\s*(?:user|system)|<\|start_header_id\|>\s*(?:user|system)|\[INST\]")
"""Chat-template tokens that end the model's turn: what follows is another turn (the user's next question;
``[INST]`` opens one in the Llama 2 and Mistral templates)."""
_TEMPLATE_TOKEN = re.compile(r"<\|(?:im_start|start_header_id)\|>\s*assistant\s*(?:<\|end_header_id\|>)?"
                             r"|<\|[a-z_]{1,30}\|>|<s>|<start_of_turn>\s*model|\[/INST\]")
"""Any other template token left in a reply (an assistant header before the answer): markup, not the answer."""
_HOPE = re.compile(r"(?i)(?<=\S)[\s.]*\bI\s+hope\s+(?:it|this|that)\s+is\s+correct\b[.!]?")
"""The Minerva closing ("… The final answer is $X$. I hope it is correct."): words after the answer, not its unit."""
_LABEL = re.compile(r"^\s*(?:numeric|symbolic|textual|text|answer|final|result)\s*[:：]\s*", re.I)
_INLINE_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.S)


@dataclass(frozen=True)
class Extraction:
    """The extracted answer, how it was found ("json", "final_line", "boxed", "math", "whole")."""

    answer: str
    how: str
    truncated: bool = False
    candidates: tuple[str, ...] = ()
    """Every candidate found (final line, boxed, JSON, last math, last number line), in preference order."""
    body: str = ""
    """The reply the answer was taken from: its last MAX_INPUT_CHARS characters, reasoning blocks removed."""


def _boxes(text: str) -> list[tuple[int, int, str]]:
    """Every ``\\boxed{…}``/``\\fbox{…}`` with balanced braces: (start, end, content)."""
    found = []
    for match in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        depth = 1
        for index in range(match.end(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                found.append((match.start(), index + 1, text[match.end():index]))
                break
    return found


def _last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{…}``/``\\fbox{…}`` with balanced braces."""
    boxes = _boxes(text)
    return boxes[-1][2] if boxes else None


def boxed_group(text: str, parts: int = 1) -> list[str]:
    """The contents of the last run of boxes joined only by ``and``/``or``/commas (``\\boxed{3} and \\boxed{-4}``:
    two answers written as one list); a box after other words is a restatement, and only the last counts —
    unless the gold has `parts` parts and the reply holds exactly that many boxes (one box per part)."""
    boxes = _boxes(text)
    if not boxes:
        return []
    if parts > 1 and len(boxes) == parts:
        return [content for _, _, content in boxes]
    group = [boxes[-1]]
    for box in reversed(boxes[:-1]):
        if box[1] > group[0][0] or not _BETWEEN_BOXES.fullmatch(text[box[1]:group[0][0]]):
            break
        group.insert(0, box)
    return [content for _, _, content in group]


def gold_parts(gold: str) -> int:
    """How many parts a gold answer has: top-level commas, semicolons and ``and`` outside brackets (``(0,2), (3,-1)``
    has two, ``[0, 1)`` one); a set's elements count as parts; a comma before three digits is a thousands sign."""
    text = strip_wrappers(gold)
    text = re.sub(r"^\\\{(.*)\\\}$", r"\1", text.strip(), flags=re.S)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = re.sub(r"\\text\{\s*(?:and|or)\s*\}|\band\b|\bor\b", ",", text)
    depth, count = 0, 1
    for char in re.sub(r"\\left|\\right|\\[{}]", "", text):
        depth += char in "({["
        depth -= char in ")}]"
        count += depth == 0 and char in ",;"
    return count


def end_of_turn(text: str) -> str:
    """The reply up to the end of the model's turn, template tokens and the Minerva closing removed."""
    for match in _END_OF_TURN.finditer(text):
        if text[:match.start()].strip():
            text = text[:match.start()]
            break
    return _HOPE.sub("", _TEMPLATE_TOKEN.sub(" ", text)).strip()


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
        boxes = _boxes(s)
        if len(boxes) == 1 and boxes[0][0] == 0 and boxes[0][1] == len(s):
            s = boxes[0][2].strip()
        s = s.strip("*").strip()
        s = re.sub(r"(?<![\\\d])[.。]\s*$", "", s).strip()
        if s == before:
            break
    return s


def _prose_outside_math(line: str) -> bool:
    """True when a line has running words outside its math (``Therefore $x \\geq 5$ is the solution``)."""
    outside = _INLINE_MATH.sub(" ", line)
    return len([w for w in re.findall(r"[A-Za-z]{3,}", outside)]) >= 2


def _number_line(text: str) -> str | None:
    """The last line holding a number (a number with its unit, for numeric answers without a final line)."""
    for line in reversed([ln for ln in text.splitlines() if ln.strip()]):
        if re.search(r"\d", line):
            return line.strip()
    return None


def extract_answer(text: str, kind: str | None = None, parts: int = 1) -> Extraction:
    """Find the final answer in free model output (see module docstring for the order).

    `kind` ("numeric" …) only changes the last resort: numeric answers fall back to the last line with a
    number (units included), others to the last inline/display math. `parts` is the number of parts of the
    gold (:func:`gold_parts`): a reply with one box per part is read as all its boxes.
    """
    truncated = len(text) > MAX_INPUT_CHARS
    s = text[-MAX_INPUT_CHARS:] if truncated else text
    s = _THINK.sub("", s)
    s = re.sub(r"^.*</think>", "", s, flags=re.S).strip()
    s = end_of_turn(s) if "<" in s or "hope" in s or "INST]" in s else s
    s = _HTML_TAG.sub(" ", _HTML_BLOCK.sub(" ", s)).strip() if "<" in s else s
    found = _json_answer(s)
    lines = [next((g for g in groups if g), "").strip() for groups in _FINAL_LINE.findall(s)]
    lines = [ln for ln in lines if ln]
    group = boxed_group(s, parts)
    boxed = ", ".join(group) if group else None
    phrase = _PHRASE.search(s.rstrip())
    stripped = strip_wrappers(s)
    maths = _INLINE_MATH.findall(stripped)
    last_math = next(part for part in maths[-1] if part) if maths else None
    number = _number_line(stripped) if kind == "numeric" else None
    candidates: list[tuple[str, str]] = []
    if found is not None and s.lstrip().startswith(("{", "```")):
        candidates.append(("json", found))
    if lines:
        inner = _last_boxed(lines[-1])
        candidates.append(("final_line", inner if inner is not None else lines[-1]))
    if boxed is not None:
        candidates.append(("boxed", boxed))
    if found is not None:
        candidates.append(("json", found))
    if phrase is not None and not lines:
        candidates.append(("phrase", phrase.group(1)))
    multi_line = "\n" in stripped.strip()
    if last_math is not None and (multi_line or _prose_outside_math(stripped)) and kind != "numeric":
        candidates.append(("math", last_math))
    if number is not None and multi_line:
        candidates.append(("number", number))
    if last_math is not None and kind == "numeric" and multi_line and number is None:
        candidates.append(("math", last_math))
    candidates.append(("whole", stripped))
    how, answer = candidates[0]
    seen = tuple(dict.fromkeys(strip_wrappers(c) for _, c in candidates))
    return Extraction(strip_wrappers(answer), how, truncated, seen, s)
