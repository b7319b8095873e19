"""A topology in one file: a "star" — one hub every agent may meet, and nobody else (a classroom with a
single teacher). Any networkx graph over agents 0..N-1 works the same way.

Register it (``register()``), then ``ifworld beliefs run --topology star`` and the Beliefs page offer it.
"""

from __future__ import annotations

import networkx as nx

from ifworld.beliefs import TOPOLOGIES, TopologySpec


def star(agents: int, degree: int, rewire: float, seed: int) -> nx.Graph:
    """Agent 0 is the hub; ``degree``, ``rewire`` and ``seed`` do not apply to a star."""
    return nx.star_graph(agents - 1)


SPEC = TopologySpec(name="star", label="Star (one hub)", help="Everyone may meet agent 0 only: one pair per round.",
                    graph=star, edges=lambda agents, degree: agents - 1)


def register() -> TopologySpec:
    """Add the topology to the registry (an outside package would do this when imported)."""
    return TOPOLOGIES.register(SPEC)
