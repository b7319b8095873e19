"""The shipped sample set: schema, balance, no drift from its physics, and gold grades 100 % correct."""

from __future__ import annotations

import pytest

from ifworld.rws.dataset import group_items, load_items
from ifworld.rws.grading.grader import grade_many
from ifworld.rws.grading.units import parse_scalar, registry
from tests.rws.conftest import SAMPLE
from tests.rws.sample_formulas import FORMULAS

RESULT = load_items(SAMPLE)
NUMERIC = [item for item in RESULT.items if item.type == "numeric"]


def test_sample_loads_cleanly_and_is_balanced() -> None:
    assert RESULT.ok, RESULT.errors
    assert len(RESULT.items) >= 42
    counts = {kind: sum(item.type == kind for item in RESULT.items) for kind in ("numeric", "symbolic", "textual")}
    assert all(count >= len(RESULT.items) // 4 for count in counts.values()), counts
    for item in RESULT.items:
        assert item.meta["source"] == "original" and item.meta["topic"] and item.meta["year"]
        assert item.step and item.hint


def test_multipart_problems_carry_preambles() -> None:
    groups = [members for members in group_items(RESULT.items).values() if len(members) > 1]
    assert len(groups) >= 3
    for members in groups:
        assert [m.sub_id for m in members][:3] == ["a", "b", "c"]
        assert not members[0].preamble and all(m.preamble for m in members[1:])


def test_every_numeric_final_has_a_formula() -> None:
    assert {item.id for item in NUMERIC} == set(FORMULAS)


@pytest.mark.parametrize("item", NUMERIC, ids=lambda item: item.id)
def test_numeric_final_matches_its_physics(item) -> None:
    reg = registry()
    expected = FORMULAS[item.id](reg)
    stated = parse_scalar(item.final)
    unit = stated.unit if stated.unit is not None else reg.dimensionless
    value = reg.Quantity(stated.value, unit).to(expected.units).magnitude
    assert value == pytest.approx(expected.magnitude, rel=0.01), (item.final, expected)


def test_gold_as_prediction_is_all_correct() -> None:
    report = grade_many(RESULT.items, {item.id: item.final for item in RESULT.items})
    wrong = [row for row in report.items if row.verdict != "correct"]
    assert report.accuracy == 1.0, wrong
    assert set(report.by_type) == {"numeric", "symbolic", "textual"}
