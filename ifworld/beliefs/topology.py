"""Interaction topology: who may meet whom. ``complete`` is the paper's mean-field setting.

A non-complete topology is one graph per condition (drawn with networkx from ``graph_seed``, like the
fact universe), shared by all runs. Every round each run draws a *random maximal matching* of the
graph: the edges are visited in a fresh random order and an edge is taken when both its ends are
still free (random greedy matching), one vectorised step over all runs per edge. An agent is left
without partner only when all its neighbours are taken. Up to 64 agents a run's busy agents are the
bits of one machine word, so a step is four contiguous integer passes over the runs (measured: the
whole matching at 5,000 runs of a 20-agent ring 6.0 -> 2.9 ms, of which the ``argsort`` is 1.1 ms).

``complete`` keeps the engine's own pairing (a uniformly random perfect matching), so results for
the complete graph are identical to those without this module.

Topologies are the ``beliefs.topologies`` extension point: a :class:`TopologySpec` in :data:`REGISTRY` names
a graph builder (networkx, from agents, degree, rewiring probability and seed) and its exact edge count (so
an oversized graph is refused before it is built). Config validation, the CLI, the page and the docs table
read the registry; see docs/extending.md ("Belief topologies").
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
from pydantic import Field

from ifworld.errors import BeliefConfigError
from ifworld.registry import Registry, Spec

MAX_EDGES = 1 << 20  # one vectorised step per edge and round: larger graphs would crawl
MASK_AGENTS = 64  # up to this many agents a run's busy agents fit one uint64 word


class TopologySpec(Spec):
    """Who may meet whom, as the product lists it.

    ``graph(agents, degree, rewire, seed)`` draws the condition's networkx graph (None: the complete graph,
    paired by the engine's own perfect matching); ``edges(agents, degree)`` is its exact edge count, checked
    against :data:`MAX_EDGES` before anything is drawn; ``options`` are the BeliefConfig fields the graph
    reads; ``even_degree`` asks for an even ``degree`` (k/2 neighbours on each side of a ring).
    """

    graph: Callable[[int, int, float, int], Any] | None = Field(default=None, description="networkx builder")
    edges: Callable[[int, int], int] = Field(default=lambda agents, degree: 0, description="exact edge count")
    options: tuple[str, ...] = Field(default=(), description="BeliefConfig fields the graph reads")
    even_degree: bool = False


REGISTRY: Registry[TopologySpec] = Registry("beliefs.topologies", TopologySpec, noun="topology")
"""Interaction topologies in the order pages and docs list them (the paper's complete graph first)."""
TOPOLOGIES = REGISTRY  # the front door's name for it (``from ifworld.beliefs import TOPOLOGIES``)

DOC_COLUMNS = {"Name": lambda s: f"`{s.name}`", "Label": lambda s: s.label, "Who meets whom": lambda s: s.help,
               "Parameters": lambda s: ", ".join(f"`{o}`" for o in s.options) or "—"}

for _spec in (
    TopologySpec(name="complete", label="Anyone (complete graph)", help="Anyone may meet anyone (the paper)."),
    TopologySpec(name="ring", label="Ring", help="k nearest neighbours on a circle.", options=("degree",),
                 even_degree=True, edges=lambda agents, degree: agents * degree // 2,
                 graph=lambda agents, degree, rewire, seed: nx.watts_strogatz_graph(agents, degree, 0.0, seed=seed)),
    TopologySpec(name="small_world", label="Small world", help="Watts–Strogatz ring with rewired edges.",
                 options=("degree", "rewire"), even_degree=True, edges=lambda agents, degree: agents * degree // 2,
                 graph=lambda agents, degree, rewire, seed: nx.connected_watts_strogatz_graph(
                     agents, degree, rewire, tries=100, seed=seed)),
    TopologySpec(name="scale_free", label="Scale-free", help="Barabási–Albert: each newcomer links to degree/2 "
                 "agents.", options=("degree",),
                 edges=lambda agents, degree: max(1, degree // 2) * (agents - max(1, degree // 2)),
                 graph=lambda agents, degree, rewire, seed: nx.barabasi_albert_graph(agents, max(1, degree // 2),
                                                                                     seed=seed)),
):
    REGISTRY.register(_spec)


def topology_names() -> tuple[str, ...]:
    """Registered topology names, in registry order."""
    return REGISTRY.names()


def _spec_of(topology: str) -> TopologySpec:
    try:
        return REGISTRY.get(topology)
    except KeyError:  # UnknownEntry lists the registered topologies
        raise BeliefConfigError(f"topology must be one of {', '.join(topology_names())}; got {topology!r}") from None


def edge_count(topology: str, agents: int, degree: int) -> int:
    """Edges of the graph, exactly, without building it (the spec's ``edges``): N·k/2 for ring and small world
    (rewiring moves edges, it keeps their number), m·(N − m) with m = k/2 for networkx's Barabási–Albert graph;
    0 for ``complete``."""
    return int(_spec_of(topology).edges(agents, degree))


def check_edges(topology: str, agents: int, degree: int) -> None:
    """Refuse a graph of MAX_EDGES or more *before* networkx builds it (a 50 M-edge ring reached 7.8 GB, and a
    9.75 M-edge scale-free graph took 38 s and 2.7 GB, before the old check on the built graph refused them)."""
    edges = edge_count(topology, agents, degree)
    if edges >= MAX_EDGES:
        raise BeliefConfigError(f"the {topology} graph would have {edges:,} edges (agents {agents:,}, degree "
                                f"{degree:,}), more than MAX_EDGES={MAX_EDGES:,}; use fewer agents or a smaller "
                                "degree")


def build_edges(topology: str, agents: int, degree: int, rewire: float, seed: int) -> np.ndarray | None:
    """(E, 2) int64 edge list of the condition's graph; None for the complete graph (no builder)."""
    if _spec_of(topology).graph is None:
        return None
    check_edges(topology, agents, degree)
    return _cached_edges(topology, agents, degree, float(rewire), seed)


@functools.lru_cache(maxsize=32)
def _cached_edges(topology: str, agents: int, degree: int, rewire: float, seed: int) -> np.ndarray:
    build = _spec_of(topology).graph
    assert build is not None  # build_edges returned None for the complete graph
    graph = build(agents, degree, rewire, seed)
    edges = np.array(sorted(graph.edges()), dtype=np.int64).reshape(-1, 2)
    edges.setflags(write=False)
    return edges


def match_columns(edges: np.ndarray, rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs x agents,) partner column per column, ``runs x agents`` for an agent left unmatched.

    Random greedy matching: per run the edges are visited in a random order (``argsort`` of random
    keys) and an edge is taken when both its ends are still free. With at most :data:`MASK_AGENTS`
    agents each run's taken agents are one machine word, so a step over all runs is four contiguous
    integer passes; larger graphs take the (same) decisions with index gathers."""
    n_edges, cols = len(edges), runs * agents
    partners = np.full(cols, cols, dtype=np.int64)
    if n_edges == 0:
        return partners
    order = np.argsort(rng.random((runs, n_edges), dtype=np.float32), axis=1)
    order = np.ascontiguousarray(order.T)  # (E, runs): step i reads a contiguous row
    if agents <= MASK_AGENTS:
        taken = _greedy_masks(edges, order, agents)
    else:
        taken = _greedy_gathers(edges, order, agents)
    spot = np.flatnonzero(taken)  # i * runs + r: run r took the i-th edge of its order
    edge = order.reshape(-1)[spot]
    base = spot % runs
    base *= agents
    u, v = edges[:, 0][edge] + base, edges[:, 1][edge] + base
    partners[u] = v
    partners[v] = u
    return partners


def _greedy_masks(edges: np.ndarray, order: np.ndarray, agents: int) -> np.ndarray:
    """(E, runs) bool: step i of run r's greedy visit (edge ``order[i, r]``) takes its edge; a run's
    busy agents are the bits of one word."""
    word = np.uint32 if agents <= 32 else np.uint64
    one = word(1)
    ends = np.left_shift(one, edges[:, 0].astype(word)) | np.left_shift(one, edges[:, 1].astype(word))
    masks = ends[order]
    busy = np.zeros(order.shape[1], dtype=word)
    clash = np.empty_like(busy)
    taken = np.empty(masks.shape, dtype=bool)
    for mask, take in zip(masks, taken, strict=True):
        np.bitwise_and(busy, mask, out=clash)
        np.equal(clash, 0, out=take)
        np.multiply(mask, take, out=clash)
        np.bitwise_or(busy, clash, out=busy)
    return taken


def _greedy_gathers(edges: np.ndarray, order: np.ndarray, agents: int) -> np.ndarray:
    """(E, runs) bool, as :func:`_greedy_masks`, with a free flag per column (any number of agents)."""
    runs = order.shape[1]
    cols = runs * agents
    small = np.int32 if cols < 2**31 else np.int64  # narrower indices: faster gathers, same result
    base = np.arange(runs, dtype=small) * agents
    ends = edges.astype(small)
    ends_u, ends_v = ends[order, 0] + base, ends[order, 1] + base
    free = np.ones(cols, dtype=bool)
    taken = np.empty(ends_u.shape, dtype=bool)
    for a, b, take in zip(ends_u, ends_v, taken, strict=True):
        np.logical_and(free[a], free[b], out=take)
        free[a[take]] = False
        free[b[take]] = False
    return taken
