"""The paper's Table 1 (model × single-shot) and Table 2 (dataset × pattern, macro mean) from saved records."""

from __future__ import annotations

import pytest

from ifworld.rws.tables import MACRO_MEAN, paper_table1, paper_table2, tables_markdown


def _record(data: str, rows: list[tuple[str, str, str, str]]) -> dict:
    """rows: (item, pattern, model, verdict)."""
    return {"workflow": "rws.benchmark", "data": data, "results": [
        {"item_id": item, "pattern": pattern, "model": model, "type": "numeric", "grade": {"verdict": verdict}}
        for item, pattern, model, verdict in rows]}


RECORDS = [
    _record("rws.jsonl", [("a", "single", "m1", "correct"), ("b", "single", "m1", "incorrect"),
                          ("a", "pace", "m1", "correct"), ("b", "pace", "m1", "correct"),
                          ("a", "single", "m2", "not_sure"), ("b", "single", "m2", "correct")]),
    _record("gsm8k.jsonl", [(f"g{i}", "single", "m1", "correct" if i < 3 else "incorrect") for i in range(4)]
            + [(f"g{i}", "pace", "m1", "correct") for i in range(4)]),
]


def test_table2_dataset_by_pattern_with_macro_mean() -> None:
    table = paper_table2(RECORDS, model="m1")
    assert list(table.columns) == ["single", "pace"]
    assert table.loc["rws.jsonl", "single"] == 0.5 and table.loc["gsm8k.jsonl", "single"] == 0.75
    # the macro mean is over datasets (0.5 + 0.75) / 2, not over the 6 items pooled (4/6)
    assert table.loc[MACRO_MEAN, "single"] == pytest.approx(0.625)
    assert table.loc[MACRO_MEAN, "pace"] == 1.0


def test_table1_single_shot_by_model() -> None:
    table = paper_table1(RECORDS)
    assert table.loc["m1", "all items"] == pytest.approx(4 / 6, abs=1e-4)
    assert table.loc["m2", "rws.jsonl"] == 0.5
    assert "Table 2" in tables_markdown(RECORDS) and "macro mean" in tables_markdown(RECORDS)
