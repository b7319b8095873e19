"""Convert GSM8K-style and MATH-style JSONL files into the RWS schema, so a researcher can run the
benchmark tables on them (the paper's Table 2 layout: several datasets × patterns).

* GSM8K style: ``{"question", "answer"}`` where the answer's last line is ``#### 72``; the worked lines
  before it become ``step`` (calculator annotations ``<<48/2=24>>`` removed). Type numeric.
* MATH style: ``{"problem", "solution"}`` (final = the last ``\\boxed{…}``) or ``{"problem", "answer"}``;
  ``level``/``type``/``subject`` go to ``meta``. Type numeric when the final is a plain number, else symbolic.

Bad lines are reported by number and skipped, like the loader does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from ifworld.errors import DatasetError, InputError
from ifworld.rws.dataset import LineError, RWSItem, _decode, _read_bytes
from ifworld.rws.grading.extract import _last_boxed

FORMATS = ("gsm8k", "math")
_PLAIN_NUMBER = re.compile(r"^\s*[-+]?\d[\d,]*(?:\.\d+)?\s*$|^\s*[-+]?\.\d+\s*$")


def _gsm8k(row: dict, index: int, prefix: str) -> RWSItem:
    question, answer = str(row["question"]), str(row["answer"])
    if "####" not in answer:
        raise DatasetError("no '####' final line in 'answer'")
    work, final = answer.rsplit("####", 1)
    steps = [re.sub(r"<<[^<>]*>>", "", line).strip() for line in work.strip().splitlines() if line.strip()]
    return RWSItem(id=f"{prefix}_{index}", q_id=index, question=question, step=steps,
                   final=final.strip().replace(",", ""), type="numeric", hint="A number.",
                   meta={"source": "gsm8k-style"})


def _math(row: dict, index: int, prefix: str) -> RWSItem:
    problem = str(row["problem"])
    final = row.get("answer")
    solution = str(row.get("solution") or "")
    if final is None:
        final = _last_boxed(solution)
    if final is None or not str(final).strip():
        raise DatasetError("no 'answer' field and no \\boxed{} in 'solution'")
    final = str(final).strip()
    kind: Literal["numeric", "symbolic"] = "numeric" if _PLAIN_NUMBER.match(final) else "symbolic"
    meta: dict[str, Any] = {"source": "math-style"}
    for key in ("level", "type", "subject", "unique_id"):
        if key in row:
            meta[key] = row[key]
    return RWSItem(id=f"{prefix}_{index}", q_id=index, question=problem, step=[solution] if solution else [],
                   final=final.replace(",", "") if kind == "numeric" else final, type=kind,
                   hint="A number." if kind == "numeric" else "A LaTeX expression.", meta=meta)


def convert(source: str | bytes | Path, fmt: str, prefix: str = "") -> tuple[list[RWSItem], list[LineError]]:
    """Convert a JSONL file/bytes of format `fmt` ("gsm8k" or "math"); (items, bad lines)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    maker = _gsm8k if fmt == "gsm8k" else _math
    data = _read_bytes(source).removeprefix(b"\xef\xbb\xbf")
    items: list[RWSItem] = []
    errors: list[LineError] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = _decode(raw.decode("utf-8"))
            if not isinstance(row, dict):
                raise DatasetError("expected a JSON object")
            items.append(maker(row, len(items) + 1, prefix or fmt))
        except UnicodeDecodeError:
            errors.append(LineError(line=number, reason="not UTF-8"))
        except KeyError as exc:
            errors.append(LineError(line=number, reason=f"missing field {exc.args[0]!r}"))
        except ValueError as exc:
            errors.append(LineError(line=number, reason=str(exc)[:200]))
    return items, errors


def to_jsonl(items: list[RWSItem]) -> str:
    """The items as RWS JSONL text."""
    return "".join(json.dumps(item.model_dump(), ensure_ascii=False) + "\n" for item in items)
