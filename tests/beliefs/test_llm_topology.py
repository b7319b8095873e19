"""LLM populations honour the interaction topology: partners are graph neighbours, complete pairs as before,
a resumed run pairs identically; the CLI offers the topology options and says that rules do not apply."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from ifworld import runs
from ifworld.beliefs import llm_agents as la
from ifworld.beliefs.cli import app as beliefs_app
from ifworld.beliefs.config import LLM_NO_RULE, BeliefConfig
from ifworld.beliefs.graph import recording_of
from ifworld.runs.store import get_store
from tests.beliefs.test_llm_agents import SMALL, run

RING = BeliefConfig(agents=8, facts=6, true_facts=2, false_facts=1, rounds=4, topology="ring", degree=2)


def todays_pairing(agents: int, seed: int, round_: int) -> list[int]:
    """The pairing LLM populations used before topologies (a seeded perfect matching), written out again."""
    perm = np.random.default_rng(np.random.SeedSequence([seed, round_, 2])).permutation(agents)
    partners = [-1] * agents
    for a, b in zip(perm[0:agents - 1:2], perm[1:agents:2], strict=True):
        partners[a], partners[b] = int(b), int(a)
    return partners


def ring_distance(a: int, b: int, n: int) -> int:
    return min((a - b) % n, (b - a) % n)


def check_matching(partners: list[int], neighbours) -> None:
    """Partners are mutual neighbours, and the matching is maximal: no two neighbours both sit out."""
    for a, p in enumerate(partners):
        if p >= 0:
            assert partners[p] == a and neighbours(a, p), (a, p, partners)
    idle = [a for a, p in enumerate(partners) if p < 0]
    assert not any(neighbours(a, b) for a in idle for b in idle if a < b), partners


def test_complete_pairs_exactly_as_before():
    for agents in (2, 4, 5, 8, 9, 31):
        for seed in (0, 1, 7, 123456):
            for t in range(1, 21):
                assert la.pair_agents(agents, seed, t) == todays_pairing(agents, seed, t)
                assert la.graph_edges(BeliefConfig(agents=agents)) is None


@pytest.mark.parametrize("degree", [2, 4, 6])
def test_ring_partners_are_neighbours_and_the_matching_is_maximal(degree):
    n = 13
    edges = la.graph_edges(BeliefConfig(agents=n, topology="ring", degree=degree))
    seen = set()
    for seed in range(5):
        for t in range(1, 41):
            partners = la.pair_agents(n, seed, t, edges)
            check_matching(partners, lambda a, b: 1 <= ring_distance(a, b, n) <= degree // 2)
            assert partners == la.pair_agents(n, seed, t, edges)  # seeded by (seed, round) only
            seen.add(tuple(partners))
    assert len(seen) > 30  # a fresh random matching every round (the 13-cycle has 39 maximal matchings)


@pytest.mark.parametrize("topology", ["small_world", "scale_free"])
def test_other_graphs_pair_along_their_edges(topology):
    config = BeliefConfig(agents=30, topology=topology, degree=4, rewire=0.3, graph_seed=5)
    edges = la.graph_edges(config)
    linked = {(int(a), int(b)) for a, b in edges} | {(int(b), int(a)) for a, b in edges}
    for t in range(1, 31):
        check_matching(la.pair_agents(30, 2, t, edges), lambda a, b: (a, b) in linked)


def test_ring_run_meets_only_neighbours(fake_server, settings, store):
    rec = run(settings, store, RING, seed=4)
    assert rec["config"]["topology"] == "ring" and rec["final"]["rounds_used"] >= 2
    recording, _ = recording_of(rec)
    for t in range(rec["final"]["rounds_used"]):
        partners = [int(p) for p in recording.partners[t, 0]]
        check_matching(partners, lambda a, b: ring_distance(a, b, 8) == 1)
        assert partners == rec["snapshots"]["partners"][t]
    told = 0  # what each agent was told, as its prompt shows it, came from a ring neighbour
    for request in fake_server.requests:
        agent = re.search(r"You are agent (\d+),", request.prompt or "")
        for sender in re.findall(r"from agent (\d+), who is", request.prompt or ""):
            assert ring_distance(int(agent.group(1)), int(sender), 8) == 1
            told += 1
    assert told > 0


def test_complete_run_keeps_todays_partners(fake_server, settings, store):
    rec = run(settings, store, SMALL, seed=3)
    assert rec["snapshots"]["partners"] == [todays_pairing(4, 3, t + 1) for t in range(rec["final"]["rounds_used"])]


def test_resumed_ring_run_pairs_identically(fake_server, settings, store):
    fake_server.inject("500", times=1, match=r"You are agent 3,.*round 2\.")
    run_id = runs.start_run("beliefs.llm", la.make_params(RING, seed=6), store=store)
    with pytest.raises(runs.RunFailed):
        runs.drive(run_id, store=store, settings=settings)
    resumed = runs.drive(run_id, store=store, settings=settings)
    fresh = run(settings, store, RING, seed=6)
    assert resumed["snapshots"]["partners"] == fresh["snapshots"]["partners"]
    assert resumed["snapshots"] == fresh["snapshots"] and resumed["final"] == fresh["final"]


def test_cli_offers_the_topology_and_says_rules_do_not_apply(llm_env):
    help_text = " ".join(CliRunner().invoke(beliefs_app, ["llm", "--help"]).output.replace("│", " ").split())
    for flag in ("--topology", "--degree", "--rewire", "--graph-seed"):
        assert flag in help_text
    assert "--rule" not in help_text and "--trust" not in help_text and LLM_NO_RULE in help_text
    bad = CliRunner().invoke(beliefs_app, ["llm", "--agents", "6", "--topology", "ring", "--degree", "3"])
    assert bad.exit_code == 2 and "degree (3) must be even" in bad.stderr
    args = ["llm", "--agents", "6", "--facts", "5", "--rounds", "3", "--topology", "ring", "--degree", "2",
            "--seed", "2", "--json"]
    result = CliRunner().invoke(beliefs_app, args)
    assert result.exit_code == 0, result.output
    record = get_store().get_run(json.loads(result.stdout)["run_id"]).record
    assert record["config"]["topology"] == "ring" and record["config"]["degree"] == 2
    for partners in record["snapshots"]["partners"]:
        check_matching(partners, lambda a, b: ring_distance(a, b, 6) == 1)
