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
    assert list(table.columns) == ["PACE"]  # Table 2's columns: HMAW, PACE, PHASE, SCHEMA (single is Table 1)
    assert table.loc["rws.jsonl", "PACE"] == 100.0 and table.index.name == "Dataset"
    assert table.loc[MACRO_MEAN, "PACE"] == 100.0


def test_table2_macro_mean_is_over_datasets_in_percent() -> None:
    records = [_record("rws.jsonl", [("a", "hmaw", "m1", "correct"), ("b", "hmaw", "m1", "incorrect")]),
               _record("gsm8k.jsonl", [(f"g{i}", "hmaw", "m1", "correct" if i < 3 else "incorrect")
                                       for i in range(4)])]
    table = paper_table2(records)
    assert table.loc["rws.jsonl", "HMAW"] == 50.0 and table.loc["gsm8k.jsonl", "HMAW"] == 75.0
    # the macro mean is over datasets (50 + 75) / 2, not over the 6 items pooled (4/6)
    assert table.loc[MACRO_MEAN, "HMAW"] == pytest.approx(62.5)
    md = tables_markdown(records)
    assert "| Dataset | HMAW |" in md and "| Macro-mean | 62.50 |" in md and "accuracy (%)" in md


def test_table1_single_shot_by_model_in_percent() -> None:
    table = paper_table1([RECORDS[0]])
    assert list(table.columns) == ["Accuracy"] and table.index.name == "Model"
    assert table.loc["m1", "Accuracy"] == 50.0 and table.loc["m2", "Accuracy"] == 50.0
    several = paper_table1(RECORDS)
    assert several.loc["m1", "gsm8k.jsonl"] == 75.0
    md = tables_markdown(RECORDS)
    assert "Table 2" in md and "Macro-mean" in md and "| m1 | 75.00 | 50.00 |" in md
