"""Human in the loop: review after the refiner, a workshop participant between rounds, bad answers."""

from __future__ import annotations

import json

import pytest

from ifworld.safe_text import typed_text
from ifworld.whatif import export, review, service
from ifworld.whatif.params import default_params
from tests.whatif.conftest import PROP, SMALL


def _start(wsettings, store, **overrides):
    params = default_params(PROP, experts=SMALL[:2], **overrides)
    return service.run(params, settings=wsettings, store=store)


def test_review_pauses_before_any_expert_and_applies_edits(fake_server, wsettings, store):
    out = _start(wsettings, store, rounds=1, review=True)
    run_id, (ask,) = out["run_id"], out["paused"]
    assert store.get_run(run_id).status == "paused" and ask["kind"] == "review"
    assert ask["panel"] == SMALL[:2] and ask["scenario"]["premises"]
    assert fake_server.count("whatif.expert") == 0  # nothing ran past the refiner
    assert service.pending_asks(run_id, wsettings, store) == [ask]
    answer = {"action": "edit", "scenario": {"premises": "the Moon vanishes at noon UTC\nno debris reaches Earth",
                                             "indicators": ["tidal range | m | < 0.2"]},
              "panel": ["physics", "urban planning"]}
    rec = service.run({}, settings=wsettings, store=store, run_id=run_id, answer=answer)
    assert store.get_run(run_id).status == "completed" and rec["panel"] == ["physics", "urban planning"]
    assert rec["scenario"]["premises"] == ["the Moon vanishes at noon UTC", "no debris reaches Earth"]
    assert rec["scenario"]["indicators"] == [{"name": "tidal range", "unit": "m", "threshold": "< 0.2"}]
    experts = [r for r in fake_server.requests if r.role == "whatif.expert"]
    assert len(experts) == 2 and all("- no debris reaches Earth" in r.prompt for r in experts)
    assert any("You are the urban planning expert" in json.dumps(r.body) for r in experts)  # persona written
    assert [e["field"] for e in rec["review_edits"]] == ["premises", "indicators", "panel"]
    assert rec["review_edits"][-1] == {"field": "panel", "label": "Expert panel", "before": SMALL[:2],
                                       "after": ["physics", "urban planning"]}
    md = export.record_markdown(rec)
    assert "## Review edits" in md and "| Expert panel | " + "; ".join(SMALL[:2]) + " | physics; urban planning |" in md


def test_review_records_only_what_changed(fake_server, wsettings, store):
    """The page sends every field; only the premises and the panel changed, so only those are recorded."""
    out = _start(wsettings, store, rounds=1, review=True)
    run_id, (ask,) = out["run_id"], out["paused"]
    scen = ask["scenario"]
    form = {f: "\n".join(review.field_lines(f, scen[f])) for f in review.EDITABLE}  # as the form shows them
    form["premises"] = form["premises"] + "\nno debris reaches Earth"
    rec = service.run({}, settings=wsettings, store=store, run_id=run_id,
                      answer={"action": "edit", "scenario": form, "panel": [*ask["panel"], "law"]})
    assert [e["field"] for e in rec["review_edits"]] == ["premises", "panel"]
    assert rec["review_edits"][0]["after"][-1] == "no debris reaches Earth"
    md = export.record_markdown(rec)
    assert "Constraints held constant |" not in md.split("## Review edits")[1].split("##")[0]


def test_participant_between_rounds_reaches_experts_resolver_and_report(fake_server, wsettings, store):
    out = _start(wsettings, store, rounds=2, pause_between_rounds=True)
    (ask,) = out["paused"]
    assert ask["kind"] == "between_rounds" and ask["round"] == 1 and "Shared frame after round 1" in ask["frame"]
    assert fake_server.count("whatif.expert") == 2
    said = "Our town's ferry can carry 400 people a day if the bridges fail."
    rec = service.run({}, settings=wsettings, store=store, run_id=out["run_id"],
                      answer={"action": "continue", "contribution": said, "name": "harbour master"})
    assert rec["participants"] == [{"round": 2, "after_round": 1, "author": "harbour master", "kind": "note",
                                    "tag": "", "votes": 0, "edited": False, "text": said}]
    round2 = [r for r in fake_server.requests if r.role == "whatif.expert" and "Round 2." in json.dumps(r.body)]
    assert len(round2) == 2 and all(said in json.dumps(r.body) for r in round2)
    final_resolver = [r for r in fake_server.requests if r.role == "whatif.resolver"][-1]
    assert 'author="harbour master" kind="note"' in final_resolver.prompt and said in final_resolver.prompt
    md = export.record_markdown(rec)
    assert "## The room's contributions" in md
    # the export writes typed text escaped so a Markdown reader shows exactly what was typed (issue #40)
    assert f"| after round 1 → round 2 | harbour master | note | {typed_text(said)} |" in md


def test_a_bad_answer_is_asked_again_with_the_reason(fake_server, wsettings, store):
    out = _start(wsettings, store, rounds=1, review=True)
    with pytest.raises(review.ReviewError, match="not usable"):
        review.check_answer(out["paused"][0], {"panel": ["physics", "<script>"]})
    again = service.run({}, settings=wsettings, store=store, run_id=out["run_id"], answer={"action": "explode"})
    assert "unknown action 'explode'" in again["paused"][0]["error"]
    assert store.get_run(out["run_id"]).status == "paused" and fake_server.count("whatif.expert") == 0
    done = service.run({}, settings=wsettings, store=store, run_id=out["run_id"], answer={"action": "continue"})
    assert done["report"]["markdown"] and store.get_run(out["run_id"]).status == "completed"


def test_cli_review_then_resume_with_edit_file(llm_env, tmp_path):
    from typer.testing import CliRunner

    from ifworld.cli import app as root
    from ifworld.runs.store import get_store
    from ifworld.whatif.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["run", PROP, "--experts", "physics,economics", "--rounds", "2", "--review",
                              "--pause-between-rounds"])
    assert res.exit_code == 0, res.output
    paused = json.loads(res.stdout)
    run_id = paused["run_id"]
    assert paused["paused"][0]["kind"] == "review" and "runs resume" in res.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"panel": []}')
    res = runner.invoke(root, ["runs", "resume", run_id, "--edit", str(bad)])
    assert res.exit_code == 2 and "cannot be used: The expert list is empty" in res.stderr
    good = tmp_path / "edit.json"
    good.write_text(json.dumps({"scenario": {"constants": ["orbital mechanics"]}, "panel": ["physics", "law"]}))
    res = runner.invoke(root, ["runs", "resume", run_id, "--edit", str(good)])
    assert res.exit_code == 0 and json.loads(res.stdout)["paused"][0]["kind"] == "between_rounds"
    talk = tmp_path / "talk.json"
    talk.write_text(json.dumps({"contribution": "The school gym is our shelter."}))
    res = runner.invoke(root, ["runs", "resume", run_id, "--edit", str(talk)])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)
    assert rec["panel"] == ["physics", "law"] and rec["scenario"]["constants"] == ["orbital mechanics"]
    assert typed_text("The school gym is our shelter.") in export.record_markdown(rec)
    assert get_store().get_run(run_id).status == "completed"


def test_pause_asks_are_typed_for_the_forms() -> None:
    from ifworld.whatif.review import BetweenRoundsAsk, ReviewAsk, between_rounds_ask, parse_ask, review_ask

    scen = {"restated": "No Moon", "premises": ["a"], "indicators": [{"name": "tides", "unit": "m"}]}
    ask = parse_ask({**review_ask(scen, ["physics"]), "error": "'premises' has 13 entries; at most 12"})
    assert isinstance(ask, ReviewAsk) and ask.scenario.restated == "No Moon" and ask.panel == ["physics"]
    assert (ask.scenario.indicators[0].name, ask.scenario.indicators[0].threshold) == ("tides", "")
    assert ask.error.startswith("'premises'") and "panel" in ask.editable
    between = parse_ask(between_rounds_ask(2, "frame text"))
    assert isinstance(between, BetweenRoundsAsk)
    assert (between.round, between.frame, between.error) == (2, "frame text", "")


def test_the_refiners_extra_domains_are_offered_at_review_not_added(fake_server, wsettings, store):
    from ifworld.whatif.graph import suggested_experts

    out = _start(wsettings, store, rounds=1, review=True)
    (ask,) = out["paused"]
    assert review.parse_ask(ask).panel == ["physics", "economics"]  # exactly what was asked
    assert suggested_experts(["physics"], ["physics", "ecology", "law"]) == ["biology/ecology", "law"]
    typed = review.parse_ask({**ask, "suggested_experts": ["ecology"]})  # the typed ask keeps them for the form
    assert typed.suggested_experts == ["ecology"] and typed.panel == ["physics", "economics"]
