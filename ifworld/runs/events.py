"""Typed events that pages, the CLI and the store consume — one source, three consumers.

They are built from LangGraph's stream modes: ``tasks`` (a step started / failed), ``updates`` (a step
finished with its state update), ``custom`` (our own progress events, written by nodes with :func:`emit`)
and ``messages`` (token deltas from the chat model inside a node).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ifworld.runs.records import LenientModel

EventType = Literal[
    "run_started", "step_started", "step_finished", "step_failed", "token", "progress", "run_finished",
    "run_failed", "run_cancelled", "run_paused",
]
STREAM_MODES = ("tasks", "updates", "custom", "messages")


class Event(BaseModel):
    """One thing that happened in a run. ``data`` carries the step's update, progress payload or text."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    type: EventType
    run_id: str
    node: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    ts: float = Field(default_factory=time.time)


def emit(kind: str = "progress", **data: Any) -> None:
    """From inside a graph node: publish a custom event (no-op outside a streaming run).

    ``kind`` may be any label (``"round_done"``, ``"frame_built"`` …); pages switch on ``data["kind"]``.
    """
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):
        return
    writer({"kind": kind, **data})


def _node_of(name: str | None) -> str | None:
    return name.split(":")[0] if name else name


def events_from_stream(run_id: str, chunks: Iterable[tuple[str, Any]]) -> Iterator[Event]:
    """Translate ``graph.stream(..., stream_mode=[...])`` tuples into :class:`Event` s."""
    for mode, payload in chunks:
        if mode == "tasks":
            if "result" not in payload and "error" not in payload:
                yield Event(type="step_started", run_id=run_id, node=payload.get("name"),
                            data={"task_id": payload.get("id")})
            elif payload.get("error"):
                yield Event(type="step_failed", run_id=run_id, node=payload.get("name"),
                            data={"task_id": payload.get("id"), "error": str(payload["error"])})
        elif mode == "updates":
            for node, update in (payload or {}).items():
                if node.startswith("__"):
                    continue
                yield Event(type="step_finished", run_id=run_id, node=node,
                            data=update if isinstance(update, dict) else {"value": update})
        elif mode == "custom":
            data = payload if isinstance(payload, dict) else {"value": payload}
            yield Event(type="progress", run_id=run_id, node=data.get("node"), data=data)
        elif mode == "messages":
            chunk, meta = payload
            text = getattr(chunk, "content", "")
            if isinstance(text, str) and text:
                yield Event(type="token", run_id=run_id, node=_node_of(meta.get("langgraph_node")),
                            data={"text": text, "role": meta.get("ifworld_role"), "call": meta.get("ifworld_call")})


class ProgressEvent(LenientModel):
    """Base of every typed ``progress`` payload (an :class:`Event`'s ``data``), whichever engine emits it: the
    ``kind`` a subclass narrows to its own ``Literal``, the node that emitted it and its round (0: none).
    Defined once here, so the what-if and belief events, and the model layer's partial outputs, read alike;
    records of earlier versions load (unknown keys ignored, ``null`` read as the default)."""

    kind: str
    node: str | None = None
    round: int = 0


class ExpertPartial(ProgressEvent):
    """An expert's output so far, while its reply streams (``kind="expert_partial"``, throttled by the model
    layer to one per :data:`ifworld.llm.PARTIAL_INTERVAL_S` per call)."""

    kind: Literal["expert_partial"] = "expert_partial"
    domain: str
    round: int
    partial: dict[str, Any]
