"""Replay steps from checkpoint history: numbered from 1, no LangGraph start pseudo-step, each step paired with
the state it produced, named by the workflow's namer or readably from node names."""

from __future__ import annotations

from types import SimpleNamespace

from ifworld import runs
from ifworld.runs import ReplayStep, StepContext, generic_label
from ifworld.runs.steps import history_steps
from ifworld.runs.store import RunStore


def task(name: str, result: dict | None = None, *, interrupts: tuple = (), error: Exception | None = None):
    return SimpleNamespace(name=name, result=result, interrupts=interrupts, error=error)


def snap(values: dict, tasks: list, nxt: list[str] | None = None):
    return SimpleNamespace(values=values, tasks=tasks, next=tuple(nxt if nxt is not None else [t.name for t in tasks]))


HISTORY = [  # what LangGraph gives: the input pseudo-step, then the state *before* each step with its tasks
    snap({}, [task("__start__", {"topic": "tides"})]),
    snap({"topic": "tides"}, [task("worker", {"answers": [1]}), task("worker", {"answers": [2]})]),
    snap({"topic": "tides", "answers": [1, 2]}, [task("summarise", {"summary": "done"})]),
    snap({"topic": "tides", "answers": [1, 2], "summary": "done"}, []),
]


def test_numbered_from_one_without_the_start_pseudo_step() -> None:
    steps = history_steps(HISTORY)
    assert [s.number for s in steps] == [1, 2]  # the slider's 1 … N
    assert all(isinstance(s, ReplayStep) for s in steps)
    assert steps[0].nodes == ["worker", "worker"] and steps[0].label == "Worker ×2"
    assert steps[1].nodes == ["summarise"] and steps[1].label == "Summarise" and steps[1].next == []
    assert not any("__start__" in s.nodes or "start" in s.label.lower() for s in steps)


def test_each_step_shows_the_state_its_nodes_produced() -> None:
    """Not the state before them (today's replay paired "wrote: refine" with a state without the scenario)."""
    first, last = history_steps(HISTORY)
    assert first.values == {"topic": "tides", "answers": [1, 2]} and first.changed == ["answers"]
    assert last.values["summary"] == "done" and last.changed == ["summary"]


def test_a_history_that_ends_waiting_says_why() -> None:
    paused = [*HISTORY[:2], snap({"topic": "tides", "answers": [1, 2]},
                                 [task("review", interrupts=("ask",))])]
    *_, step = history_steps(paused)
    assert step.paused and step.label == "Paused: review" and step.number == 2 and step.changed == []
    failed = [*HISTORY[:2], snap({"topic": "tides"}, [task("summarise", error=RuntimeError("500"))])]
    assert history_steps(failed)[-1].label == "Stopped: summarise failed"
    assert history_steps([])[:] == [] and history_steps(HISTORY[:1]) == []


def test_generic_labels_never_show_langgraph_internals() -> None:
    assert generic_label(["answer_retry"]) == "Answer retry"
    assert generic_label(["expert:physics", "expert:physics"]) == "Expert: physics ×2"
    assert generic_label(["__start__"]) == "The run"
    assert generic_label(["__interrupt__"]) == "Paused"
    assert "__" not in generic_label(["__start__", "planner", "__interrupt__"])


def test_a_namer_names_steps_and_a_failing_namer_falls_back() -> None:
    seen: list[StepContext] = []

    def namer(ctx: StepContext) -> str | None:
        seen.append(ctx)
        return "All workers answered" if ctx.nodes[0] == "worker" else None

    steps = history_steps(HISTORY, namer)
    assert [s.label for s in steps] == ["All workers answered", "Summarise"]
    assert seen[0].before == {"topic": "tides"} and seen[0].writes == [{"answers": [1]}, {"answers": [2]}]

    def broken(ctx: StepContext) -> str:
        raise KeyError("round")

    assert [s.label for s in history_steps(HISTORY, broken)] == ["Worker ×2", "Summarise"]


def test_replay_of_a_real_run(store: RunStore, settings) -> None:  # noqa: ANN001
    runs.execute("demo.fanout", {"topic": "the Moon", "workers": 3}, store=store, settings=settings)
    (info,) = store.list_runs()
    steps = runs.replay(info.id, store=store, settings=settings)
    assert [(s.number, s.label) for s in steps] == [(1, "Worker ×3"), (2, "Summarise")]
    assert len(steps[0].values["answers"]) == 3 and steps[1].values["summary"]


def test_replay_of_a_failed_run_ends_with_the_failure(store: RunStore, settings, fake_server) -> None:  # noqa: ANN001
    fake_server.inject("500", times=1, match="demo worker 1")
    try:
        runs.execute("demo.fanout", {"topic": "the Moon", "workers": 3}, store=store, settings=settings)
    except runs.RunFailed:
        pass
    (info,) = store.list_runs()
    steps = runs.replay(info.id, store=store, settings=settings)
    # how many siblings finished before the failure depends on timing; the replay ends saying it stopped
    assert [s.number for s in steps] == [1] and steps[0].label.startswith("Stopped: worker")
    assert steps[0].label.endswith("failed") and not steps[0].paused
