"""LLM belief agents as in the paper: the prompt carries each element of Appendix A (in our own words), the
sharing strategy changes what an agent is asked to pass on (and what it passes on), and the vote is parsed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from ifworld import runs
from ifworld.beliefs import llm_agents as la
from ifworld.beliefs.cli import app as beliefs_app
from ifworld.beliefs.config import LLM_DEFAULTS, LLM_FIELDS, BeliefConfig
from ifworld.beliefs.domain import build_domain

SMALL = BeliefConfig(agents=4, facts=6, true_facts=2, false_facts=1, rounds=4, domain="family")


def task(strategy: str = "strategic") -> dict:
    cfg = SMALL.replace(strategy=strategy).to_dict()
    return {"agent": 2, "round": 3, "config": cfg, "beliefs": {"0": 0.8, "3": 0.6}, "known": [0, 3],
            "inbox": [{"fact": 4, "from": 1, "confidence": 0.9}],
            "history": ["Round 2: you met agent 1; you passed on f0; you heard f4."]}


def prompt(strategy: str = "strategic") -> tuple[str, str]:
    (_, system), (_, user) = la.agent_messages(task(strategy), build_domain(SMALL))
    return system, user


def test_prompt_carries_each_appendix_a_element():
    system, user = prompt()
    domain = build_domain(SMALL)
    # inputs: the round, the current beliefs with confidences, what was received, the recent history
    assert "this is round 3." in user
    assert f"[f0] {domain.labels[0]} — confidence 0.80" in user
    assert f"[f4] {domain.labels[4]} — from agent 1, who is 0.90 sure" in user
    assert "Your last interactions:" in user and "you heard f4" in user
    assert f"last {la.HISTORY_LEN} interactions" in system
    # the three tasks: revise every confidence, choose what to pass on, vote CONTINUE or STOP
    assert "1. Revise your confidence in every statement" in system
    assert f"2. Choose up to {SMALL.bandwidth} statement ids to pass on" in system
    assert "3. Vote STOP or CONTINUE" in system
    # the advice: a sure partner raises trust, a doubtful one lowers it; patterns in the history; when to stop
    assert "a reason to trust it more" in system and "a reason to trust it less" in system
    assert "keep being confirmed or contradicted" in system
    assert "Vote STOP when you think the group already agrees" in system and "vote CONTINUE while" in system
    # the reply: one JSON object with the three fields
    for field in ("updated_beliefs", "facts_to_share", "vote"):
        assert f'"{field}"' in system
    assert set(la.AgentReply.model_fields) == {"updated_beliefs", "facts_to_share", "vote"}


def test_prompt_is_in_our_own_words():
    system, user = prompt()
    for phrase in ("knowledge reconstruction experiment", "most helpful for the society", "Current Belief State",
                   "Recent Interaction History", "common misconceptions", "IMPORTANT: You must respond"):
        assert phrase.lower() not in (system + user).lower()


def test_strategy_changes_what_the_agent_is_asked_to_share():
    strategic, _ = prompt("strategic")
    highest, _ = prompt("highest_confidence")
    assert strategic != highest
    assert "the ones you expect to help the group most" in strategic and "most confident" not in strategic
    assert "statements you are most confident are true" in highest and "help the group most" not in highest


def test_highest_confidence_passes_on_the_most_confident_statements():
    reply = la.AgentReply(updated_beliefs={"f0": 0.7, "f3": 0.95, "f4": 0.9, "f5": 0.2},
                          facts_to_share=["f0"], vote="CONTINUE")
    domain = build_domain(SMALL)
    strategic = la.apply_reply(task("strategic"), reply, domain, "m")
    assert strategic["share"] == [0]  # strategic: the model's own choice
    highest = la.apply_reply(task("highest_confidence"), reply, domain, "m")
    assert highest["share"] == [3, 4, 0]  # its three highest confidences, whatever it listed
    assert la.most_confident({"1": 0.6, "0": 0.6, "2": 0.4}, 5) == [0, 1]  # ties by id; 0.4 is not believed


def test_vote_is_parsed_continue_or_stop():
    for vote in ("CONTINUE", "STOP"):
        assert la.AgentReply.model_validate_json(f'{{"vote": "{vote}"}}').vote == vote
    with pytest.raises(ValidationError):
        la.AgentReply.model_validate_json('{"vote": "MAYBE"}')


def test_strategy_reaches_the_model_and_stop_votes_end_the_run(fake_server, settings, store):
    fake_server.add_rule(r"belief-exchange game", {"updated_beliefs": {}, "facts_to_share": [], "vote": "STOP"})
    config = SMALL.replace(strategy="highest_confidence")
    rec = runs.execute("beliefs.llm", la.make_params(config, seed=1), store=store, settings=settings)
    assert rec["final"]["rounds_used"] == 1 and rec["final"]["converged"]  # every agent voted STOP in round 1
    systems = [r.system for r in fake_server.requests if r.path.endswith("/chat/completions")]
    assert systems and all("most confident are true" in s for s in systems)


def test_strategy_is_an_llm_option():
    assert "strategy" in LLM_FIELDS and LLM_DEFAULTS["strategy"] == "strategic"
    help_text = CliRunner().invoke(beliefs_app, ["llm", "--help"]).output
    assert "--strategy" in help_text


def test_the_sent_prompt_gives_what_appendix_a_gives_and_nothing_more(fake_server, settings, store):
    """Issue #30 item 10: no rule about opposite statements, no population size or round cap, no hint that some
    statements are false — unless the negation_hint option (ours) is on."""
    def sent(**kw) -> list[str]:
        fake_server.reset()
        runs.execute("beliefs.llm", la.make_params(SMALL, seed=1, **kw), store=store, settings=settings)
        return [r.system for r in fake_server.requests if r.path.endswith("/chat/completions")]

    plain = sent()
    assert plain and all(la.NEGATION_HINT.strip() not in p for p in plain)
    for p in plain:
        low = p.lower()
        assert "opposite" not in low and "at most one of the two" not in low and "false" not in low
        assert f"of at most {SMALL.rounds}" not in low and f"one of {SMALL.agents}" not in low
    hinted = sent(negation_hint=True)
    assert hinted and all(la.NEGATION_HINT.strip() in p for p in hinted)

