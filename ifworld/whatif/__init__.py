"""IF-World: cross-disciplinary what-if reasoning (engine only; never imports streamlit).

Public API used by pages and the CLI::

    PAPER_PROPOSITIONS, CLASSROOM_PRESETS, DEFAULT_EXPERTS, KNOWN_EXPERTS, METHODS
    validate_proposition(text) -> str
    normalize_experts(names) -> list[str]
    default_params(proposition, method="ifworld", **overrides) -> dict
    estimate_calls(params) -> int
    workflow_name(method) -> str
    render_report_markdown(report) -> str
    judge_record(record, settings=None, *, run_id=None, store=None) -> dict
    run_eval(methods, propositions, repeats, settings, out_dir=None, on_progress=None) -> EvalResult

``judge_record`` and ``run_eval`` are imported lazily (pandas/plotly load only when used).
"""

from __future__ import annotations

from typing import Any

from ifworld.whatif.progress import Estimate, estimate
from ifworld.whatif.propositions import (
    ABLATION_PROPOSITION,
    CLASSROOM_PRESETS,
    DEFAULT_EXPERTS,
    KNOWN_EXPERTS,
    MAX_BREADTH,
    MAX_DEBATE_ROUNDS,
    MAX_DEPTH,
    MAX_PROPOSITION_CHARS,
    METHODS,
    PAPER_PROPOSITIONS,
    normalize_experts,
    suggest_experts,
    validate_proposition,
    workflow_name,
)
from ifworld.whatif.record import RECORD_KEYS, default_params, estimate_calls
from ifworld.whatif.report import REPORT_SECTIONS, render_report_markdown

_LAZY = {"judge_record": "ifworld.whatif.judge", "judge_report": "ifworld.whatif.judge",
         "run_eval": "ifworld.whatif.evaluate", "EvalResult": "ifworld.whatif.evaluate"}

__all__ = [
    "ABLATION_PROPOSITION", "suggest_experts", "Estimate", "estimate", "MAX_BREADTH", "MAX_DEBATE_ROUNDS",
    "MAX_DEPTH",
    "CLASSROOM_PRESETS", "DEFAULT_EXPERTS", "KNOWN_EXPERTS", "MAX_PROPOSITION_CHARS", "METHODS", "PAPER_PROPOSITIONS",
    "RECORD_KEYS", "REPORT_SECTIONS", "default_params", "estimate_calls", "normalize_experts",
    "render_report_markdown", "validate_proposition", "workflow_name", *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ifworld.whatif' has no attribute {name!r}")
