"""Issue #32's kinds, as our own case tables (``tests/rws/cases/kind_*.jsonl``): plain-text and programming-style
maths, answers inside worked solutions, equation against expression, words for units and percent, stated
precision, two answers written as one, and answers that must never be called correct.

A row's ``verdict`` is "correct" or "not correct" (incorrect and not_sure both count as not correct, as in the
benchmark, which scores Math-Verify alone on the same rows: ``benchmarks/bench_grader.py``). Every result must
name the step that decided, first in its reason.
"""

from __future__ import annotations

import pytest

from ifworld.rws.grading.grader import check
from ifworld.rws.grading.result import DECIDERS, CheckResult
from tests.rws.conftest import load_tables

KINDS = ("kind_plaintext", "kind_extraction", "kind_sides", "kind_units", "kind_precision", "kind_two_answers",
         "kind_never_wrong")


@pytest.mark.parametrize("row", load_tables(KINDS))
def test_kind_case(row: dict, request: pytest.FixtureRequest) -> None:
    if row.get("known_miss"):  # a right answer we do not yet call correct (never a wrong "correct")
        request.applymarker(pytest.mark.xfail(reason=row["known_miss"], strict=True))
    result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
    assert (result.verdict == "correct") == (row["verdict"] == "correct"), (row, result)
    assert result.decided_by in DECIDERS, result
    assert CheckResult.split_reason(result.reason)[0] == result.decided_by, result
    if result.verdict == "correct":
        assert not result.annotations, result


@pytest.mark.parametrize(("pred", "gt", "kind", "step", "words"), [
    ("0.67", "\\frac{2}{3}", "symbolic", "stated precision", "rounded to 2 decimal places"),
    ("0.67", "\\frac{2}{3}", "numeric", "tolerance", "within the RWS 5% tolerance"),
    ("12", "12\\%", "numeric", "units", "percent convention"),
    ("3:7", "A_1:A_2=3:7", "symbolic", "equation sides", "only labels the asked value"),
    ("P = P_0 r_0^2/r^2", "P(r) = P_0 (r_0/r)^2", "symbolic", "equation sides", "only names the quantity"),
    ("y = 2+3+4 = 8 = 9", "y = 9", "symbolic", "safety checks", "chained equality"),
    ("8.1 kg", "8.1 m", "numeric", "units", "unit mismatch"),
])
def test_reason_names_the_deciding_step(pred: str, gt: str, kind: str, step: str, words: str) -> None:
    result = check(pred, gt, kind)
    assert result.decided_by == step and result.reason.startswith(f"{step}: ") and words in result.reason, result


def test_reason_says_the_answer_was_extracted() -> None:
    reply = "We add the two parts and check the units on the way.\nFinal Answer: The final answer is $35\\%$"
    result = check(reply, "35\\%", "numeric")
    assert result.verdict == "correct" and "extracted from the final-answer line" in result.reason, result
    boxed = check("Try \\boxed{12}; on checking, the total is \\boxed{14} after all the steps above.", "14",
                  "symbolic")
    assert boxed.verdict == "correct" and "extracted from the last \\boxed{}" in boxed.reason, boxed


def test_split_reason_of_a_saved_reason_without_a_step() -> None:
    assert CheckResult.split_reason("unit mismatch: m vs s") == ("", "unit mismatch: m vs s")
    assert CheckResult.split_reason("units: unit mismatch: m vs s") == ("units", "unit mismatch: m vs s")
