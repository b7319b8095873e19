"""What-if replay in the user's words: checkpoint replay of IF-World and the baselines, and the replay rebuilt
from a saved record — numbered from 1 (the slider's numbers), no LangGraph start pseudo-step, no node names."""

from __future__ import annotations

import re

from ifworld import runs
from ifworld.runs import ReplayStep
from ifworld.whatif import record_steps, service
from ifworld.whatif.params import default_params
from ifworld.whatif.records import load_record
from tests.whatif.conftest import PROP, SMALL
from tests.whatif.records import sample_record

INTERNAL = re.compile(r"__\w+__|\b(start_round|collect|final_resolve|report_core|report_analysis|"
                      r"report_scenarios|debate_pro|debate_con|debate_judge|assemble)\b")


def _readable(steps: list[ReplayStep]) -> None:
    assert [s.number for s in steps] == list(range(1, len(steps) + 1))
    assert all(s.label and not INTERNAL.search(s.label) for s in steps), [s.label for s in steps]


def test_record_steps_are_numbered_from_one_and_named() -> None:
    steps = record_steps(sample_record())
    _readable(steps)
    assert [s.label for s in steps] == [
        "Refined the scenario",
        "Round 1 — geophysics expert", "Round 1 — economics expert", "Shared frame for round 2",
        "Round 2 — geophysics expert", "Round 2 — economics expert failed", "Debate for round 3",
        "Round 2 — final synthesis", "Report written"]
    assert steps[-1].next == [] and steps[0].changed == ["scenario"]
    first_frame = next(s for s in steps if s.label == "Shared frame for round 2")
    assert set(first_frame.values["rounds"][0]["experts"]) == {"geophysics", "economics"}
    assert steps[1].values["rounds"][0]["experts"].keys() == {"geophysics"}  # earlier states not mutated
    # the states are plain JSON (like a checkpoint's) and validate back to the record's own parts
    last = load_record(steps[-1].values)
    assert last.report == load_record(sample_record()).report
    assert [r.frame for r in last.rounds] == [r.frame for r in load_record(sample_record()).rounds]


def test_record_steps_of_an_empty_or_legacy_record() -> None:
    assert record_steps(None) == []  # no start pseudo-step standing in for nothing
    legacy = sample_record()
    for rnd in legacy["rounds"]:
        del rnd["round"]
    steps = record_steps(legacy)
    assert [r["round"] for r in steps[-1].values["rounds"]] == [1, 2]
    assert steps[1].label == "Round 1 — geophysics expert"


def test_record_steps_of_baselines() -> None:
    single = {"method": "single", "proposition": "Q", "report": {"natural": True, "markdown": "# Q\n\nA."}}
    assert [(s.number, s.label) for s in record_steps(single)] == [(1, "Single agent answer")]
    debate = {"method": "debate", "proposition": "Q", "report": {"natural": True, "markdown": "# Q"},
              "rounds": [{"round": r, "debate": {"pro": "p", "con": "c"}} for r in (1, 2)]}
    assert [s.label for s in record_steps(debate)] == [
        "Debate — Pro and Con, turn 1", "Debate — Pro and Con, turn 2", "Debate — judge's synthesis"]


def test_checkpoint_replay_of_an_ifworld_run(run_whatif, wsettings, store) -> None:  # noqa: ANN001
    rec = run_whatif(rounds=2)
    steps = runs.replay(rec["run_id"], store=store, settings=wsettings)
    _readable(steps)
    labels = [s.label for s in steps]
    assert labels[0] == "Refined the scenario" and labels[-1] == "Report written"
    assert "Round 1 — physics, economics and medicine experts" in labels
    assert "Shared frame for round 2" in labels and any(lab.startswith("Debate for round 2") for lab in labels)
    assert any("Round 1 — conflicts resolved" in lab for lab in labels)
    refined = steps[0]
    assert refined.values["scenario"] and refined.changed == ["scenario"]  # the state *after* the refiner
    assert steps[-1].values["report"] and steps[-1].next == []


def test_checkpoint_replay_of_a_paused_run_ends_paused(fake_server, wsettings, store) -> None:  # noqa: ANN001
    out = service.run(default_params(PROP, experts=SMALL[:2], rounds=1, review=True), settings=wsettings,
                      store=store)
    steps = runs.replay(out["run_id"], store=store, settings=wsettings)
    assert [(s.number, s.label, s.paused) for s in steps] == [
        (1, "Refined the scenario", False), (2, "Paused for review", True)]


def test_checkpoint_replay_of_the_baselines(run_whatif, wsettings, store) -> None:  # noqa: ANN001
    labels = {}
    for method, extra in (("single", {}), ("tree", {"breadth": 2, "depth": 1}), ("debate", {"debate_rounds": 1})):
        rec = run_whatif(method, **extra)
        steps = runs.replay(rec["run_id"], store=store, settings=wsettings)
        _readable(steps)
        labels[method] = [s.label for s in steps]
    assert labels["single"] == ["Single agent answer"]
    assert labels["tree"][:2] == ["Tree search — first draft", "Tree search — step 1, branches 1 and 2"]
    assert labels["tree"][-1] == "Tree search — best leaf's answer"
    assert labels["debate"] == ["Debate — Pro and Con, turn 1", "Debate — turn 1 done", "Debate — judge's synthesis"]
