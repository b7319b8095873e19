"""A per-item limit is a limit (issue #20): no start-up budget inside an item's limit after a kill, and
identical answers get identical verdicts. Verdicts are asserted, not durations; pytest-timeout only keeps a
regression from hanging the suite (the old behaviour — 60 s granted again after every kill — exceeds it)."""

from __future__ import annotations

import pytest

from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.grader import check, grade_many
from tests.rws.conftest import load_tables

HARD = load_tables(("timeouts",))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("row", HARD)
def test_hard_item_times_out_within_its_own_limit(row: dict) -> None:
    result = check(row["pred"], row["gt"], row["type"], timeout_s=row["timeout_s"])
    assert result.verdict == "not_sure" and "timeout" in result.annotations, result
    assert result.reason == f"time limit: timed out after {row['timeout_s']:g} s"
    assert check("x + x", "2x", "symbolic").verdict == "correct"


@pytest.mark.timeout(240)
def test_identical_answers_get_identical_verdicts_after_kills() -> None:
    row = HARD[0].values[0]
    items = [RWSItem(id=f"t_{i}", q_id=i, question="q", final=row["gt"], type="symbolic") for i in range(4)]
    items.append(RWSItem(id="easy", q_id=9, question="q", final=r"\frac{\Omega r}{V}", type="symbolic"))
    preds = {f"t_{i}": row["pred"] for i in range(4)} | {"easy": r"\Omega r / V"}
    report = grade_many(items, preds, timeout_s=0.5)
    verdicts = {grade.id: (grade.verdict, grade.reason) for grade in report.items}
    assert {verdicts[f"t_{i}"] for i in range(4)} == {("not_sure", "time limit: timed out after 0.5 s")}, verdicts
    assert verdicts["easy"][0] == "correct", verdicts
