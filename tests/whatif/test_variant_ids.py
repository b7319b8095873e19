"""Issue #42, item 1: the variants fixed at the review are the report's branches, by id (V1, V2, …)."""

from __future__ import annotations

from ifworld.llm.schema import sent_schema
from ifworld.whatif import consistency, review
from ifworld.whatif.schemas import ReportScenarios, Scenario
from ifworld.whatif.workshop_models import branches, variant_labels
from tests.whatif.conftest import SMALL

FORGETFUL = "What if a forgetful comet grazed the Moon?"


def test_variants_get_ids_once_and_old_records_derive_them_by_position() -> None:
    old = {"variants": [{"name": "fast onset", "description": "a"}, {"name": "gradual onset", "description": "b"}]}
    assert [v.id for v in Scenario.model_validate(old).variants] == ["V1", "V2"]  # a record from before ids
    fixed = Scenario.model_validate(old).model_dump(mode="json")
    assert Scenario.model_validate(fixed).model_dump(mode="json") == fixed  # stable once assigned
    assert variant_labels(old) == {"V1": "fast onset", "V2": "gradual onset"} and branches(old) == list(
        variant_labels(old).values())


def test_a_review_edit_keeps_the_ids_of_the_variants_it_still_names() -> None:
    fixed = Scenario.model_validate({"variants": [{"name": n, "description": "d"} for n in ("A", "B", "C")]})
    edited, _, edits = review.apply_review(fixed.model_dump(mode="json"), ["physics"],
                                           {"scenario": {"variants": "C | d\nNew | n"}})
    assert [(v["id"], v["name"]) for v in edited["variants"]] == [("V3", "C"), ("V1", "New")]
    assert edits and edits[0]["field"] == "variants"


def test_the_scenarios_part_must_give_every_variant_a_probability_by_id() -> None:
    assert "variant_probabilities" in sent_schema(ReportScenarios)["required"]
    report = {"scenarios": [{"id": "B1", "name": "x", "probability_pct": 100}],
              "variant_probabilities": [{"variant_id": "V1", "probability_pct": 40}, {"variant_id": "V7",
                                                                                      "probability_pct": 5}]}
    found = [v.message for v in consistency.check(report, ["V1", "V2"]) if v.check == "variant_probabilities"]
    assert found == ["variant V2 has no probability (give one in variant_probabilities)",
                     "'V7' is not a variant id of this scenario (ids: V1, V2)"]
    assert all(v.part == "scenarios" for v in consistency.check(report, ["V1", "V2"])
               if v.check == "variant_probabilities")
    none = {"scenarios": report["scenarios"], "variant_probabilities": []}
    assert not [v for v in consistency.check(none, ()) if v.check == "variant_probabilities"]  # no variants: none


def test_a_violating_scenarios_reply_gets_one_repair_turn_and_the_prompt_names_every_id(run_whatif,
                                                                                       fake_server) -> None:
    rec = run_whatif(proposition=FORGETFUL, experts=SMALL[:2], rounds=1)
    ids = [v.id for v in Scenario.model_validate(rec["scenario"]).variants]
    assert len(ids) >= 2
    writers = [r for r in fake_server.requests if (r.role or "") == "whatif.report#scenarios"]
    assert writers and all(f"- {i} " in r.prompt for r in writers for i in ids)  # as sent, at the fake server
    assert fake_server.count("whatif.repair") == 1
    cc = rec["report"]["consistency_checks"]
    assert any("V9" in r for r in cc["repaired"]) and not [v for v in cc["violations"] if "variant" in v]
    given = {v["variant_id"] for v in rec["report"]["variant_probabilities"]}
    assert given == set(ids)


def test_the_demo_model_gives_every_variant_a_probability(run_whatif) -> None:
    rec = run_whatif(experts=SMALL[:2], rounds=1)
    ids = [v.id for v in Scenario.model_validate(rec["scenario"]).variants]
    assert [v["variant_id"] for v in rec["report"]["variant_probabilities"]] == ids
    assert sum(v["probability_pct"] for v in rec["report"]["variant_probabilities"]) == 100
    assert rec["report"]["consistency_checks"]["violations"] == []
