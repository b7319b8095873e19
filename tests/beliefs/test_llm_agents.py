"""LLM belief agents against the fake server: records, counts, model shares, concurrency, resume, CLI."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from ifworld import runs
from ifworld.beliefs import animation, llm_agents as la
from ifworld.beliefs.cli import app as beliefs_app
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import build_domain
from ifworld.beliefs.graph import recording_of
from ifworld.llm import NO_MODEL_HELP
from ifworld.runs.store import get_store
from tests.fixtures.scripts.beliefs import STOP_FROM_ROUND

SMALL = BeliefConfig(agents=4, facts=6, true_facts=2, false_facts=1, rounds=4, domain="family",
                     strategy="strategic")  # the model chooses what it passes on (Appendix A)


def run(settings, store, config=SMALL, **kw):
    return runs.execute("beliefs.llm", la.make_params(config, **kw), store=store, settings=settings)


def agent_requests(fake):
    return [r for r in fake.requests if r.path.endswith("/chat/completions")]


def test_homogeneous_run_record_and_animation(fake_server, settings, store):
    fake_server.latency = 0.05
    rec = run(settings, store, seed=3)
    assert rec["final"]["rounds_used"] == STOP_FROM_ROUND and rec["final"]["converged"]
    assert [r["round"] for r in rec["rounds"]] == list(range(1, STOP_FROM_ROUND + 1))
    assert set(rec["rounds"][0]) >= {"precision", "recall", "f1", "stop_share"}
    assert rec["rounds"][-1]["stop_share"] == 1.0
    assert rec["agent_models"] == ["fake-model"] * 4 and rec["condition"] == "llm-fake-model"
    assert rec["counts"] == {"unknown_facts": 0, "malformed": 0, "kept_beliefs": 0, "extra_shares": 0}
    assert rec["rows"][0]["condition"] == "llm-fake-model" and "missed_facts" in rec["rows"][0]
    assert fake_server.count("beliefs.agent") == 4 * STOP_FROM_ROUND
    assert fake_server.peak_concurrency > 1, "agents of a round must be called concurrently"
    recording, domain = recording_of(rec)
    assert recording.beliefs.shape == (STOP_FROM_ROUND + 1, 1, 4, 12)
    data = animation.round_data(recording, domain, t=1)
    assert len(data["edges"]) == 2 and 0 <= data["f1"] <= 1
    for fig in (animation.network_figure(recording, domain), animation.belief_heatmap_figure(recording, domain),
                animation.metrics_figure(recording)):
        assert fig.data
    info = store.get_run(store.list_runs(kind="beliefs")[0].id)
    assert info.status == "completed" and info.workflow == "beliefs.llm"


def test_same_seed_same_record(fake_server, settings, store):
    a, b = run(settings, store, seed=5), run(settings, store, seed=5)
    assert a["snapshots"] == b["snapshots"] and a["final"] == b["final"]


def test_heterogeneous_models_by_share(fake_server, settings, store):
    config = BeliefConfig(agents=8, facts=6, true_facts=2, false_facts=1, rounds=1)
    rec = run(settings, store, config, models=["m1", "m2", "m3", "m4"])
    assert Counter(rec["agent_models"]) == {"m1": 2, "m2": 2, "m3": 2, "m4": 2}
    assert Counter(r.body["model"] for r in agent_requests(fake_server)) == {"m1": 2, "m2": 2, "m3": 2, "m4": 2}
    seen = {int(r.system.split("You are agent ")[1].split(",")[0]): r.body["model"]
            for r in agent_requests(fake_server)}
    assert [seen[a] for a in range(8)] == rec["agent_models"]
    assert rec["condition"] == "llm-mixed"
    assert Counter(la.assign_models(4, ["a", "b"], [0.75, 0.25], 0)) == {"a": 3, "b": 1}


def test_unknown_facts_are_ignored_and_counted(fake_server, settings, store):
    bad = {"updated_beliefs": {"f999": 0.9, "Nobody is anyone's cousin": 0.5}, "facts_to_share": ["f998"],
           "vote": "CONTINUE"}
    fake_server.add_rule("beliefs.agent", bad, match=r"You are agent 1,")
    rec = run(settings, store)
    rounds = rec["final"]["rounds_used"]
    assert rounds == STOP_FROM_ROUND  # 3 of 4 vote STOP = 0.75 quorum
    assert rec["counts"]["unknown_facts"] == 3 * rounds
    assert rec["counts"]["kept_beliefs"] == rounds and rec["counts"]["malformed"] == 0
    assert rec["snapshots"]["messages"][0][1] == [-1, -1, -1]  # nothing valid to share


def test_malformed_reply_repaired_once_then_kept(fake_server, settings, store):
    fake_server.inject("malformed", times=2, match=r"You are agent 2,")
    rec = run(settings, store, seed=1)
    assert rec["counts"]["malformed"] == 1 and rec["counts"]["kept_beliefs"] == 1
    assert fake_server.count("beliefs.agent") == 4 * rec["final"]["rounds_used"] + 1  # one repair turn
    assert rec["snapshots"]["beliefs"][1][2] == rec["snapshots"]["beliefs"][0][2]  # agent 2 kept its beliefs


def test_malformed_then_valid_repair_is_not_counted(fake_server, settings, store):
    fake_server.inject("malformed", times=1, match=r"You are agent 0,")
    rec = run(settings, store)
    assert rec["counts"]["malformed"] == 0


def test_resume_reruns_only_the_failed_agent(fake_server, settings, store):
    """Agent 3 fails in round 2 after the other three have finished it (its reply is held until then: on a loaded
    machine a failure that came first ended the round before their writes were saved, and they ran again)."""
    failing = r"You are agent 3,.*round 2\."
    fake_server.inject("500", times=1, match=failing)
    fake_server.hold(match=failing)
    run_id = runs.start_run("beliefs.llm", la.make_params(SMALL, seed=2), store=store)
    events: list = []
    releaser = fake_server.release_when(lambda: sum(e.type == "step_finished" and e.node == "agent"
                                                     for e in list(events)) >= 4 + 3)  # round 1, then 3 of round 2
    with pytest.raises(runs.RunFailed):
        runs.drive(run_id, store=store, settings=settings, on_event=events.append)
    releaser.join(5)
    assert fake_server.count(None, None) == 8 and fake_server.count(None, 500) == 1
    assert store.get_run(run_id).status == "failed"
    fake_server.reset()
    rec = runs.drive(run_id, store=store, settings=settings)
    first = agent_requests(fake_server)[0].system
    assert "You are agent 3," in first and "round 2." in first
    assert fake_server.count(None, None) == 1 + 4  # the failed agent, then round 3
    assert rec["final"]["rounds_used"] == 3 and store.get_run(run_id).status == "completed"


def test_make_params_validation():
    with pytest.raises(ValueError, match="shares"):
        la.make_params(SMALL, models=["a", "b"], shares=[1.0])
    with pytest.raises(ValueError, match="agents"):
        la.make_params(BeliefConfig(agents=la.MAX_LLM_AGENTS + 1))
    assert la.make_params(SMALL)["agent_models"] == [""] * 4
    domain = build_domain(SMALL)
    assert [la.parse_fact(k, domain) for k in ("[f3]", "f3", "3", domain.labels[5], "f99", "nonsense")] == \
        [3, 3, 3, 5, None, None]


def test_cli_without_model_exits_2():
    result = CliRunner().invoke(beliefs_app, ["llm"])
    assert result.exit_code == 2 and NO_MODEL_HELP in result.stderr


def test_cli_runs_and_prints_json(llm_env):
    args = ["llm", "--agents", "4", "--facts", "6", "--rounds", "3", "--models", "m1,m2", "--shares",
            "0.5,0.5", "--seed", "4", "--json"]
    result = CliRunner().invoke(beliefs_app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {"f1", "precision", "recall", "rounds_used", "converged", "counts", "agent_models", "run_id"} <= set(out)
    assert Counter(out["agent_models"]) == {"m1": 2, "m2": 2}
    assert f"run id: {out['run_id']}" in result.stderr and "round 1: F1" in result.stderr
    assert get_store().get_run(out["run_id"]).status == "completed"


def test_cli_bad_shares_exit_2(llm_env):
    result = CliRunner().invoke(beliefs_app, ["llm", "--models", "a,b", "--shares", "1"])
    assert result.exit_code == 2 and "shares" in result.stderr


def test_cli_large_run_needs_yes(llm_env):
    """agents x rounds above CONFIRM_CALLS: refused without --yes (no model call is made)."""
    from ifworld.limits import CONFIRM_CALLS

    big = ["llm", "--agents", "50", "--rounds", str(CONFIRM_CALLS // 50 + 1), "--json"]
    result = CliRunner().invoke(beliefs_app, big)
    assert result.exit_code == 2 and "--yes" in result.stderr and "CONFIRM_CALLS" in result.stderr
    assert llm_env.count("beliefs.agent") == 0
    small = ["llm", "--agents", "4", "--facts", "5", "--rounds", "2", "--yes", "--json"]
    assert CliRunner().invoke(beliefs_app, small).exit_code == 0


def test_cli_options_come_from_the_config_model():
    result = CliRunner().invoke(beliefs_app, ["llm", "--agents", "1"])
    assert result.exit_code == 2 and "agents: input should be greater than or equal to 2, got 1" in result.stderr
    help_text = CliRunner().invoke(beliefs_app, ["llm", "--help"]).output
    assert "--liars" in help_text and "--true" in help_text and "--topology" in help_text and "--rule" not in help_text
