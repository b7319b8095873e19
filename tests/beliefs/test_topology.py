"""Interaction topologies: the complete graph is today's engine bit for bit; graph pairings are
matchings of the graph's edges, and maximal."""

import hashlib

import networkx as nx
import numpy as np
import pytest

from ifworld.beliefs import TOPOLOGIES
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.topology import build_edges, match_columns

# sha256 prefixes of (accepted bits, rounds, converged) of the engine without topologies; re-measured
# when tie bytes, pairing and initial draws moved to counter-based streams (same on both kernel paths)
BEFORE_TOPOLOGIES = [
    ({}, 0, "d98eb00265ed97a4"),
    ({"rule": "bounded"}, 1, "6fb4faf007c30bf5"),
    ({"strategy": "strategic", "agents": 21}, 2, "4f49b6a73e91ed26"),
    ({"rule": "bounded", "liars": 0.2, "noise": 0.1, "domain": "abstract"}, 3, "00e4f1952bea6919"),
]


@pytest.mark.parametrize(("kwargs", "seed", "digest"), BEFORE_TOPOLOGIES)
def test_complete_graph_reproduces_results_exactly(kwargs, seed, digest):
    r = simulate(BeliefConfig(topology="complete", **kwargs), seed=seed, runs=300)
    raw = np.packbits(r.accepted).tobytes() + r.rounds.astype(np.int32).tobytes() + r.converged.tobytes()
    assert hashlib.sha256(raw).hexdigest()[:16] == digest


GRAPHS = [s.name for s in TOPOLOGIES if s.graph is not None]
"""Every registered topology that draws a graph (the complete graph pairs by the engine's own matching)."""


@pytest.mark.parametrize("topology", GRAPHS)
@pytest.mark.parametrize("agents", [9, 20])
def test_graph_pairing_is_a_maximal_matching(topology, agents):
    edges = build_edges(topology, agents, 4, 0.2, 1)
    edge_set = {tuple(sorted(e)) for e in edges.tolist()}
    runs = 200
    partners = match_columns(edges, np.random.default_rng(0), runs, agents).reshape(runs, agents)
    cols = runs * agents
    for r in range(runs):
        p = [int(c) - r * agents if c < cols else -1 for c in partners[r]]
        for a, b in enumerate(p):
            if b >= 0:
                assert p[b] == a and tuple(sorted((a, b))) in edge_set
        assert not any(p[a] < 0 and p[b] < 0 for a, b in edge_set)  # maximal: no free edge left


def test_graphs_are_the_documented_ones():
    ring = build_edges("ring", 10, 4, 0.0, 0)
    assert len(ring) == 20 and nx.is_isomorphic(nx.Graph(ring.tolist()), nx.circulant_graph(10, [1, 2]))
    ba = build_edges("scale_free", 50, 4, 0.0, 0)
    assert len(ba) == 2 * (50 - 2)  # Barabási–Albert, m = degree / 2 = 2
    assert build_edges("complete", 10, 4, 0.0, 0) is None


def test_topology_bounds_named():
    with pytest.raises(ValueError, match="degree"):
        BeliefConfig(topology="ring", agents=4, degree=4)
    with pytest.raises(ValueError, match="even"):
        BeliefConfig(topology="small_world", degree=3)


def test_sparser_graph_spreads_truth_slower():
    full = simulate(BeliefConfig(), seed=4, runs=2000).f1.mean()
    ring = simulate(BeliefConfig(topology="ring", degree=2), seed=4, runs=2000).f1.mean()
    assert ring < full - 0.03


def _greedy_by_hand(edges, rng, runs, agents):
    """Per run, visit the edges in the order of the same random keys; take an edge with both ends free."""
    order = np.argsort(rng.random((runs, len(edges)), dtype=np.float32), axis=1)
    partners = np.full(runs * agents, runs * agents, dtype=np.int64)
    for r in range(runs):
        mate = {}
        for e in order[r].tolist():
            u, v = edges[e].tolist()
            if u not in mate and v not in mate:
                mate[u], mate[v] = v, u
        for a, b in mate.items():
            partners[r * agents + a] = r * agents + b
    return partners


@pytest.mark.parametrize("topology", GRAPHS)
@pytest.mark.parametrize("agents", [9, 33, 64, 90])
def test_matching_equals_sequential_greedy(topology, agents):
    """Bit-mask steps (<= 64 agents) and index gathers (more) take exactly the greedy visit's edges."""
    edges = build_edges(topology, agents, 4, 0.2, 2)
    fast = match_columns(edges, np.random.Generator(np.random.SFC64(5)), 60, agents)
    slow = _greedy_by_hand(edges, np.random.Generator(np.random.SFC64(5)), 60, agents)
    assert (fast == slow).all()
