"""A tiny fan-out/fan-in workflow that exercises the run machinery (store, resume, events, caching).

Three workers answer a topic in parallel (``Send``), a summariser joins them. Used by the test suite and
as the smallest example of how an engine registers a workflow.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Send

from ifworld.config import Settings
from ifworld.llm import client as llm
from ifworld.runs.events import emit
from ifworld.runs.registry import Workflow, register

SYSTEM = "You are demo worker {i}. Give one short sentence about the topic."
SUMMARY_SYSTEM = "You are the demo summariser. Join the workers' sentences into one line."


class DemoState(TypedDict, total=False):
    topic: str
    workers: int
    answers: Annotated[list[dict[str, Any]], operator.add]
    summary: str


class WorkerTask(TypedDict):
    """What one worker is sent."""

    topic: str
    i: int


def build(params: dict[str, Any], settings: Settings) -> StateGraph[DemoState]:
    def fan_out(state: DemoState) -> list[Send]:
        return [Send("worker", {"topic": state["topic"], "i": i}) for i in range(state["workers"])]

    def worker(state: WorkerTask) -> dict[str, Any]:
        emit("worker_started", node="worker", i=state["i"])
        text = llm.complete("demo.worker", [("system", SYSTEM.format(i=state["i"])), ("user", state["topic"])],
                            settings=settings, meta={"system": "demo"})
        return {"answers": [{"i": state["i"], "text": text}]}

    def summarise(state: DemoState) -> dict[str, Any]:
        joined = "\n".join(a["text"] for a in sorted(state["answers"], key=lambda a: a["i"]))
        return {"summary": llm.complete("demo.summary", [("system", SUMMARY_SYSTEM), ("user", joined)],
                                        settings=settings)}

    policy: CachePolicy[Any] | None = CachePolicy() if params.get("cache") else None
    g = StateGraph(DemoState)
    g.add_node("worker", worker, cache_policy=policy)
    g.add_node("summarise", summarise, cache_policy=policy)
    g.add_conditional_edges(START, fan_out, ["worker"])
    g.add_edge("worker", "summarise")
    g.add_edge("summarise", END)
    return g


register(Workflow(
    name="demo.fanout",
    kind="whatif",
    build=build,
    initial=lambda p: {"topic": p.get("topic", "the Moon"), "workers": int(p.get("workers", 3)), "answers": []},
    finalize=lambda state, params, calls: {"summary": state.get("summary", ""),
                                           "answers": sorted(state.get("answers", []), key=lambda a: a["i"]),
                                           "calls": len(calls)},
    markdown=lambda rec: "## Summary\n\n" + rec.get("summary", ""),
    title=lambda p: f"Demo: {p.get('topic', 'the Moon')}",
))
