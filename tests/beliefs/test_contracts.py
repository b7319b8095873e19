"""The contract of the two belief extension points, run on EVERY registered entry (built-in or installed): the
minimal checks a broken entry fails. A topology has edges, exactly as many as it declares (so its degree is the
declared one), over agents 0..N-1, none left alone; a rule makes held facts believed, changes the beliefs of an
agent that hears something, says so, and runs through the engine. The toy entries of examples/extending/ pass,
and a copy of each, broken on purpose, is caught (docs/extending.md, "The contract tests")."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from ifworld.beliefs import SCRATCH_ROWS, TOPOLOGIES, UPDATE_RULES, BeliefConfig, simulate
from ifworld.beliefs.engine import stop_test
from ifworld.beliefs.rules import REQUIRED_MEMBERS, believed, get_rule
from tests.fixtures.examples import load_example

AGENTS, DEGREE = 12, 4
SMALL = {"agents": AGENTS, "degree": DEGREE, "facts": 6, "true_facts": 2, "false_facts": 1, "rounds": 4}
FACTS = 4  # two pairs: facts 0/1 and 2/3


def check_topology(name: str) -> None:
    """The registered topology ``name`` keeps its contract (AssertionError saying which part it breaks)."""
    spec = TOPOLOGIES.get(name)
    if spec.graph is None:  # the complete graph: the engine's own perfect matching, no edge list
        assert spec.edges(AGENTS, DEGREE) == 0, f"{name}: no graph builder, yet {spec.edges(AGENTS, DEGREE)} edges"
    else:
        graph = spec.graph(AGENTS, DEGREE, 0.2, 0)
        edges = [tuple(sorted(map(int, e))) for e in graph.edges()]
        assert edges, f"{name}: the graph has no edges (nobody would ever meet)"
        assert len(edges) == spec.edges(AGENTS, DEGREE), (
            f"{name}: {len(edges)} edges built, {spec.edges(AGENTS, DEGREE)} declared by edges(agents, degree)")
        assert set(graph.nodes()) == set(range(AGENTS)), f"{name}: nodes are not the agents 0..{AGENTS - 1}"
        assert all(u != v for u, v in edges), f"{name}: an agent meets itself"
        assert min(d for _, d in graph.degree()) >= 1, f"{name}: an agent nobody may meet"
    result = simulate(BeliefConfig(topology=name, **SMALL), seed=0, runs=3)
    assert (result.rounds >= 1).all() and np.isfinite(result.f1).all(), f"{name}: the engine cannot run it"


def check_rule(name: str) -> None:
    """The registered rule ``name`` keeps its contract (AssertionError saying which part it breaks)."""
    rule = get_rule(name, BeliefConfig(rule=name))
    missing = [m for m in REQUIRED_MEMBERS if not hasattr(rule, m)]
    assert not missing, f"{name}: lacks {missing}"
    dtype = rule.dtype(SMALL["rounds"], 2)
    assert np.issubdtype(dtype, np.signedinteger), f"{name}: dtype() is not a signed integer type"
    held = np.zeros((FACTS + SCRATCH_ROWS, 2), dtype=bool)
    held[0, 0] = held[2, 1] = True  # column 0 holds fact 0, column 1 holds fact 2
    beliefs = np.ascontiguousarray(rule.initial(held, axis=0, dtype=dtype))
    beliefs[FACTS:] = 0
    assert beliefs.shape == held.shape, f"{name}: initial() changed the shape"
    known = believed(rule, beliefs[:FACTS])
    assert known[0, 0] and known[2, 1], f"{name}: a fact an agent starts with is not believed"
    assert not known[2, 0] and not known[0, 1], f"{name}: a fact an agent never heard of is believed"
    before = beliefs.copy()
    got = np.array([[2, FACTS]], dtype=np.int32)  # column 0 hears fact 2; column 1 hears nothing
    reported = np.full(got.shape, 0.9, dtype=np.float32) if rule.uses_confidence else None
    changed = np.asarray(rule.apply(beliefs, got, np.arange(2, dtype=np.int64), reported))
    assert changed.shape == (2,) and changed.dtype == bool, f"{name}: apply() must return one bool per column"
    assert (beliefs[:FACTS, 0] != before[:FACTS, 0]).any(), f"{name}: a report did not change the hearer's beliefs"
    assert changed[0], f"{name}: apply() changed the beliefs but did not say so (the agent would vote STOP)"
    assert stop_test(rule)(beliefs[:FACTS]).shape == (2,), f"{name}: the stop vote's sureness test"
    result = simulate(BeliefConfig(rule=name, **SMALL), seed=0, runs=3)
    assert (result.rounds >= 1).all() and np.isfinite(result.f1).all(), f"{name}: the engine cannot run it"


@pytest.mark.parametrize("name", TOPOLOGIES.names())
def test_every_registered_topology_keeps_the_contract(name: str) -> None:
    check_topology(name)


@pytest.mark.parametrize("name", UPDATE_RULES.names())
def test_every_registered_rule_keeps_the_contract(name: str) -> None:
    check_rule(name)


def _star_of_nobody(agents: int, degree: int, rewire: float, seed: int) -> nx.Graph:
    return nx.empty_graph(agents)


def _one_edge_short(agents: int, degree: int, rewire: float, seed: int) -> nx.Graph:
    graph = nx.star_graph(agents - 1)
    graph.remove_edge(0, agents - 1)
    return graph


@pytest.mark.parametrize(("broken", "caught"), [(_star_of_nobody, "no edges"), (_one_edge_short, "declared")])
def test_the_toy_topology_passes_and_broken_copies_are_caught(broken, caught) -> None:
    toy = load_example("toy_topology")
    with TOPOLOGIES.temporarily(toy.SPEC):
        check_topology(toy.SPEC.name)
    with TOPOLOGIES.temporarily(toy.SPEC.model_copy(update={"graph": broken})):
        with pytest.raises(AssertionError, match=caught):
            check_topology(toy.SPEC.name)


def _deaf(self, beliefs, got, cols, reported):  # hears everything, changes nothing
    return np.zeros(len(cols), dtype=bool)


def _silent(self, beliefs, got, cols, reported):  # changes the beliefs, says nothing changed
    beliefs.reshape(-1)[got[0].astype(np.intp) * beliefs.shape[1] + cols] += 1
    return np.zeros(len(cols), dtype=bool)


def _forgetful(self, held, axis=-1, dtype=np.int16):  # starts with nothing believed
    return np.zeros(held.shape, dtype=dtype)


@pytest.mark.parametrize(("hook", "broken", "caught"), [("apply", _deaf, "did not change"),
                                                        ("apply", _silent, "did not say so"),
                                                        ("initial", _forgetful, "starts with is not believed")])
def test_the_toy_rule_passes_and_broken_copies_are_caught(monkeypatch, hook, broken, caught) -> None:
    toy = load_example("toy_rule")
    with UPDATE_RULES.temporarily(toy.SPEC):
        check_rule(toy.SPEC.name)
        monkeypatch.setattr(type(toy.SPEC.rule), hook, broken)
        with pytest.raises(AssertionError, match=caught):
            check_rule(toy.SPEC.name)


def test_the_default_stop_vote_reads_the_rules_confidence_hook() -> None:
    """A rule with a ``confidence`` hook and no ``all_sure`` is sure by its own confidence, not by raw counts."""
    from ifworld.beliefs.engine import all_sure
    from ifworld.beliefs.rules import AdditiveRule

    class Decided(AdditiveRule):  # sure of every statement, whatever it heard
        def confidence(self, beliefs: np.ndarray, dtype=np.float64) -> np.ndarray:
            out = np.zeros(beliefs.shape, dtype=dtype)
            out[..., 0::2] = 1.0
            return out

    block = np.zeros((FACTS, 3), dtype=np.int16)  # nobody heard of anything: by counts, nobody is sure
    assert not all_sure(block).any() and not stop_test(AdditiveRule())(block).any()
    assert stop_test(Decided())(block).all()


def test_a_constrained_rule_keeps_the_wrapped_rules_stop_vote() -> None:
    """Domain constraints change what an agent accepts (0/1 confidence), not when it is sure enough to stop."""
    from ifworld.beliefs.constraints import constrained
    from ifworld.beliefs.domain import build_domain
    from ifworld.beliefs.engine import all_sure
    from ifworld.beliefs.rules import AdditiveRule

    rule = constrained(AdditiveRule(), build_domain(BeliefConfig(facts=3, true_facts=1, false_facts=1)))
    block = np.random.default_rng(0).integers(0, 6, size=(6, 500)).astype(np.int16)
    assert np.array_equal(stop_test(rule)(block), all_sure(block)) and all_sure(block).any()
