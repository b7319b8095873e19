"""Issue #20's categories, as our own case tables: answers inside full solutions, several answers, sets /
intervals / relations, number formats, plain-text maths, values built to game the grader, and heliophysics
probes (near misses that a general maths checker accepts: case, vector order, subscripts, factors, units).

A row's ``verdict`` is "correct" or "not correct" (incorrect and not_sure both count as not correct: the
benchmark scores Math-Verify alone, which cannot abstain, on the same rows — benchmarks/bench_grader.py).
"""

from __future__ import annotations

import pytest

from ifworld.rws.grading.grader import check
from tests.rws.conftest import load_tables

CATEGORIES = ("solutions", "several", "sets", "formats", "plaintext", "gameable", "helio")


@pytest.mark.parametrize("row", load_tables(CATEGORIES))
def test_category_case(row: dict) -> None:
    result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
    assert (result.verdict == "correct") == (row["verdict"] == "correct"), (row, result)
    if result.verdict == "correct":
        assert not result.annotations, result


@pytest.mark.parametrize("row", load_tables(("gameable",)))
def test_a_value_the_grader_cannot_evaluate_is_never_correct_and_says_why(row: dict) -> None:
    result = check(row["pred"], row["gt"], row["type"])
    assert result.verdict != "correct" and result.reason
    assert "rel. error 0.00%" not in result.reason and "equal to zero" not in result.reason
