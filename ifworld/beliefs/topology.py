"""Interaction topology: who may meet whom. ``complete`` is the paper's mean-field setting.

A non-complete topology is one graph per condition (drawn with networkx from ``graph_seed``, like the
fact universe), shared by all runs. Every round each run draws a *random maximal matching* of the
graph: the edges are visited in a fresh random order and an edge is taken when both its ends are
still free (random greedy matching), one vectorised step over all runs per edge. An agent is left
without partner only when all its neighbours are taken.

``complete`` keeps the engine's own pairing (a uniformly random perfect matching), so results for
the complete graph are identical to those without this module.
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np

TOPOLOGIES = ("complete", "ring", "small_world", "scale_free")
MAX_EDGES = 1 << 20  # one vectorised step per edge and round: larger graphs would crawl


def build_edges(topology: str, agents: int, degree: int, rewire: float, seed: int) -> np.ndarray | None:
    """(E, 2) int64 edge list of the condition's graph; None for ``complete``."""
    if topology == "complete":
        return None
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
        raise ValueError(f"topology must be one of {', '.join(TOPOLOGIES)}; got {topology!r}")
    edges = np.array(sorted(graph.edges()), dtype=np.int64).reshape(-1, 2)
    if len(edges) >= MAX_EDGES:
        raise ValueError(f"the {topology} graph has {len(edges):,} edges, more than {MAX_EDGES:,}")
    edges.setflags(write=False)
    return edges


def match_columns(edges: np.ndarray, rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs x agents,) partner column per column, ``runs x agents`` for an agent left unmatched.

    Random greedy matching: per run the edges are visited in a random order (``argsort`` of random
    keys) and an edge is taken when both its ends are still free; one vectorised step per edge."""
    n_edges, cols = len(edges), runs * agents
    partners = np.full(cols, cols, dtype=np.int64)
    if n_edges == 0:
        return partners
    order = np.argsort(rng.random((runs, n_edges), dtype=np.float32), axis=1)
    small = np.int32 if cols < 2**31 else np.int64  # narrower indices: faster gathers, same result
    base = np.arange(runs, dtype=small) * agents
    ends = edges.astype(small)
    ends_u = np.ascontiguousarray((ends[order, 0] + base[:, None]).T)  # (E, runs): step i reads a row
    ends_v = np.ascontiguousarray((ends[order, 1] + base[:, None]).T)
    free = np.ones(cols, dtype=bool)
    for a, b in zip(ends_u, ends_v, strict=True):
        take = free[a] & free[b]
        a, b = a[take], b[take]
        partners[a], partners[b] = b, a
        free[a] = False
        free[b] = False
    return partners
