"""Case-table driven grader tests: numeric, symbolic, textual and extraction tables."""

from __future__ import annotations

import pytest

from ifworld.rws.grading.extract import extract_answer
from ifworld.rws.grading.grader import check
from tests.rws.conftest import load_cases


def _assert_case(row: dict, kind: str) -> None:
    """Check one table row: verdict, and the expected annotation when the table names one."""
    result = check(row["pred"], row["gt"], kind, units=row.get("units"))
    assert result.verdict == row["verdict"], (row, result)
    assert result.type == kind
    if "annotation" in row:
        assert row["annotation"] in result.annotations, (row, result)
    if result.verdict == "correct":
        assert not result.annotations


@pytest.mark.parametrize("row", load_cases("numeric"))
def test_numeric(row: dict) -> None:
    _assert_case(row, "numeric")


@pytest.mark.parametrize("row", load_cases("symbolic"))
def test_symbolic(row: dict) -> None:
    _assert_case(row, "symbolic")


@pytest.mark.parametrize("row", load_cases("textual"))
def test_textual(row: dict) -> None:
    _assert_case(row, "textual")


@pytest.mark.parametrize("row", load_cases("extract"))
def test_extract(row: dict) -> None:
    found = extract_answer(row["text"])
    assert (found.answer, found.how) == (row["answer"], row["how"])


def test_tolerance_miss_reports_relative_error() -> None:
    result = check("53.7 km/s", "48.8 km/s", "numeric")
    assert result.rel_error == pytest.approx(0.1004, abs=1e-3)
    assert "tolerance miss" in result.annotations


def test_text_alias_and_unknown_type() -> None:
    assert check("Alfven waves", "Alfvén waves", "text").verdict == "correct"
    with pytest.raises(ValueError):
        check("1", "1", "vector")


def test_result_is_frozen() -> None:
    result = check("1", "1", "numeric")
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError for frozen models
        result.verdict = "incorrect"  # type: ignore[misc]
