"""SCHEMA (paper Appendix B.5, conductor C.4): Architect → Allocator → question type → up to three Experts in
sequence → Synthesizer → Guard → gate → [Synthesizer again with the Guard's fix] → Finalizer.

Every role is a model call, as in the paper's conductor: the Architect (JSON) designs a small team; the Allocator
(JSON) turns that into at most three concrete steps with contracts; the question-type call (JSON; the paper
names the call ``schema_qtype`` but does not print its prompt, so ours is our own) fixes the answer type from the
architecture and the allocation; the experts run one after another, each seeing the log so far (a conditional
edge loops until the allocation is done; an allocation with no steps runs none, as in the paper). The Synthesizer
sees the task, the type and the experts' log; the Guard sees the architecture, the type and the synthesis (not
the task); the Finalizer sees only the accepted message. Code steps in only when a JSON role degrades: an
unusable allocation falls back to :func:`allocate` (the Architect's sequence, or a minimal one), an unusable
question type to the allocation's or the Architect's (never the item's: no gold field — type, meta, final,
steps — reaches any role). The Guard's tolerance follows the Architect's domain (the roles of its expert
sequence): 2 % for physics / maths, 5 % otherwise (the paper's Guard rules, C.4).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ifworld.config import Settings
from ifworld.rws.patterns.base import (
    PatternState,
    as_text,
    ensure_final,
    item_block,
    json_role,
    passes,
    text_role,
)
from ifworld.rws.patterns.schemas import MAX_EXPERTS, Allocation, Architecture, QuestionType, Review
from ifworld.rws.patterns.spec import REGISTRY, PatternSpec

if TYPE_CHECKING:
    from langgraph.graph import StateGraph

TIGHT_TOLERANCE = 0.02
LOOSE_TOLERANCE = 0.05
MAX_EXPERT_PROMPT_CHARS = 600
ANSWER_TYPES = ("numeric", "symbolic", "textual")
PHYSICS_MATH = re.compile(r"physic|math|helio|plasma|solar|astro", re.I)
ROLE_SYNONYMS = {"bio": "biology", "chem": "chemistry", "maths": "math", "mathematics": "math",
                 "physicist": "physics", "mathematician": "math"}
DEFAULT_SEQUENCE = {
    "numeric": [("physics", "Set up the governing relation and the known quantities with units.", "setup"),
                ("math", "Evaluate the relation numerically; keep units and significant figures.", "value")],
    "symbolic": [("physics", "Derive the requested relation step by step.", "derivation"),
                 ("math", "Simplify the derived expression to the requested form.", "expression")],
    "textual": [("qa", "Explain the physical reasoning briefly and state the conclusion.", "conclusion")],
}


def _slug(role: str) -> str:
    slug = re.sub(r"[^a-z0-9 :_-]+", "", role.lower()).strip()[:40] or "qa"
    return ROLE_SYNONYMS.get(slug, slug)


def _step(role: str, prompt: str, produces: str, acceptance: list[str] | None = None) -> dict:
    role = _slug(role)
    return {"role": role, "prompt": prompt[:MAX_EXPERT_PROMPT_CHARS], "produces": produces or "a partial result",
            "acceptance": acceptance or [f"The {role} expert states {produces or 'its result'} explicitly."]}


def normalise_steps(allocation: dict | None) -> tuple[list[dict], list[str]]:
    """The Allocator's steps, roles normalised, at most three, steps without a prompt dropped."""
    steps = [_step(s.get("role", ""), (s.get("prompt") or "").strip(), s.get("produces") or "",
                   list(s.get("acceptance") or []))
             for s in (allocation or {}).get("steps") or [] if (s.get("prompt") or "").strip()]
    notes = []
    if len(steps) > MAX_EXPERTS:
        notes.append(f"allocator: kept the first {MAX_EXPERTS} of {len(steps)} steps")
    return steps[:MAX_EXPERTS], notes


def allocate(architecture: dict | None) -> tuple[list[dict], list[str]]:
    """Fallback when the Allocator's JSON is unusable: the Architect's sequence (≤3 steps), else a minimal one."""
    raw = [{"role": e.get("role", ""), "prompt": e.get("prompt", ""), "produces": e.get("produces", "")}
           for e in (architecture or {}).get("expert_sequence") or []]
    steps, notes = normalise_steps({"steps": raw})
    if steps:
        return steps, ["allocator: used the architect's expert sequence", *notes]
    kind = answer_type((architecture or {}).get("q_type"))
    return ([_step(r, p, o) for r, p, o in DEFAULT_SEQUENCE[kind]],
            ["allocator: architecture unusable; inferred a minimal expert sequence"])


def answer_type(*candidates: object) -> str:
    """The first candidate naming one of the RWS answer types (else numeric)."""
    for value in candidates:
        low = str(value or "").lower()
        found = next((t for t in ANSWER_TYPES if t in low or (t == "textual" and "text" in low)), None)
        if found:
            return found
    return "numeric"


def tolerance_for(architecture: dict | None) -> float:
    """The Guard's numeric tolerance from the Architect's domain — the roles of its expert sequence: 2 % when
    one is physics or maths, 5 % for biology, chemistry and the rest (C.4). Never from the item."""
    roles = " ".join(str(e.get("role", "")) for e in (architecture or {}).get("expert_sequence") or [])
    return TIGHT_TOLERANCE if PHYSICS_MATH.search(roles) else LOOSE_TOLERANCE


def _log(state: PatternState) -> str:
    done = state["out"].get("experts") or []
    return "\n\n".join(f"[S{i} · {e['role']}]\n{e['output']}" for i, e in enumerate(done, 1)) or "(no expert output)"


def add_nodes(g: StateGraph, settings: Settings) -> str:
    from langgraph.graph import START

    def task(state: PatternState) -> str:
        return item_block(state["item"])

    def q_type(state: PatternState) -> str:
        return state["out"].get("q_type_value") or "numeric"

    def architect(state: PatternState) -> dict:
        return json_role(settings, state, "architect", "architect", Architecture, item=task(state))[1]

    def allocator(state: PatternState) -> dict:
        arch = state["out"].get("architect")
        data, upd = json_role(settings, state, "allocator", "allocator", Allocation, item=task(state),
                              arch=as_text(arch), max_experts=MAX_EXPERTS)
        steps, notes = normalise_steps(data) if data is not None else allocate(arch)
        if data is not None and not steps:
            notes.append("allocator: no expert steps; none run (as in the paper)")
        return {**upd, "out": {**upd["out"], "allocation": steps, "experts": []},
                "annotations": [*upd.get("annotations", []), *notes]}

    def qtype(state: PatternState) -> dict:
        out = state["out"]
        data, upd = json_role(settings, state, "qtype", "qtype", QuestionType, arch=as_text(out.get("architect")),
                              alloc=as_text({"steps": out.get("allocation"),
                                             "q_type": (out.get("allocator") or {}).get("q_type", "")}))
        value = answer_type((data or {}).get("q_type"), (out.get("allocator") or {}).get("q_type"),
                            (out.get("architect") or {}).get("q_type"))
        return {**upd, "out": {**upd["out"], "q_type_value": value}}

    def first(state: PatternState) -> str:
        return "expert" if state["out"].get("allocation") else "synthesizer"

    def expert(state: PatternState) -> dict:
        steps, done = state["out"]["allocation"], list(state["out"].get("experts") or [])
        step = steps[len(done)]
        text, upd = text_role(settings, state, "expert", f"expert_{len(done) + 1}", item=task(state),
                              q_type=q_type(state), plan=as_text(state["out"].get("architect")),
                              expert_role=step["role"], task=step["prompt"], produces=step["produces"],
                              acceptance="; ".join(step["acceptance"]), log=_log(state))
        done.append({"role": step["role"], "output": text})
        return {**upd, "out": {**upd["out"], "experts": done}}

    def more_experts(state: PatternState) -> str:
        return "expert" if len(state["out"]["experts"]) < len(state["out"]["allocation"]) else "synthesizer"

    def synthesizer(state: PatternState) -> dict:
        return text_role(settings, state, "synthesizer", "synthesizer", item=task(state), q_type=q_type(state),
                         log=_log(state))[1]

    def guard(state: PatternState) -> dict:
        arch = state["out"].get("architect") or {}
        return json_role(settings, state, "guard", "guard", Review, arch=as_text(arch), q_type=q_type(state),
                         answer=state["out"]["synthesizer"],
                         tolerance=f"{tolerance_for(arch):.0%}")[1]

    def synthesizer_retry(state: PatternState) -> dict:
        return text_role(settings, state, "synthesizer", "synthesizer_retry", prompt="user_retry", item=task(state),
                         q_type=q_type(state), log=_log(state), fix=as_text(state["out"].get("guard")))[1]

    def finalizer(state: PatternState) -> dict:
        best = state["out"].get("synthesizer_retry") or state["out"].get("synthesizer") or ""
        text, upd = text_role(settings, state, "finalizer", "finalizer", answer=best)
        final, notes = ensure_final(text, best, "rws.schema.finalizer")
        return {**upd, "final_text": final, "annotations": notes}

    def gate(state: PatternState) -> str:
        return "finalizer" if passes(state["out"].get("guard")) else "synthesizer_retry"

    for name, fn in (("architect", architect), ("allocator", allocator), ("qtype", qtype), ("expert", expert),
                     ("synthesizer", synthesizer), ("guard", guard), ("synthesizer_retry", synthesizer_retry),
                     ("finalizer", finalizer)):
        g.add_node(name, fn)
    g.add_edge(START, "architect")
    g.add_edge("architect", "allocator")
    g.add_edge("allocator", "qtype")
    g.add_conditional_edges("qtype", first, ["expert", "synthesizer"])
    g.add_conditional_edges("expert", more_experts, ["expert", "synthesizer"])
    g.add_edge("synthesizer", "guard")
    g.add_conditional_edges("guard", gate, ["finalizer", "synthesizer_retry"])
    g.add_edge("synthesizer_retry", "finalizer")
    return "finalizer"


ROLES = ("architect", "allocator", "qtype", "expert", "synthesizer", "guard", "finalizer")
# With the two-step allocation the fake server scripts; experts = len(allocation) (0–3) in general.
CALLS = {
    "accept": {"architect": 1, "allocator": 1, "qtype": 1, "expert": 2, "synthesizer": 1, "guard": 1,
               "finalizer": 1},
    "reject": {"architect": 1, "allocator": 1, "qtype": 1, "expert": 2, "synthesizer": 2, "guard": 1,
               "finalizer": 1},
}
FIXED_CALLS = 6
"""Architect, Allocator, question type, Synthesizer, Guard, Finalizer: calls per item besides the experts and
the Synthesizer's one correction (so 6 + E on the accept path, 7 + E on the reject path, E = 0–3 experts)."""
CALL_BOUNDS = (FIXED_CALLS, FIXED_CALLS + MAX_EXPERTS + 1)
"""(fewest, most) calls per item: no expert and accepted; three experts and one correction."""

SPEC = REGISTRY.register(PatternSpec(
    name="schema", label="SCHEMA", roles=ROLES, calls=CALLS, add_nodes=add_nodes, call_bounds=CALL_BOUNDS,
    help=("Architect → Allocator → question type → up to three Experts in sequence → Synthesizer → Guard → "
          "gate → one Synthesizer correction → Finalizer."),
))
