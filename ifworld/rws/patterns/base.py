"""What every RWS pattern shares: the per-(item, pattern) state, role calls that leave a trace, the gate.

A pattern is an explicit LangGraph state machine; its nodes call :func:`text_role` / :func:`json_role`, which
render the role's prompt file (``prompts/rws/<pattern>/<role>.yaml``: the shared RWS system text, the user text
with the question first and the role's task last), call the model through :mod:`ifworld.llm`, and return a state
update that appends one trace entry (the role's input and raw output). A JSON role that is still invalid after the
repair turn degrades: the caller gets ``None`` and the trace/annotations say so; transport errors propagate so the
run stops and can be resumed. A step computed in code (no model call: a check, a merge, a tool) records itself with
:func:`code_step`: its trace entry has status :data:`CODE` and is not counted as a model call.

This module is the public toolkit of a pattern (``__all__``; docs/extending.md): an extension imports from here,
:mod:`ifworld.rws.patterns.schemas` and the front door ``ifworld.rws``, never a ``_`` name.
"""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel

from ifworld import llm, prompts
from ifworld.config import Settings
from ifworld.rws.grading.extract import extract_answer

__all__ = ["CODE", "DEGRADED", "FINAL_PREFIX", "GATE_CONFIDENCE", "OK", "PatternOutput", "PatternState", "TraceStatus",
           "as_text", "canonical", "code_step", "counts_as_call", "ensure_final", "final_line", "format_final",
           "item_block", "json_role", "merge_updates", "passes", "render_role", "role_settings", "text_role",
           "trace_entry"]

TraceStatus = Literal["ok", "degraded", "code"]
"""A trace entry's status: ``ok`` (a model call that answered), ``degraded`` (a model call whose JSON stayed invalid
after repair) or ``code`` (a step computed without a model: not a call)."""
OK: TraceStatus = "ok"
DEGRADED: TraceStatus = "degraded"
CODE: TraceStatus = "code"
LEGACY_CODE_PREFIX = "ok (code)"
"""How records written before :data:`CODE` marked a code step (still read as one)."""
GATE_CONFIDENCE = 0.7
"""Gates pass when the reviewer accepts *and* its confidence is at least this."""
FINAL_PREFIX = "Final Answer:"
SYSTEM_LABEL = "rws"


def _merge(left: dict | None, right: dict | None) -> dict:
    return {**(left or {}), **(right or {})}


class PatternState(TypedDict, total=False):
    """State of one (item, pattern, model) solve; ``out`` holds each step's parsed output by step name."""

    item: dict
    pattern: str
    model: str
    verify: bool
    verifier_sees_grader: bool
    out: Annotated[dict, _merge]
    trace: Annotated[list[dict], operator.add]
    annotations: Annotated[list[str], operator.add]
    final_text: str
    results: Annotated[list[dict], operator.add]


class PatternOutput(TypedDict, total=False):
    """What a pattern subgraph hands back to the run graph: one result record."""

    results: Annotated[list[dict], operator.add]


def role_settings(settings: Settings, state: PatternState) -> Settings:
    """The run's settings with the task's model (benchmarks compare models through one endpoint)."""
    model = state.get("model")
    return settings.model_copy(update={"model": model}) if model and model != settings.model else settings


def item_block(item: dict) -> str:
    """The question as every role sees it: preamble (earlier parts), question, answer-format hint."""
    parts = []
    preamble = [p for p in item.get("preamble") or [] if p]
    if preamble:
        parts.append("Context from earlier parts:\n" + "\n".join(f"- {p}" for p in preamble))
    parts.append(f"Question: {item['question']}")
    if item.get("hint"):
        parts.append(f"Answer format: {item['hint']}")
    return "\n\n".join(parts)


def render_role(pattern: str, role: str, user: str = "user", *, template: str | None = None,
                **values: Any) -> tuple[str, str]:
    """(system, user) for a role from its prompt file (``rws/<pattern>/<role>``, or ``template`` — a pattern may
    reuse another pattern's role prompt); ``user`` picks the user section (``user_retry``)."""
    (_, system), (_, text) = prompts.messages(template or f"rws/{pattern}/{role}", user, **values)
    return system, text


def trace_entry(role: str, step: str, user: str, output: str, status: TraceStatus = OK, error: str = "",
                parsed: Any = None) -> dict:
    """One entry of an item's trace (:class:`ifworld.rws.TraceEntry` as stored): who (``role``), which step, the
    input it was given, its raw output and its :data:`TraceStatus`."""
    entry = {"role": role, "step": step, "input": user, "output": output, "status": status}
    if parsed is not None:
        entry["parsed"] = parsed
    if error:
        entry["error"] = error
    return entry


def counts_as_call(entry: dict) -> bool:
    """Whether a trace entry was a model call (every status but :data:`CODE`; old records' ``ok (code)`` too)."""
    status = str(entry.get("status", OK))
    return status != CODE and not status.startswith(LEGACY_CODE_PREFIX)


def code_step(state: PatternState, step: str, output: Any, *, given: str = "") -> dict:
    """The state update of a step computed in code (no model call): one trace entry with status :data:`CODE`
    (shown in the trace, not counted in the item's ``calls``) and ``out[step] = output``; ``given`` says what
    it read."""
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    role = f"rws.{state['pattern']}.{step}"
    return {"trace": [trace_entry(role, step, given, text, CODE)], "out": {step: output}}


def _variant(prompt: str | None) -> str:
    """The kind of call on the wire (``user_retry`` → ``rws.pace.answer#retry``): the role names who asks, a
    user section other than ``user`` what kind of call it is."""
    return "" if prompt in (None, "user") else str(prompt).removeprefix("user_")


def text_role(settings: Settings, state: PatternState, role: str, step: str, *, prompt: str | None = None,
              template: str | None = None, **values: Any) -> tuple[str, dict]:
    """Call a free-text role; returns (text, state update with its trace entry and ``out[step]``).

    ``prompt`` names the user section of the role's prompt file when it is not ``user`` (``user_retry``);
    ``template`` the prompt file when it is not ``rws/<pattern>/<role>``.
    """
    pattern = state["pattern"]
    system, user = render_role(pattern, role, prompt or "user", template=template, **values)
    text = llm.complete(f"rws.{pattern}.{role}", [("system", system), ("user", user)],
                        settings=role_settings(settings, state), meta={"system": SYSTEM_LABEL},
                        variant=_variant(prompt))
    return text, {"trace": [trace_entry(f"rws.{pattern}.{role}", step, user, text)], "out": {step: text}}


def json_role(settings: Settings, state: PatternState, role: str, step: str, schema: type[BaseModel], *,
              prompt: str | None = None, template: str | None = None, **values: Any) -> tuple[dict | None, dict]:
    """Call a JSON role (with the model layer's repair turn); ``None`` when it still fails (degraded)."""
    pattern = state["pattern"]
    full = f"rws.{pattern}.{role}"
    system, user = render_role(pattern, role, prompt or "user", template=template, **values)
    try:
        value = llm.structured(full, [("system", system), ("user", user)], schema,
                               settings=role_settings(settings, state), meta={"system": SYSTEM_LABEL},
                               variant=_variant(prompt))
    except llm.StructuredOutputError as exc:
        note = f"degraded: {full} gave no valid JSON after repair"
        return None, {"trace": [trace_entry(full, step, user, exc.raw, DEGRADED, str(exc))],
                      "annotations": [note], "out": {step: None}}
    data = value.model_dump()
    return data, {"trace": [trace_entry(full, step, user, json.dumps(data), parsed=data)], "out": {step: data}}


def passes(review: dict | None) -> bool:
    """The gate: accept and confidence ≥ :data:`GATE_CONFIDENCE` (a missing review passes: nothing to act on)."""
    if review is None:
        return True
    return bool(review.get("accept")) and float(review.get("confidence") or 0) >= GATE_CONFIDENCE


def merge_updates(*updates: dict) -> dict:
    """Combine several node updates (trace/annotations appended, out merged)."""
    merged: dict[str, Any] = {}
    for upd in updates:
        for key, value in upd.items():
            if key in ("trace", "annotations"):
                merged[key] = merged.get(key, []) + list(value)
            elif key == "out":
                merged[key] = {**merged.get(key, {}), **value}
            else:
                merged[key] = value
    return merged


def final_line(text: str) -> str:
    """The answer in a role's output (its ``Final Answer:`` line, else the extractor's best guess)."""
    return extract_answer(text or "").answer


def canonical(reasoning: str, answer: str) -> str:
    """The canonical two-part output every pattern ends with."""
    return f"Reasoning: {reasoning.strip() or '(none given)'}\n{FINAL_PREFIX} {answer.strip()}"


def ensure_final(formatted: str, fallback_text: str, step: str) -> tuple[str, list[str]]:
    """Keep a formatter's output if it has a final line; else rebuild it from the best earlier answer."""
    if formatted and FINAL_PREFIX.lower() in formatted.lower():
        return formatted.strip(), []
    return canonical(fallback_text[:1500], final_line(fallback_text)), [
        f"{step} output had no 'Final Answer:' line; rebuilt from the best earlier answer"]


def format_final(settings: Settings, state: PatternState, role: str, best: str,
                 **values: Any) -> tuple[dict, list[str]]:
    """The closing formatter role (encloser / finalizer): state update with ``final_text``, and its notes. It is
    sent ``best`` and ``values`` only (the paper's MESSAGE, and PHASE's PLAN), never the question."""
    text, upd = text_role(settings, state, role, role, answer=best, **values)
    final, notes = ensure_final(text, best, f"rws.{state['pattern']}.{role}")
    return {**upd, "final_text": final}, notes


def as_text(value: Any) -> str:
    """Compact text for putting a JSON role's output into the next prompt."""
    if value is None:
        return "(not available)"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)
