"""SCHEMA: Architect (JSON) → Allocator (code) → Experts in sequence → Synthesizer → Guard (JSON) → gate →
[one Synthesizer correction] → Finalizer.

The Architect proposes up to three experts; the Allocator is deterministic code that normalises their roles,
tightens prompts and adds acceptance checks, and infers a minimal sequence when the architecture is missing
or unusable. Experts run one after another (a conditional edge loops until the sequence is done), each seeing
the log so far. The Guard's tolerance is 2 % for physics/maths answers, 5 % otherwise.
"""

from __future__ import annotations

import re

from langgraph.graph import START, StateGraph

from ifworld.config import Settings
from ifworld.rws.patterns.base import (
    PatternState,
    as_text,
    format_final,
    item_block,
    json_role,
    passes,
    text_role,
)
from ifworld.rws.patterns.schemas import MAX_EXPERTS, Architecture, Review

TIGHT_TOLERANCE = 0.02
LOOSE_TOLERANCE = 0.05
MAX_EXPERT_PROMPT_CHARS = 600
PHYSICS_MATH = re.compile(r"physic|math|numer|symbol|equation|helio|plasma|solar|astro", re.I)
DEFAULT_SEQUENCE = {
    "numeric": [("physicist", "Set up the governing relation and the known quantities with units.", "setup",
                 "question"),
                ("calculator", "Evaluate the relation numerically; keep units and significant figures.", "value",
                 "setup")],
    "symbolic": [("physicist", "Derive the requested relation step by step.", "derivation", "question"),
                 ("mathematician", "Simplify the derived expression to the requested form.", "expression",
                  "derivation")],
    "textual": [("domain expert", "Explain the physical reasoning briefly and state the conclusion.", "conclusion",
                 "question")],
}


def _slug(role: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", "", role.lower()).strip()[:40] or "expert"


def allocate(architecture: dict | None, item: dict) -> tuple[list[dict], list[str]]:
    """Normalise the Architect's expert sequence to ≤3 tight steps; infer a minimal one if unusable."""
    notes: list[str] = []
    steps = []
    for raw in (architecture or {}).get("expert_sequence") or []:
        role, prompt = _slug(raw.get("role", "")), (raw.get("prompt") or "").strip()
        if not prompt:
            continue
        steps.append({"role": role, "prompt": prompt[:MAX_EXPERT_PROMPT_CHARS],
                      "produces": raw.get("produces") or "a partial result",
                      "consumes": raw.get("consumes") or "the question",
                      "check": f"The {role} must state {raw.get('produces') or 'its result'} explicitly."})
    if len(steps) > MAX_EXPERTS:
        notes.append(f"allocator: kept the first {MAX_EXPERTS} of {len(steps)} experts")
        steps = steps[:MAX_EXPERTS]
    if not steps:
        q_type = (architecture or {}).get("q_type") or item.get("type") or "numeric"
        key = next((k for k in DEFAULT_SEQUENCE if k in str(q_type).lower()), item.get("type", "numeric"))
        steps = [{"role": r, "prompt": p, "produces": o, "consumes": c, "check": f"The {r} must state its {o}."}
                 for r, p, o, c in DEFAULT_SEQUENCE.get(key, DEFAULT_SEQUENCE["numeric"])]
        notes.append("allocator: architecture unusable; inferred a minimal expert sequence")
    return steps, notes


def tolerance_for(architecture: dict | None, item: dict) -> float:
    """2 % for physics/maths questions, 5 % for the rest."""
    label = f"{(architecture or {}).get('q_type', '')} {item.get('meta', {}).get('topic', '')} {item.get('type', '')}"
    return TIGHT_TOLERANCE if PHYSICS_MATH.search(label) else LOOSE_TOLERANCE


def _log(state: PatternState) -> str:
    done = state["out"].get("experts") or []
    return "\n\n".join(f"[{e['role']}]\n{e['output']}" for e in done) or "(no expert has spoken yet)"


def add_nodes(g: StateGraph, settings: Settings) -> str:
    def architect(state: PatternState) -> dict:
        return json_role(settings, state, "architect", "architect", Architecture, item=item_block(state["item"]))[1]

    def allocator(state: PatternState) -> dict:
        steps, notes = allocate(state["out"].get("architect"), state["item"])
        entry = {"role": "rws.schema.allocator", "step": "allocator", "input": as_text(state["out"].get("architect")),
                 "output": as_text(steps), "status": "ok (code)"}
        return {"out": {"allocation": steps, "experts": []}, "trace": [entry], "annotations": notes}

    def expert(state: PatternState) -> dict:
        steps, done = state["out"]["allocation"], list(state["out"].get("experts") or [])
        step = steps[len(done)]
        text, upd = text_role(settings, state, "expert", f"expert_{len(done) + 1}", item=item_block(state["item"]),
                              expert_role=step["role"], task=step["prompt"], produces=step["produces"],
                              check=step["check"], log=_log(state))
        done.append({"role": step["role"], "output": text})
        return {**upd, "out": {**upd["out"], "experts": done}}

    def more_experts(state: PatternState) -> str:
        return "expert" if len(state["out"]["experts"]) < len(state["out"]["allocation"]) else "synthesizer"

    def synthesizer(state: PatternState) -> dict:
        return text_role(settings, state, "synthesizer", "synthesizer", item=item_block(state["item"]),
                         plan=as_text(state["out"].get("architect")), log=_log(state))[1]

    def guard(state: PatternState) -> dict:
        architecture = state["out"].get("architect") or {}
        tol = tolerance_for(architecture, state["item"])
        checks = "\n".join(f"- {c}" for c in architecture.get("checks") or []) or "(none given)"
        return json_role(settings, state, "guard", "guard", Review, item=item_block(state["item"]),
                         answer=state["out"]["synthesizer"], tolerance=f"{tol:.0%}", log=_log(state),
                         q_type=architecture.get("q_type") or state["item"].get("type", ""), checks=checks)[1]

    def synthesizer_retry(state: PatternState) -> dict:
        review = state["out"].get("guard") or {}
        return text_role(settings, state, "synthesizer", "synthesizer_retry", prompt="user_retry",
                         item=item_block(state["item"]), answer=state["out"]["synthesizer"], log=_log(state),
                         issues="; ".join(review.get("issues") or []) or "(none)",
                         fix=review.get("fix") or "(no fix given)")[1]

    def finalizer(state: PatternState) -> dict:
        best = state["out"].get("synthesizer_retry") or state["out"].get("synthesizer") or ""
        upd, notes = format_final(settings, state, "finalizer", best)
        return {**upd, "annotations": notes}

    def gate(state: PatternState) -> str:
        return "finalizer" if passes(state["out"].get("guard")) else "synthesizer_retry"

    for name, fn in (("architect", architect), ("allocator", allocator), ("expert", expert),
                     ("synthesizer", synthesizer), ("guard", guard), ("synthesizer_retry", synthesizer_retry),
                     ("finalizer", finalizer)):
        g.add_node(name, fn)
    g.add_edge(START, "architect")
    g.add_edge("architect", "allocator")
    g.add_edge("allocator", "expert")
    g.add_conditional_edges("expert", more_experts, ["expert", "synthesizer"])
    g.add_edge("synthesizer", "guard")
    g.add_conditional_edges("guard", gate, ["finalizer", "synthesizer_retry"])
    g.add_edge("synthesizer_retry", "finalizer")
    return "finalizer"


ROLES = ("architect", "expert", "synthesizer", "guard", "finalizer")
# With the two-expert architecture the fake server scripts; experts = len(allocation) in general.
CALLS = {
    "accept": {"architect": 1, "expert": 2, "synthesizer": 1, "guard": 1, "finalizer": 1},
    "reject": {"architect": 1, "expert": 2, "synthesizer": 2, "guard": 1, "finalizer": 1},
}
