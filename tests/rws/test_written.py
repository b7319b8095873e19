"""Issue #43's classes — answers as models and students really close them — as our own case tables
(``tests/rws/cases/written_*.jsonl``): the Minerva closing and chat-template debris, several boxes, numbers as
people write them, identical answers, functions and symbols, text without a model, chained working.

Every class holds right answers and look-alikes that must not be called correct. A row's ``verdict`` is
"correct" or not; a row marked ``exact`` must get that very verdict (a negation is "incorrect", an ambiguous
decimal comma "not_sure"), and a row with ``link`` must name that link of a false chain in its reason.
``benchmarks/bench_grader.py --written`` counts the rows per class, ours beside Math-Verify alone.
"""

from __future__ import annotations

import pytest

from ifworld.rws.grading.grader import check
from ifworld.rws.grading.result import DECIDERS, CheckResult
from tests.rws.conftest import load_tables

WRITTEN = ("written_closing", "written_boxes", "written_numbers", "written_identical", "written_symbols",
           "written_text", "written_chains")


@pytest.mark.parametrize("row", load_tables(WRITTEN))
def test_written_case(row: dict) -> None:
    result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
    assert (result.verdict == "correct") == (row["verdict"] == "correct"), (row, result)
    if row.get("exact"):
        assert result.verdict == row["verdict"], (row, result)
    if "link" in row:
        assert row["link"] in result.reason, (row, result)
    assert result.decided_by in DECIDERS, result
    assert CheckResult.split_reason(result.reason)[0] == result.decided_by, result
    if result.verdict == "correct":
        assert not result.annotations, result
