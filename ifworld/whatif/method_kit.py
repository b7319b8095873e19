"""What a what-if method needs beyond its spec: the public toolkit of an extension (docs/extending.md).

A method is a :class:`~ifworld.whatif.MethodSpec` registered in :data:`~ifworld.whatif.METHOD_REGISTRY` (both on
the front door ``ifworld.whatif``); its graph's nodes call the model and its ``finalize`` writes the record every
method ends in. The helpers for that are here, under their documented names, so an extension imports nothing
private and nothing from whichever module holds a helper today:

* :func:`answer` — one model call by role from a prompt file, the method's own words (a baseline's output);
* :func:`proposition_block` — the proposition fenced as data, as every method's prompts show it;
* :func:`natural_report` — a method's text as the run's report (the judge scores it as written);
* :func:`make_record` — the run record every method ends in (the judge, exports, replay and comparison read it);
* :func:`cache_policy` — the LangGraph node cache policy of a run (``None`` unless the run caches steps).
"""

from __future__ import annotations

from ifworld.whatif.agents import answer, proposition_block
from ifworld.whatif.graph import cache_policy
from ifworld.whatif.params import make_record
from ifworld.whatif.report import natural_report

__all__ = ["answer", "cache_policy", "make_record", "natural_report", "proposition_block"]
