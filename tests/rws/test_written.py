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

from tests.rws.conftest import check_row, load_tables

WRITTEN = ("written_closing", "written_boxes", "written_numbers", "written_identical", "written_symbols",
           "written_text", "written_chains")


@pytest.mark.parametrize("row", load_tables(WRITTEN))
def test_written_case(row: dict) -> None:
    result = check_row(row)
    if result.verdict == "correct":
        assert not result.annotations, result
