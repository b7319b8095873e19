"""Typed belief records: the Runs page shows what the dict-reading view showed (snapshot taken before the
change), earlier records load, a malformed record is named (run and field) on the page, and the LLM run's
progress events validate into their payload models."""

from __future__ import annotations

import json

import pytest

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.graph import recording_of
from ifworld.beliefs.records import (
    AgentDone,
    BeliefRoundDone,
    LLMBeliefRecord,
    SimulationRecord,
    SweepRecord,
    load_belief_record,
    parse_llm_progress,
)
from ifworld.runs.records import RecordError
from tests.beliefs.belief_records import SNAPSHOT, llm_record, page_texts, save, simulation_record, snapshot


def test_runs_page_shows_exactly_what_the_dict_view_showed() -> None:
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    got = snapshot()
    for kind in ("llm", "simulation", "sweep"):
        for part, value in expected[kind].items():
            assert got[kind][part] == value, (kind, part)
    assert got["llm"]["charts"] == 3 and got["sweep"]["tables"]  # the snapshot is not of an empty page


def test_each_shape_loads_as_its_model() -> None:
    llm = load_belief_record(llm_record())
    assert isinstance(llm, LLMBeliefRecord) and llm.final.rounds_used == len(llm.rounds) == 3
    assert isinstance(llm.config, BeliefConfig) and llm.config.agents == 4
    sim = load_belief_record(simulation_record())
    assert isinstance(sim, SimulationRecord) and sim.summary.runs == 3 and len(sim.rows) == sim.rows_total
    partial = load_belief_record({"out": "/x.csv", "chunks_done": 1, "chunks_total": 4})
    assert isinstance(partial, SweepRecord) and partial.spec == {} and partial.chunks_done == 1
    assert load_belief_record({"something": "else"}) is None and load_belief_record(None) is None
    assert load_belief_record(llm) is llm
    # the animation is rebuilt from the typed record exactly as from the stored dict
    a, b = recording_of(llm_record())[0], recording_of(llm)[0]
    assert (a.beliefs == b.beliefs).all() and (a.messages == b.messages).all() and (a.f1 == b.f1).all()


def test_records_of_earlier_versions_load() -> None:
    old = llm_record()
    for key in ("topology", "degree", "rewire", "graph_seed", "liars", "noise"):
        old["config"].pop(key, None)  # config fields added later
    for key in ("liars", "shares", "calls", "accepted_ids"):
        old.pop(key)
    old["final"].pop("locked_false")
    old["legacy_note"] = "kept out"
    rec = load_belief_record(old)
    assert isinstance(rec, LLMBeliefRecord) and rec.config.topology == "complete" and rec.liars == []
    assert recording_of(rec)[0].liars.shape == (1, 4)


@pytest.mark.parametrize(("change", "field"), [
    (lambda r: r["final"].pop("f1"), "final.f1"),
    (lambda r: r["config"].update(agents=1), "config"),  # BeliefConfig's own message names "agents"
    (lambda r: r["rounds"][1].update(f1="high"), "rounds.1.f1"),
    (lambda r: r.update(snapshots={"beliefs": []}), "snapshots.partners"),
])
def test_malformed_llm_record_is_named(change, field) -> None:
    broken = llm_record()
    change(broken)
    with pytest.raises(RecordError, match=rf"^belief run b-1: field {field}: ") as err:
        load_belief_record(broken, "b-1")
    assert err.value.field == field
    if field == "config":
        assert "agents: input should be greater than or equal to 2, got 1" in str(err.value)


def test_malformed_record_is_named_on_the_runs_page() -> None:
    broken = simulation_record()
    broken["summary"]["f1"] = "n/a"
    run_id = save("beliefs.simulate", broken)
    shown = page_texts(run_id)
    assert shown["metrics"] == [] and shown["json"] == 1  # nothing half-drawn; the raw record instead
    assert len(shown["errors"]) == 1
    assert f"run {run_id}" in shown["errors"][0] and "field summary.f1" in shown["errors"][0]


def test_llm_progress_events_are_typed() -> None:
    done = parse_llm_progress({"kind": "agent_done", "node": "agent", "agent": 2, "round": 3, "model": "m",
                               "vote": "STOP", "shared": 2, "unknown_facts": 1, "malformed": 0,
                               "kept_beliefs": 0, "extra_shares": 0})
    assert isinstance(done, AgentDone) and (done.agent, done.round, done.unknown_facts) == (2, 3, 1)
    row = parse_llm_progress({"kind": "round_done", "round": 1, "precision": 1.0, "recall": 0.5, "f1": 0.667,
                              "stop_share": 0.25, "accepted": 3})
    assert isinstance(row, BeliefRoundDone) and row.stop_share == 0.25
    assert parse_llm_progress({"kind": "chunks", "done": 1}) is None
