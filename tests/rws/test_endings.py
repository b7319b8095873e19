"""Issue #43 again, from a second set of our own rows (``tests/rws/cases/endings_*.jsonl``), written apart from
``written_*.jsonl`` with other numbers, words and layouts: the Minerva closing, chat-template debris and a
``<think>`` preamble; several boxes; numbers as people write them (a dollar sign glued on, a decimal comma, a
sentence of givens); identical answers and several-part ratios; calls, primes, ``\\propto``, Unicode and spelled-out
Greek; text without a model; chained working with a false link or an approximate restatement.

Each table holds right answers and look-alikes that must not be called correct. A row marked ``exact`` must get
its very verdict; a row with ``link`` must name that link of a false chain, as written, in its reason.
"""

from __future__ import annotations

import pytest

from ifworld.rws.grading.grader import check
from ifworld.rws.grading.result import DECIDERS, CheckResult
from tests.rws.conftest import load_tables

ENDINGS = ("endings_closing", "endings_boxes", "endings_numbers", "endings_identical", "endings_symbols",
           "endings_text", "endings_chains")


@pytest.mark.parametrize("row", load_tables(ENDINGS))
def test_ending_case(row: dict) -> None:
    result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
    assert (result.verdict == "correct") == (row["verdict"] == "correct"), (row, result)
    if row.get("exact"):
        assert result.verdict == row["verdict"], (row, result)
    if "link" in row:
        assert row["link"] in result.reason, (row, result)
    assert result.decided_by in DECIDERS, result
    assert CheckResult.split_reason(result.reason)[0] == result.decided_by, result


def test_every_table_has_look_alikes() -> None:
    """Zero wrong "correct" is the first rule: every class is tested against answers that must not pass."""
    for name in ENDINGS:
        rows = [param.values[0] for param in load_tables((name,))]
        assert sum(row["verdict"] != "correct" for row in rows) >= len(rows) // 3, name
        assert any(row["verdict"] == "correct" for row in rows), name
