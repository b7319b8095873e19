"""The deterministic consistency check: normalisation, each check, the one repair turn, the listing."""

from __future__ import annotations

import copy

import pytest

from ifworld.llm.schema import nonstandard_keywords, sent_schema
from ifworld.whatif import agents, consistency
from ifworld.whatif.report import finish_report, render_report_markdown
from ifworld.whatif.schemas import (
    CalibrationPart,
    Critique,
    DebateBrief,
    ExpertOutput,
    Judgement,
    Report,
    ReportAnalysis,
    ReportCore,
    ReportScenarios,
    Scenario,
    Synthesis,
)
from tests.whatif.conftest import SMALL


def good_parts() -> dict:
    return {
        "scenarios": [
            {"id": "B1", "name": "cascade", "condition": "output falls > 5 %", "probability_pct": 30,
             "indicators": ["output gap > 5 %"]},
            {"id": "B2", "name": "managed", "condition": "policy within 6 months", "probability_pct": 70,
             "indicators": ["policy response time < 6 months"]}],
        "timeline": [{"horizon": "short", "event": "shock", "branch_id": ""},
                     {"horizon": "long", "event": "recovery", "branch_id": "B2"}],
        "decision_table": [{"indicator": "policy response time", "threshold": "< 6 months", "branch_id": "B2"}],
        "calibration_ranges": [{"quantity": "output", "unit": "%", "ci50": [2, 4], "ci80": [1, 5], "ci95": [0, 8]}],
    }


def inconsistent_parts() -> dict:
    parts = good_parts()
    parts["scenarios"][1]["probability_pct"] = 50  # sums to 80
    parts["timeline"][1]["branch_id"] = "B7"  # dangling
    parts["decision_table"].append({"indicator": "river level", "threshold": "> 5 m", "branch_id": "B1"})
    parts["calibration_ranges"] += [
        {"quantity": "flat", "unit": "m", "ci50": [0.5, 0.5], "ci80": [0.4, 0.6], "ci95": [0.3, 0.7]},
        {"quantity": "wide", "unit": "m", "ci50": [1, 9], "ci80": [2, 8], "ci95": [0, 10]},
        {"quantity": "half", "unit": "m", "ci50": [1, 2]}]
    return parts


def test_consistent_parts_pass_every_check():
    report = consistency.reconcile(good_parts())
    cc = report["consistency_checks"]
    assert [(c["name"], c["passed"]) for c in cc["checks"]] == [(n, True) for n in consistency.CHECKS]
    assert cc["violations"] == cc["repaired"] == cc["normalised"] == []


def test_each_violation_is_found_with_a_specific_message():
    report = inconsistent_parts()
    consistency.normalise(report)
    found = {(v.check, v.message) for v in consistency.check(report)}
    assert ("probabilities_sum", "branch probabilities sum to 80 %, not 100 (B1 30 %, B2 50 %)") in found
    assert ("branch_references", "timeline event 'recovery' points to unknown branch 'B7'") in found
    assert ("indicators_in_scenario",
            "decision-table indicator 'river level' is not among any branch's indicators") in found
    assert ("intervals_nest", "flat: the 50 % interval 0.5–0.5 m is degenerate (low must be below high)") in found
    assert ("intervals_nest", "wide: the 50 % interval 1–9 m is not inside the 80 % interval 2–8 m") in found
    assert ("intervals_nest", "half: missing the 80 %, 95 % interval") in found
    assert len(found) == 6


def test_normalisation_without_a_model():
    report = good_parts()
    report["scenarios"][0].update(id="", probability_pct=0.3)
    report["scenarios"][1]["probability_pct"] = 0.7
    report["decision_table"][0]["branch_id"] = "Managed"  # a name instead of an id
    report["timeline"][1]["branch_id"] = "b2"  # an id in another case
    report["calibration_ranges"][0]["ci95"] = [8, 0]  # reversed
    out = consistency.reconcile(report)
    assert [s["id"] for s in out["scenarios"]] == ["B1", "B2"]
    assert [s["probability_pct"] for s in out["scenarios"]] == [30, 70]
    assert out["decision_table"][0]["branch_id"] == "B2" and out["timeline"][1]["branch_id"] == "B2"
    assert out["calibration_ranges"][0]["ci95"] == [0, 8]
    cc = out["consistency_checks"]
    assert cc["violations"] == [] and len(cc["normalised"]) == 4


def test_one_targeted_repair_turn_then_the_rest_is_listed():
    calls = []

    def repair(part, current, violations):
        calls.append((part, copy.deepcopy(current), violations))
        if part == "analysis":
            return current  # the model changes nothing: those violations must stay listed
        fixed = copy.deepcopy(current)
        fixed["scenarios"][1]["probability_pct"] = 70
        fixed["timeline"][1]["branch_id"] = "B2"
        fixed["decision_table"] = fixed["decision_table"][:1]
        return fixed

    report = consistency.reconcile(inconsistent_parts(), repair)
    assert [c[0] for c in calls] == ["scenarios", "analysis"]  # each part at fault asked once
    assert set(calls[0][1]) == {"scenarios", "timeline", "decision_table", "variant_probabilities"}
    assert set(calls[1][1]) == {"calibration_ranges"} and len(calls[1][2]) == 3
    cc = report["consistency_checks"]
    assert len(cc["repaired"]) == 3 and all("interval" in v for v in cc["violations"]) and len(cc["violations"]) == 3
    assert {c["name"]: c["passed"] for c in cc["checks"]} == {
        "probabilities_sum": True, "intervals_nest": False, "branch_references": True,
        "indicators_in_scenario": True, "variant_probabilities": True, "numbers_finite": True}
    md = render_report_markdown(report)
    section = md[md.index("## Consistency checks"):]
    assert "| Calibration intervals are non-degenerate and nest 50 ⊂ 80 ⊂ 95 % | FAILED |" in section
    assert "**Repaired by the repair turn**" in section and "sum to 80 %" in section


def test_a_repair_that_makes_things_worse_is_discarded_and_a_failed_one_is_noted():
    def worse(part, current, violations):
        broken = copy.deepcopy(current)
        if part == "scenarios":
            broken["scenarios"] = []
        return broken

    report = consistency.reconcile(inconsistent_parts(), worse)
    assert report["scenarios"][1]["probability_pct"] == 50 and len(report["consistency_checks"]["violations"]) == 6

    def boom(part, current, violations):
        raise RuntimeError("endpoint down")

    report = consistency.reconcile(inconsistent_parts(), boom)
    assert any("repair turn for the scenarios part failed: endpoint down" in n
               for n in report["consistency_checks"]["normalised"])


def test_one_formatter_for_probabilities_everywhere():
    report = finish_report({**good_parts(), "scenarios": [
        {"id": "B1", "name": "rare", "probability_pct": 0.5, "indicators": ["x"]},
        {"id": "B2", "name": "likely", "probability_pct": 99.5, "indicators": ["policy response time"]}]}, [])
    md = report["markdown"]
    assert "| B1 | rare |  | 0.5 % |" in md and "| B1 rare |  | 0.5 % |" in md
    assert "| 0 % |" not in md and "| 1 % |" not in md
    # the chart and the side-by-side view read the same value the same way
    from ifworld.whatif.compare import report_sections
    from ifworld.whatif.figures import scenario_figure
    from ifworld.whatif.schemas import Report

    fig = scenario_figure(Report.model_validate(report).scenarios)
    assert list(fig.data[0].text) == ["0.5 %", "99.5 %"] and list(fig.data[0].x) == [0.5, 99.5]
    assert "**B1 rare** — 0.5 %" in report_sections({"report": report})["Scenarios"]


def test_pipeline_repairs_deliberately_inconsistent_parts(run_whatif, fake_server):
    rec = run_whatif(proposition="What if an inconsistent flood hit the river town?", experts=SMALL[:2], rounds=1)
    assert fake_server.count("whatif.repair") == 2  # scenarios part + calibration, one turn each
    cc = rec["report"]["consistency_checks"]
    assert any("sum to 90 %" in r for r in cc["repaired"]) and any("B9" in r for r in cc["repaired"])
    assert cc["violations"] == ["river level: the 50 % interval 0.5–0.5 m is degenerate (low must be below high)"]
    assert sum(s["probability_pct"] for s in rec["report"]["scenarios"]) == pytest.approx(100, abs=1)


STANDARD_KEYWORDS = {
    "type", "properties", "required", "items", "enum", "const", "default", "description", "title", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minLength", "maxLength",
    "pattern", "format", "anyOf", "oneOf", "allOf", "$ref", "$defs", "additionalProperties", "examples",
}


def _keywords(schema, path="$"):
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield path, key
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    yield from _keywords(sub, f"{path}.{name}")
            elif isinstance(value, dict | list):
                yield from _keywords(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item, path)


STRUCTURED = [Scenario, ExpertOutput, Synthesis, DebateBrief, ReportCore, ReportAnalysis, ReportScenarios,
              CalibrationPart, Report, Critique, Judgement, *agents.REPAIR_PARTS.values()]


@pytest.mark.parametrize("schema", STRUCTURED, ids=lambda s: s.__name__)
def test_sent_schema_uses_standard_keywords_only(schema):
    for sent in (schema.model_json_schema(), sent_schema(schema)):  # pydantic's, and what is sent
        bad = [(p, k) for p, k in _keywords(sent) if k not in STANDARD_KEYWORDS]
        assert bad == [] and nonstandard_keywords(sent) == []
        text = str(sent)
        assert ("'minimum'" in text) == ("'maximum'" in text) and "'ge'" not in text and "'le'" not in text


def test_bounds_reach_the_model():
    props = sent_schema(ExpertOutput)["$defs"]["CausalEdge"]["properties"]["strength"]
    assert (props["minimum"], props["maximum"]) == (1, 3)
    conf = Synthesis.model_json_schema()["$defs"]["ConsensusPoint"]["properties"]["confidence"]
    assert (conf["minimum"], conf["maximum"]) == (0, 1)
    assert Report.model_json_schema()["$defs"]["ScenarioAnalysis"]["properties"]["probability_pct"]["maximum"] == 100
