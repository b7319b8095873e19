"""Replay steps: a run's history as numbered steps named in the user's words.

A LangGraph checkpoint history is a list of *snapshots*: the state at the start of each superstep and the
tasks about to run (their results are what they write). Read naively it is one off — a snapshot pairs the
state *before* a step with the nodes that write *after* it — and it opens with LangGraph's input pseudo-step
(``__start__``, step −1). :func:`history_steps` pairs each step's writers with the state they produced, drops
the pseudo-step and numbers what is left from 1, so "Step 9" is the ninth position of the replay slider.

What a step is called is the engine's business: a workflow registers a :data:`StepNamer`; without one (or
when it declines) :func:`generic_label` names the step from its node names. Pure functions, no engine imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PSEUDO_NODES = frozenset({"__start__", "__end__", "__input__"})
"""LangGraph's own nodes: they carry the run's input or mark its end, no work of the workflow."""
PAUSE_NODE = "__interrupt__"
STATE_VALUE_CHARS = 300
"""A value of a state card longer than this is cut: the card says what a step holds, the export holds it all."""


class ReplayStep(BaseModel):
    """One step of a replay (the same shape from checkpoints and from a saved record).

    ``number`` counts from 1 and is what the replay slider shows; ``label`` says what happened in the user's
    words ("Round 1 — economics expert"); ``values`` is the state after the step; ``changed`` the state keys it
    changed; ``nodes`` and ``next`` the graph nodes that wrote and that are due next (empty at the end);
    ``paused`` marks a step waiting for a person.
    """

    model_config = ConfigDict(frozen=True)

    number: int = Field(ge=1)
    label: str
    nodes: list[str] = Field(default_factory=list)
    values: dict[str, Any] = Field(default_factory=dict)
    next: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    paused: bool = False


@dataclass(frozen=True)
class StepContext:
    """What a :data:`StepNamer` sees of one step: each task's node name and what it wrote (``None`` when it
    has not finished), the state when the step began, and whether the step finished, waits for a person
    (``paused``) or stopped with an error (``failed``)."""

    nodes: list[str]
    writes: list[Any] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)
    paused: bool = False
    failed: bool = False
    finished: bool = True


StepNamer = Callable[[StepContext], "str | None"]
"""A workflow's namer: the step's label, or None to fall back to :func:`generic_label`."""


def changed_keys(previous: dict[str, Any] | None, current: dict[str, Any]) -> list[str]:
    """State keys whose value differs from the previous step's (what this step wrote)."""
    previous = previous or {}
    return [k for k, v in current.items() if previous.get(k) != v]


def _human(node: str) -> str:
    return " ".join(node.replace("_", " ").replace(":", ": ").split())


def generic_label(nodes: Sequence[str], *, paused: bool = False, failed: bool = False,
                  finished: bool = True) -> str:
    """A readable name built from node names: ``["worker", "worker"]`` → "Worker ×2", ``answer_retry`` →
    "Answer retry"; LangGraph's pseudo-nodes never show."""
    counts = Counter(n for n in nodes if n not in PSEUDO_NODES and n != PAUSE_NODE)
    text = ", ".join(_human(n) + (f" ×{k}" if k > 1 else "") for n, k in counts.items()) or "the run"
    if paused or PAUSE_NODE in nodes:
        text = f"Paused: {text}" if counts else "Paused"
    elif failed:
        text = f"Stopped: {text} failed"
    elif not finished:
        text = f"Not finished: {text}"
    return text[:1].upper() + text[1:]


def _label(namer: StepNamer | None, ctx: StepContext) -> str:
    try:
        named = namer(ctx) if namer else None
    except Exception:  # noqa: BLE001 — a namer that trips over an odd state must not break the replay
        named = None
    return named or generic_label(ctx.nodes, paused=ctx.paused, failed=ctx.failed, finished=ctx.finished)


def _tasks(snapshot: Any) -> list[Any]:
    return [t for t in getattr(snapshot, "tasks", ()) or () if t.name not in PSEUDO_NODES]


def history_steps(history: Sequence[Any], namer: StepNamer | None = None) -> list[ReplayStep]:
    """Replay steps from a checkpoint history (LangGraph ``StateSnapshot``\\ s, oldest first).

    Each step pairs the tasks of one snapshot with the state of the next (what they produced). The input
    pseudo-step is folded into the first real step's "before" state. A history that ends with tasks still due
    (a pause for a person, a failure, a killed process) ends with one more step saying so.
    """
    steps: list[ReplayStep] = []

    def add(ctx: StepContext, values: dict[str, Any], nxt: list[str], previous: dict[str, Any]) -> None:
        steps.append(ReplayStep(number=len(steps) + 1, label=_label(namer, ctx), nodes=ctx.nodes,
                                values=values, next=nxt, changed=changed_keys(previous, values),
                                paused=ctx.paused))

    for prev, snap in zip(history, history[1:], strict=False):
        tasks = [t for t in _tasks(prev) if t.result is not None]
        if not tasks:
            continue  # the input step: its state is the "before" of the first real step
        before = dict(prev.values)
        add(StepContext([t.name for t in tasks], [t.result for t in tasks], before), dict(snap.values),
            [n for n in snap.next if n not in PSEUDO_NODES], before)
    if history:
        last = history[-1]
        due = [t for t in _tasks(last) if t.result is None]
        if due:
            values = dict(last.values)
            paused = any(getattr(t, "interrupts", None) for t in due)
            failed = not paused and any(getattr(t, "error", None) for t in due)
            add(StepContext([t.name for t in due], [None] * len(due), values, paused=paused, failed=failed,
                            finished=False),
                values, [t.name for t in due], steps[-1].values if steps else values)
    return steps


def state_markdown(values: dict[str, Any]) -> str:
    """A step's state as a readable card, one line per key in words ("**Rounds.** 2"), lists joined, nested
    values as "key: value" — what a replay shows instead of a JSON tree (its first step is the run's input).
    The text is plain Markdown built from stored values: the caller renders it inert (it may hold model text)."""
    lines = [f"**{_key_words(key)}.** {_value_text(value)}" for key, value in values.items()
             if value not in (None, "", [], {})]
    return "\n\n".join(lines) or "_Nothing recorded in this step._"


def _key_words(key: Any) -> str:
    # figstyle.column_label would say it better but pulls plotly and pandas into every `ifworld runs` command
    text = " ".join(str(key).replace("_", " ").split())
    return text[:1].upper() + text[1:]


def _value_text(value: Any) -> str:
    if isinstance(value, dict):
        text = "; ".join(f"{_key_words(k)}: {_value_text(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    elif isinstance(value, (list, tuple)):
        text = ", ".join(_value_text(v) for v in value)
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= STATE_VALUE_CHARS else text[: STATE_VALUE_CHARS - 1].rstrip() + "…"
