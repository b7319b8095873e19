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
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np

from ifworld.errors import BeliefConfigError

TOPOLOGIES = ("complete", "ring", "small_world", "scale_free")
MAX_EDGES = 1 << 20  # one vectorised step per edge and round: larger graphs would crawl
MASK_AGENTS = 64  # up to this many agents a run's busy agents fit one uint64 word


def edge_count(topology: str, agents: int, degree: int) -> int:
    """Edges of the graph, exactly, without building it: N·k/2 for ring and small world (rewiring moves edges,
    it keeps their number), m·(N − m) with m = k/2 for networkx's Barabási–Albert graph; 0 for ``complete``."""
    if topology in ("ring", "small_world"):
        return agents * degree // 2
    if topology == "scale_free":
        m = max(1, degree // 2)
        return m * (agents - m)
    return 0


def check_edges(topology: str, agents: int, degree: int) -> None:
    """Refuse a graph of MAX_EDGES or more *before* networkx builds it (a 50 M-edge ring reached 7.8 GB, and a
    9.75 M-edge scale-free graph took 38 s and 2.7 GB, before the old check on the built graph refused them)."""
    edges = edge_count(topology, agents, degree)
    if edges >= MAX_EDGES:
        raise BeliefConfigError(f"the {topology} graph would have {edges:,} edges (agents {agents:,}, degree "
                                f"{degree:,}), more than MAX_EDGES={MAX_EDGES:,}; use fewer agents or a smaller "
                                "degree")


def build_edges(topology: str, agents: int, degree: int, rewire: float, seed: int) -> np.ndarray | None:
    """(E, 2) int64 edge list of the condition's graph; None for ``complete``."""
    if topology == "complete":
        return None
    check_edges(topology, agents, degree)
    return _cached_edges(topology, agents, degree, float(rewire), seed)


@functools.lru_cache(maxsize=32)
def _cached_edges(topology: str, agents: int, degree: int, rewire: float, seed: int) -> np.ndarray:
    if topology == "ring":
        graph = nx.watts_strogatz_graph(agents, degree, 0.0, seed=seed)  # ring lattice: k nearest neighbours
    elif topology == "small_world":
        graph = nx.connected_watts_strogatz_graph(agents, degree, rewire, tries=100, seed=seed)
    elif topology == "scale_free":
        graph = nx.barabasi_albert_graph(agents, max(1, degree // 2), seed=seed)
    else:
        raise BeliefConfigError(f"topology must be one of {', '.join(TOPOLOGIES)}; got {topology!r}")
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
