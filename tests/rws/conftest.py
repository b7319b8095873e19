"""Shared helpers for the RWS grader tests: case-table loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
