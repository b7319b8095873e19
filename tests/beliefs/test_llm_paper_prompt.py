"""LLM belief agents as in the paper: the prompt carries each element of Appendix A (in our own words), the
sharing strategy changes what an agent is asked to pass on (and what it passes on), and the vote is parsed."""

from __future__ import annotations

import re

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
    fake_server.add_rule("beliefs.agent", {"updated_beliefs": {}, "facts_to_share": [], "vote": "STOP"})
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



# -- what an agent holding a statement and its negation is shown (issue 39, item 6) -------------------------
BOTH_SEED = 0  # SMALL at seed 0: agents 0 and 2 each hold a statement and its negation from the start
BELIEF_LINE = re.compile(r"^- \[f(\d+)\] .+ — confidence (\d\.\d\d)$")


def round_one_prompts(fake_server, settings, store, **kw) -> dict[int, tuple[str, str]]:
    """(system, user) as the fake server received them in round 1, by agent; every agent votes STOP at once."""
    fake_server.reset()
    fake_server.add_rule("beliefs.agent", {"updated_beliefs": {}, "facts_to_share": [], "vote": "STOP"})
    runs.execute("beliefs.llm", la.make_params(SMALL, seed=BOTH_SEED, **kw), store=store, settings=settings)
    out = {}
    for r in fake_server.requests:
        if r.path.endswith("/chat/completions"):
            text = {m["role"]: m["content"] for m in r.body["messages"]}
            agent = int(re.search(r"You are agent (\d+), and this is round 1\.", text["user"]).group(1))
            out[agent] = (text["system"], text["user"])
    return out


def held_confidences(user: str) -> dict[int, str]:
    """{fact: confidence as printed} from the user message's "Statements you hold" section."""
    held = user.partition("Statements you hold, with your current confidence:")[2].partition(
        "Statements you were told this round:")[0]
    return {int(m.group(1)): m.group(2) for m in map(BELIEF_LINE.match, held.strip().splitlines()) if m}


def test_a_statement_and_its_negation_start_at_the_papers_confidence(fake_server, settings, store):
    """§3.2: B_i(f, 0) = 1 for every held fact; no 0.50 pairing (which tells the model the two exclude each other)."""
    known = la.initial_population(SMALL, build_domain(SMALL), BOTH_SEED)["known"]
    pairs = {a: [f for f in k if f % 2 == 0 and f + 1 in k] for a, k in enumerate(known)}
    assert sum(map(bool, pairs.values())) >= 1  # the case under test occurs
    sent = round_one_prompts(fake_server, settings, store)
    assert sorted(sent) == list(range(SMALL.agents))
    for agent, (_, user) in sent.items():
        shown = held_confidences(user)
        assert sorted(shown) == known[agent]  # every held statement is shown …
        assert set(shown.values()) == {"1.00"}  # … at §3.2's 1, a pair's two members alike
        assert "0.50" not in user
    for agent, facts in pairs.items():
        for f in facts:
            assert held_confidences(sent[agent][1])[f] == held_confidences(sent[agent][1])[f + 1] == "1.00"


def test_pairing_and_another_start_are_named_options(fake_server, settings, store):
    """The old start (0.8, a statement held with its negation at 0.50) is two named options of ours."""
    known = la.initial_population(SMALL, build_domain(SMALL), BOTH_SEED)["known"]
    sent = round_one_prompts(fake_server, settings, store, initial_confidence=0.8, pair_negations=True)
    for agent, (_, user) in sent.items():
        held = set(known[agent])
        assert held_confidences(user) == {f: "0.50" if f ^ 1 in held else "0.80" for f in held}
    assert any("0.50" in user for _, user in sent.values())
    only_start = round_one_prompts(fake_server, settings, store, initial_confidence=0.6)
    assert all(set(held_confidences(u).values()) == {"0.60"} for _, u in only_start.values())
    with pytest.raises(ValueError, match="initial_confidence"):
        la.make_params(SMALL, initial_confidence=0)


USER_LINES = (  # every line of the user message is one of these: Appendix A's inputs, and the instruction
    re.compile(r"You are agent \d+, and this is round \d+\."),
    re.compile(r"Statements you hold, with your current confidence:"),
    BELIEF_LINE,
    re.compile(r"Statements you were told this round:"),
    re.compile(r"- \[f\d+\] .+ — from agent \d+, who is \d\.\d\d sure"),
    re.compile(r"Your last interactions:"),
    re.compile(r"- Round \d+: you (met agent \d+; you passed on .+; you heard .+|sat out \(no partner\))\."),
    re.compile(r"\((none yet|nothing this round)\)"),
    re.compile(r"Give your updated confidence for every statement you want to keep \(held or just told\), the ids you "
               r"will pass on next round \(at most \d+\), and your vote\."),
)


def test_the_default_prompt_holds_appendix_a_inputs_only(fake_server, settings, store):
    """System and user message as sent, over a whole run: the user message is the round, the held statements with
    confidences, what was told, the last interactions and the instruction, line by line; neither message gives the
    number of agents, the round cap, that some statements are false or any rule about opposite statements."""
    default = SMALL.replace(strategy=LLM_DEFAULTS["strategy"])  # the form's and the command's: Appendix A's
    rec = runs.execute("beliefs.llm", la.make_params(default, seed=BOTH_SEED), store=store, settings=settings)
    assert rec["final"]["rounds_used"] >= 2  # later rounds too: told statements and a history
    sent = [{m["role"]: m["content"] for m in r.body["messages"]} for r in fake_server.requests
            if r.path.endswith("/chat/completions")]
    assert sent and all(set(s) == {"system", "user"} for s in sent)
    told = history = 0
    for s in sent:
        for line in filter(None, (x.strip() for x in s["user"].splitlines())):
            assert any(p.fullmatch(line) for p in USER_LINES), line
        told += "who is" in s["user"]
        history += "you met agent" in s["user"]
        both = (s["system"] + "\n" + s["user"]).lower()
        for word in ("false", "opposite", "at most one of the two", "exclusive", "negation", "cannot both",
                     f"{SMALL.agents} agents", f"{SMALL.agents} participants", f"{SMALL.rounds} rounds",
                     f"of {SMALL.rounds}", "last round", "final round"):
            assert word not in both, word
    assert told and history


def test_start_options_on_the_command_line(llm_env):
    """`ifworld beliefs llm --initial-confidence X --pair-negations` reach the prompts sent; help names both."""
    help_text = CliRunner().invoke(beliefs_app, ["llm", "--help"]).output
    assert "--initial-confidence" in help_text and "--pair-negations" in help_text
    base = ["llm", "--agents", "4", "--facts", "6", "--true", "2", "--false", "1", "--rounds", "1",
            "--domain", "family", "--seed", str(BOTH_SEED), "--json"]
    known = la.initial_population(SMALL, build_domain(SMALL), BOTH_SEED)["known"]
    for extra, expect in (([], lambda f, held: "1.00"),
                          (["--initial-confidence", "0.8", "--pair-negations"],
                           lambda f, held: "0.50" if f ^ 1 in held else "0.80")):
        llm_env.reset()
        result = CliRunner().invoke(beliefs_app, base + extra)
        assert result.exit_code == 0, result.output
        users = [{m["role"]: m["content"] for m in r.body["messages"]}["user"] for r in llm_env.requests
                 if r.path.endswith("/chat/completions")]
        assert len(users) == 4
        for user in users:
            agent = int(re.search(r"You are agent (\d+),", user).group(1))
            held = set(known[agent])
            assert held_confidences(user) == {f: expect(f, held) for f in held}
    bad = CliRunner().invoke(beliefs_app, base + ["--initial-confidence", "0"])
    assert bad.exit_code == 2 and "initial_confidence" in bad.stderr


def test_nothing_downstream_relied_on_the_pairing():
    """The engine reads a pair as b_f / (b_f + b_¬f): held at 1 and 1 it is undecided, 0.5 / 0.5, exactly as the
    old 0.5 / 0.5 start was — in the metrics' acceptance, the heatmap and the inspector alike."""
    from types import SimpleNamespace

    from ifworld.beliefs.animation import shown_beliefs
    from ifworld.beliefs.metrics import accept, mean_confidence

    new = la.belief_matrix([{"0": 1.0, "1": 1.0, "2": 1.0}], 4)
    old = la.belief_matrix([{"0": 0.5, "1": 0.5, "2": 0.8}], 4)
    assert mean_confidence(new[None])[0, :2].tolist() == mean_confidence(old[None])[0, :2].tolist() == [0.5, 0.5]
    assert mean_confidence(new[None])[0, 2:].tolist() == [1.0, 0.0]  # a statement held alone: sure of it
    assert accept(new[None], 0.4)[0].tolist() == accept(old[None], 0.4)[0, :2].tolist() + [True, False]
    llm_run = SimpleNamespace(rule=la.RULE_LABEL)  # the heatmap's and the inspector's values
    assert shown_beliefs(llm_run, new)[0, :2].tolist() == shown_beliefs(llm_run, old)[0, :2].tolist() == [0.5, 0.5]
