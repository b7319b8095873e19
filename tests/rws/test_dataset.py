"""Loader tests: bad lines by number, non-UTF-8, JSON arrays, duplicates, grouping, size cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ifworld.rws import dataset
from ifworld.rws.dataset import RWSItem, group_items, load_hub, load_items

GOOD = {"id": "2010_Lee_4_a", "q_id": 4, "sub_id": "a", "question": "Q?", "final": "1 km", "type": "numeric"}


def _line(**changes: object) -> str:
    return json.dumps({**GOOD, **changes})


def test_bad_lines_reported_by_number_and_good_ones_kept() -> None:
    text = "\n".join([
        _line(),
        "{not json",
        _line(id="2010_Lee_4_b", sub_id="b", type="vector"),
        "",
        _line(id="2010_Lee_4_c", sub_id="c", type="text"),
        "[1, 2]",
    ])
    result = load_items(text.encode())
    assert [item.id for item in result.items] == ["2010_Lee_4_a", "2010_Lee_4_c"]
    assert [err.line for err in result.errors] == [2, 3, 6]
    assert "bad JSON" in result.errors[0].reason
    assert "schema error" in result.errors[1].reason and "type" in result.errors[1].reason
    assert result.items[1].type == "textual"


def test_non_utf8_line_reported_not_crashing() -> None:
    data = _line().encode() + b"\n" + b'{"id": "x\xff\xfe"}\n' + _line(id="2010_Lee_5_a", q_id=5).encode()
    result = load_items(data)
    assert len(result.items) == 2
    assert result.errors[0].line == 2 and "UTF-8" in result.errors[0].reason


def test_json_array_and_path(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text(json.dumps([GOOD, {**GOOD, "id": "2010_Lee_4_b", "sub_id": "b"}, {"id": 3}]))
    result = load_items(path)
    assert len(result.items) == 2 and result.errors[0].line == 3


def test_duplicates_first_kept() -> None:
    result = load_items("\n".join([_line(question="first"), _line(question="second")]))
    assert [item.question for item in result.items] == ["first"]
    assert result.duplicates == ["2010_Lee_4_a"]
    assert not result.ok


def test_grouping_keeps_multipart_problems_linked() -> None:
    rows = [_line(id="2010_Lee_4_c", sub_id="c"), _line(id="2011_Kim_1_a", q_id=1), _line(id="2010_Lee_4_a"),
            _line(id="2010_Lee_4_b", sub_id="b")]
    groups = group_items(load_items("\n".join(rows)).items)
    assert list(groups) == [("2010_Lee", 4), ("2011_Kim", 1)]
    assert [item.sub_id for item in groups[("2010_Lee", 4)]] == ["a", "b", "c"]


def test_size_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "MAX_DATASET_BYTES", 10)
    with pytest.raises(dataset.DatasetTooLarge, match="limit"):
        load_items(_line())


def test_schema_defaults_and_aliases() -> None:
    item = RWSItem.model_validate({**GOOD, "hint": None, "step": "one step"})
    assert item.preamble == [] and item.step == ["one step"] and item.hint == ""


def test_hub_loading_without_datasets_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "datasets":
            raise ImportError("no datasets")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(RuntimeError, match="datasets"):
        load_hub("someone/rws")


def _row(**changes: object) -> bytes:
    import json

    row = {"id": "t_1", "q_id": 1, "question": "q?", "final": "5 km", "type": "numeric", **changes}
    return json.dumps(row).encode("utf-8")


def test_bom_keeps_line_one() -> None:
    loaded = load_items(b"\xef\xbb\xbf" + _row() + b"\n" + _row(id="t_2"))
    assert [item.id for item in loaded.items] == ["t_1", "t_2"] and not loaded.errors


def test_sub_id_number_like_q_id_string() -> None:
    loaded = load_items(_row(sub_id=1, q_id="2"))
    item = loaded.items[0]
    assert (item.sub_id, item.q_id) == ("1", 2)
    numbers = load_items(_row(id=7, final=72, sub_id=None))
    assert (numbers.items[0].id, numbers.items[0].final, numbers.items[0].sub_id) == ("7", "72", "")
    assert load_items(_row(q_id="two")).errors and load_items(_row(final=True)).errors


def test_deep_nesting_and_long_integer_are_line_errors_rest_loads() -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    long_int = b'{"id": "t_3", "q_id": 1, "question": "q", "final": "1", "type": "numeric", "meta": {"n": ' \
        + b"7" * 5000 + b"}}"
    loaded = load_items(b"\n".join([_row(), deep, long_int, _row(id="t_4")]))
    assert [item.id for item in loaded.items] == ["t_1", "t_4"]
    reasons = {err.line: err.reason for err in loaded.errors}
    assert "nested too deeply" in reasons[2]
    assert "4,300 digits" in reasons[3]


def test_unparsable_gold_reported_at_load_time_with_row() -> None:
    rows = [_row(), _row(id="t_2", final="\\frac{x}{", type="symbolic"), _row(id="t_3", final="five km"),
            _row(id="t_4", final="x \\le 5", type="symbolic")]
    loaded = load_items(b"\n".join(rows), check_gold=True)
    assert len(loaded.items) == 4
    assert sorted(err.line for err in loaded.gold_problems) == [2, 3]
    assert "cannot be graded" in loaded.gold_problems[0].reason
