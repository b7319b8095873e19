"""The contract of a what-if method, run on EVERY registered method (built-in or installed) against the tests' fake
model: a small run ends in a record of its method that loads, with a report the judge can score (every rubric
dimension and ``overall`` within bounds). The toy method of examples/extending/ passes, and copies of it, broken on
purpose, are caught (docs/extending.md, "The contract tests")."""

from __future__ import annotations

from typing import Any

import pytest

from ifworld.config import Settings
from ifworld.whatif import JUDGE_MAXIMA, METHOD_REGISTRY, judge_record, load_record
from ifworld.whatif.judge import report_markdown
from tests.fixtures.examples import load_example

SIZE = {"rounds": 1, "experts": ["physics", "economics"], "breadth": 1, "depth": 1, "debate_rounds": 1}


def check_method(name: str, run_whatif, settings: Settings) -> dict[str, Any]:
    """Run the registered method ``name`` small and judge it; AssertionError saying which part of the contract it
    breaks. Returns the judgement."""
    record = run_whatif(name, **SIZE)
    assert record.get("method") == name, f"{name}: the record names method {record.get('method')!r}"
    report = load_record(record).report
    assert report is not None and record.get("report"), f"{name}: the record has no report"
    said = (report.markdown.split("\n", 1)[-1] if report.natural  # a natural report: its text below the title
            else " ".join([report.executive_verdict.verdict, *map(str, report.summary_bullets),
                           *map(str, report.core_conclusions)]))
    assert said.strip() and report_markdown(record).strip(), f"{name}: the report is empty"
    assert record["calls"] and record["usage"]["calls"] == len(record["calls"]), f"{name}: its model calls"
    judged = judge_record(record, settings)
    for dimension, most in JUDGE_MAXIMA.items():
        assert 0 <= judged[dimension] <= most, f"{name}: the judge's {dimension} is {judged[dimension]}"
    assert 0 <= judged["overall"] <= 100, f"{name}: overall {judged['overall']}"
    return judged


@pytest.mark.parametrize("name", METHOD_REGISTRY.names())
def test_every_registered_method_keeps_the_contract(name: str, run_whatif, wsettings: Settings) -> None:
    check_method(name, run_whatif, wsettings)


def test_the_toy_method_passes_and_broken_copies_are_caught(run_whatif, wsettings: Settings) -> None:
    toy = load_example("toy_method")
    with METHOD_REGISTRY.temporarily(toy.SPEC):
        check_method(toy.SPEC.name, run_whatif, wsettings)

    def no_report(state: dict, params: dict, calls: list) -> dict:
        return toy.make_record("best_of_two", state, params, calls, rounds=[], report={}, degraded=[], frame_diffs=[])

    def wrong_name(state: dict, params: dict, calls: list) -> dict:
        return {**toy.finalize(state, params, calls), "method": "single"}

    for finalize, caught in ((no_report, "no report|report is empty"), (wrong_name, "names method 'single'")):
        broken = toy.SPEC.model_copy(update={"finalize": finalize})
        with METHOD_REGISTRY.temporarily(broken), pytest.raises(AssertionError, match=caught):
            check_method(toy.SPEC.name, run_whatif, wsettings)
