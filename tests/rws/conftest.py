"""Shared helpers for the RWS grader tests: case-table loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ifworld.rws.grading.grader import check
from ifworld.rws.grading.result import DECIDERS, CheckResult

CASES = Path(__file__).parent / "cases"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "rws_sample.jsonl"


def load_cases(name: str) -> list:
    """Rows of tests/rws/cases/<name>.jsonl wrapped as pytest params with readable ids."""
    rows = [json.loads(line) for line in (CASES / f"{name}.jsonl").read_text("utf-8").splitlines() if line]
    return [pytest.param(row, id=f"{index:02d}-{row.get('note', row.get('how', ''))}"[:60])
            for index, row in enumerate(rows)]


def load_tables(names: tuple[str, ...]) -> list:
    """Rows of several tables as pytest params, ids prefixed with the table name (each row has its table)."""
    params = []
    for name in names:
        for param in load_cases(name):
            row = {**param.values[0], "table": name}
            params.append(pytest.param(row, id=f"{name}-{param.id}"[:70]))
    return params


def check_row(row: dict) -> CheckResult:
    """Grade one row of a case table and hold it to the row: "correct" or not as the row says (its very verdict
    when marked ``exact``), a false chain's ``link`` named in the reason, which starts with its deciding step."""
    result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
    assert (result.verdict == "correct") == (row["verdict"] == "correct"), (row, result)
    if row.get("exact"):
        assert result.verdict == row["verdict"], (row, result)
    if "link" in row:
        assert row["link"] in result.reason, (row, result)
    assert result.decided_by in DECIDERS, result
    assert CheckResult.split_reason(result.reason)[0] == result.decided_by, result
    return result
