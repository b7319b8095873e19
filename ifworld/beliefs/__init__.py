"""Belief exchange: agents holding a few true and a few false facts exchange them pairwise and try to
reconstruct the hidden truth (heuristic agents on arrays; LLM agents through ``ifworld.llm``).

Front door: pages, ``ui/`` and the CLI import only the names in ``__all__`` (listed with their types in
``__init__.pyi``; loaded on first use). Modules:

- ``config`` — one frozen pydantic model of a simulation's parameters (bounds, help texts).
- ``domain`` — fact universes (a consistent family tree, or abstract facts); ``topology`` — who meets whom.
- ``engine`` — the vectorised engine (runs × agents × facts arrays); ``kernel`` — the optional numba round;
  ``selection`` — which facts an agent shares; ``rules`` — update rules (registry ``UPDATE_RULES``, the
  ``beliefs.rules`` extension point); ``topology``'s registry ``TOPOLOGIES`` is ``beliefs.topologies``;
  ``constraints`` — the family domain's rules an agent may accept facts under
  (§6.1's reading); ``streams`` — the counter-based random streams both paths share.
- ``metrics`` — the collective knowledge base and its P/R/F1; ``recording`` — per-round snapshots.
- ``cost`` — a simulation's memory and time estimated from its parameters, before anything is allocated.
- ``sweep`` — grid sweeps (local pool or Dask), resumable; ``sweep_estimate`` — their duration from measured
  speed; ``tables``, ``figures`` — the paper's tables and figures from tidy rows; ``paper`` — the
  reproduction beside ``paper_numbers`` (the paper's numbers, quoted once) and ``paper_output`` (its
  tables / figures / docs block); ``phase`` — the phase transition; ``animation`` — the exchange as frames.
- ``llm_agents`` — LLM agents' reply schema, prompts and bookkeeping; ``graph`` — their LangGraph round.
- ``records`` — typed stored records and progress events; ``workflows`` — runs in the store.
- ``cli`` — ``ifworld beliefs …``.
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
