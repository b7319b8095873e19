"""One item, every stage: extract → (numeric | symbolic | textual) → a :class:`CheckResult`.

This runs inside the grading worker (:mod:`ifworld.rws.grading.sandbox`), so the whole item — extraction, unit
parsing, sympy, text matching — is under one time limit that the parent enforces by killing the process.
Any exception, including ``RecursionError`` and ``OverflowError``, becomes that item's not_sure verdict
with the reason; it never escapes to fail a run.
"""

from __future__ import annotations

import re
import time
from typing import Any, cast

from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S, MAX_ANSWER_CHARS, MAX_GOLD_CHARS
from ifworld.rws.grading.extract import extract_answer, gold_parts, strip_wrappers
from ifworld.rws.grading.latexnorm import TEXT_COMMANDS
from ifworld.rws.grading.numeric import check_numeric, hint_dimensionless, hint_unit
from ifworld.rws.grading.result import EXTRACTION, FORMAT_VIOLATION, GOLD, READING, TEXT, CheckResult, Stage, labelled
from ifworld.rws.grading.textual import check_textual

INPUT_TRUNCATED = "input truncated"


def check_local(pred: str, gt: str, kind: str, units: str | None = None, hint: str | None = None,
                timeout_s: float = DEFAULT_TIMEOUT_S, *, same_text: bool = True) -> CheckResult:
    """Grade in this process (no time limit of its own — call it through the worker).

    `same_text` False turns off "identical to the reference is correct": the load-time gold check grades each
    gold against itself to learn whether the grader can read it, which that rule would always answer yes.
    """
    try:
        result = _check(pred, gt, kind, units, hint or "", timeout_s, same_text)
    except RecursionError:
        result = CheckResult(verdict="not_sure", type=kind, stage="extract", reason="recursion limit reached "
                             "(input nested too deeply)", annotations=["parse failure"], gt_norm=gt[:200],
                             decided_by=READING)
    except Exception as exc:  # noqa: BLE001 - one item's failure is that item's verdict
        result = CheckResult(verdict="not_sure", type=kind, stage="extract", annotations=["parse failure"],
                             reason=f"grader error: {type(exc).__name__}: {str(exc)[:200]}", gt_norm=gt[:200],
                             decided_by=READING)
    return labelled(result, _extracted(result.how, pred, result.candidates))


WHERE = {"json": "taken from the JSON field", "final_line": "extracted from the final-answer line",
         "boxed": "extracted from the last \\boxed{}", "phrase": "extracted from the closing sentence",
         "math": "extracted from the last formula", "number": "extracted from the last line with a number"}
"""How an answer found inside a longer reply is described in the reason (say it was extracted, and from where)."""


def _extracted(how: str, reply: str, candidates: list[str]) -> str:
    """"" for a bare answer; else where the answer was taken from in a longer reply (a worked solution)."""
    if not candidates or strip_wrappers(reply) == candidates[0]:
        return ""
    return WHERE.get(how, "")


def squash(text: str) -> str:
    """Whitespace normalised: runs of spaces are one, and none is kept next to a sign or bracket (``x \\in [0, 1)``
    and ``x\\in[0,1)`` are the same text)."""
    text = " ".join(text.split())
    return re.sub(r" (?=\W)|(?<=\W) ", "", text)


def identical(pred: str, answer: str, gold: str, kind: str, hint: str) -> bool:
    """The answer is the reference character for character after whitespace normalisation — correct whatever a
    parser makes of it (``09:30``) — unless the item's hint asks for a unit the reference does not write."""
    if kind == "numeric" and hint and hint_unit(hint) is not None and not re.search(r"[A-Za-z%°]", gold):
        return False
    target = _words(gold)
    return bool(target) and target in (_words(answer), _words(pred))


_TEXT_COMMAND = re.compile(r"\\(?:%s)\s*\{([^{}]*)\}" % TEXT_COMMANDS)


def _words(text: str) -> str:
    """The text compared by :func:`identical`: wrappers (``$…$``, ``\\boxed``) and text commands removed
    (``\\text{Even}`` is ``Even``), whitespace normalised."""
    return squash(_TEXT_COMMAND.sub(r"\1", strip_wrappers(text)))


def _check(pred: str, gt: str, kind: str, units: str | None, hint: str, timeout_s: float,
           same_text: bool = True) -> CheckResult:
    """Every stage; an answer they do not call correct is still correct when it is the reference's very text."""
    result = _stages(pred, gt, kind, units, hint, timeout_s)
    answer = result.candidates[0] if result.candidates else pred
    if result.verdict == "correct" or not same_text or not identical(pred, answer, gt, kind, hint):
        return result
    notes = [INPUT_TRUNCATED] if INPUT_TRUNCATED in result.annotations else []
    stage = cast(Stage, kind)  # kind is one of TYPES, each the name of its stage
    return CheckResult(verdict="correct", type=kind, stage=stage, pred_norm=answer[:200], gt_norm=gt[:200],
                       reason=f"identical to the reference (after whitespace normalisation; the {kind} stage said: "
                       f"{CheckResult.split_reason(result.reason)[1][:120]})", decided_by=TEXT, annotations=notes,
                       how=result.how, candidates=result.candidates)


def _stages(pred: str, gt: str, kind: str, units: str | None, hint: str, timeout_s: float) -> CheckResult:
    extraction = extract_answer(pred, kind, gold_parts(gt) if "boxed" in pred else 1)
    answer = extraction.answer
    notes = [INPUT_TRUNCATED] if extraction.truncated else []
    trace: dict[str, Any] = {"how": extraction.how, "candidates": list(extraction.candidates)}
    if len(gt) > MAX_GOLD_CHARS:
        return CheckResult(verdict="not_sure", type=kind, stage="extract", gt_norm=gt[:80] + "…",
                           reason=f"unscored gold: too long (over {MAX_GOLD_CHARS} characters)",
                           annotations=["unscored gold"], decided_by=GOLD, **trace)
    gold = strip_wrappers(gt)
    if kind == "symbolic" and answer.strip():
        from ifworld.rws.grading.symbolic import check_symbolic  # sympy and Math-Verify: loaded on first use

        deadline = time.monotonic() + max(0.1, timeout_s * 0.8)
        result = check_symbolic(extraction.body, extraction, gt, hint, deadline)
        return result.with_(annotations=[*result.annotations, *notes], **trace)
    if len(answer) > MAX_ANSWER_CHARS:
        return CheckResult(verdict="incorrect", type=kind, stage="extract", gt_norm=gold,
                           reason=f"format violation: answer too long (over {MAX_ANSWER_CHARS} characters)",
                           pred_norm=answer[:80] + "…", annotations=[FORMAT_VIOLATION, *notes],
                           decided_by=EXTRACTION, **trace)
    if not answer.strip():
        return CheckResult(verdict="incorrect", type=kind, reason="format violation: empty answer",
                           pred_norm="", gt_norm=gold, stage="extract",
                           annotations=[FORMAT_VIOLATION, *notes], decided_by=EXTRACTION, **trace)
    if kind == "numeric":
        unitless = "dimensionless" if hint and hint_dimensionless(hint) else None
        result = check_numeric(answer, gold, units or unitless, hint_unit(hint) if hint else None)
    else:
        result = check_textual(answer, gold)
    return result.with_(annotations=[*result.annotations, *notes], **trace)
