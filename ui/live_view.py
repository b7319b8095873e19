"""Following a run live: consume ``runs.stream_run`` events into ``st.status`` boxes, cards and counters.

One consumer for every page that starts or resumes a run. What-if runs get a progress bar with an ETA, one
status line, expert tabs per round filled from typed ``expert_done`` events (which carry the output), the
streaming tail, and each round's deliberation view, kept on the page; other kinds get a generic
step log. Failures are shown with what was kept and left resumable.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import streamlit as st

from ifworld import runs
from ifworld.llm import call_counts, usage_totals
from ifworld.runs import Event, ExpertPartial
from ifworld.toolkit import inert_markdown, redact
from ifworld.whatif import (
    BaselineStepDone,
    ExpertDone,
    ExpertFailed,
    ExpertOutput,
    ExpertStarted,
    FrameBuilt,
    PhaseEvent,
    ReportDone,
    RoundDone,
    estimate_calls,
    parse_progress,
    session_progress,
    step_label,
)
from ui import whatif_view
from ui.common import current_settings, inert, show_error, store
from ui.connection_view import RetryNote, calls_model, model_reachable
from ui.deliberation_view import render_deliberation
from ui.identity import caller
from ui.partial_view import render_partial
from ui.role_labels import role_label

TOKEN_TAIL_CHARS = 900
PHASE_LABELS = {"refine": "Refining the proposition", "experts": "Experts are reasoning",
                "synthesis": "Detecting and adjudicating conflicts, debating", "report": "Writing the report",
                "repair": "Consistency check: one repair turn", "panel": "The refiner added expert(s)"}


class LiveWhatIf:
    """Draws one what-if run from its typed events (:mod:`ifworld.whatif.records`): the What-if page's live
    panel replays the run's feed into it every second, then calls :meth:`flush`.

    Layout, top to bottom: one progress bar (calls, elapsed, ETA) with one status line naming the step that is
    running; usage counters; the streaming tail; then one block per round — expert tabs filled as experts
    finish and, when the round's frame is built, its deliberation view."""

    def __init__(self, run_id: str, experts: list[str], params: dict[str, Any], *, since: float) -> None:
        self.run_id, self.experts, self.params = run_id, list(experts), params
        self.since = since  # when this drive (start, continue or resume) began
        self.running: dict[str, str] = {}  # task id -> node, for the status line
        self.thinking: dict[str, None] = {}  # experts whose call is under way (ordered)
        self.round = 0
        self.bar = st.empty()  # progress, counters, status and tokens are drawn once, in flush()
        self.status_line = st.empty()
        self.usage_box = st.empty()
        self.token_box = st.empty()
        self.rounds_area = st.container()
        self.rounds: dict[int, dict[str, Any]] = {}
        self.tokens: dict[str, str] = {}
        self.phase = "Starting"

    def _round(self, rnd: int) -> dict[str, Any]:
        if rnd not in self.rounds:
            with self.rounds_area:
                st.markdown(f"#### Round {rnd}")
                names = self.experts or ["experts"]
                labels = [inert_markdown(n) for n in names]  # a model-chosen panel: labels render Markdown
                slots = {d: t.empty() for d, t in zip(names, st.tabs(labels), strict=True)}
                for slot in slots.values():
                    slot.caption("waiting…")
                self.rounds[rnd] = {"slots": slots, "deliberation": st.container()}
        return self.rounds[rnd]

    def _expert(self, rnd: int, domain: str, output: ExpertOutput | None = None, error: str | None = None,
                started: bool = False) -> None:
        slot = self._round(rnd)["slots"].get(domain)
        if slot is None:
            return
        with slot.container():
            if error:
                show_error(f"{domain} failed: {error}")
            elif output is not None:
                whatif_view.render_expert(domain, output)
            elif started:
                st.caption(f"⏳ {domain} is thinking…")

    def _partial(self, ev: ExpertPartial) -> None:
        slot = self._round(ev.round)["slots"].get(ev.domain)
        if slot is not None:
            render_partial(slot, ev.domain, ev.partial)

    def _usage(self) -> None:
        calls = store().calls(self.run_id)
        total = estimate_calls({**self.params, "experts": self.experts})  # the panel as it is now
        prog = session_progress(calls, total, self.since, time.time())
        self.bar.progress(prog.fraction, text=prog.text())
        with self.usage_box.container():
            whatif_view.render_usage(usage_totals(calls))

    def _status(self, text: str) -> None:
        self.phase = text

    def flush(self) -> None:
        """Draw what a replayed feed left: the step running now, the token tail, progress and usage."""
        running = [step_label(node, self.round, list(self.thinking)) for node in self.running.values()]
        text = " · ".join(dict.fromkeys(running)) or self.phase
        inert(self.status_line).caption(f"⚙️ {text}")
        if self.tokens:
            role, tail = next(reversed(self.tokens.items()))
            inert(self.token_box).caption(f"✍️ {role_label(role)}: …{redact(tail)[-400:]}")
        self._usage()

    def handle(self, event: Event) -> None:
        data = event.data or {}
        if event.type == "step_started" and event.node:
            self.running[str(data.get("task_id") or len(self.running))] = event.node
        elif event.type == "step_failed":
            self.running.pop(str(data.get("task_id")), None)
        elif event.type == "step_finished":  # updates carry no task id: one task of that node is done
            done = next((k for k, v in self.running.items() if v == event.node), None)
            self.running.pop(done, None)
        if event.type == "progress" and isinstance(data.get("round"), int) and data.get("kind") != "phase":
            self.round = max(self.round, int(data["round"]))
        if event.type == "progress" and data.get("kind") == "expert_partial":
            self._partial(ExpertPartial.model_validate(data))
        elif event.type == "progress":
            payload = parse_progress(data)
            if payload is not None:
                self._progress(payload)
        elif event.type == "token":
            role = str(data.get("role") or event.node or "model")
            self.tokens[role] = (self.tokens.get(role, "") + str(data.get("text", "")))[-TOKEN_TAIL_CHARS:]
        elif event.type == "step_finished":
            if isinstance(data.get("panel"), list) and data["panel"] and not self.rounds:
                self.experts = [str(d) for d in data["panel"]]
        elif event.type == "step_failed":
            self._status(f"{event.node}: {str(data.get('error', ''))[:300]}")

    def _progress(self, ev: Any) -> None:
        if isinstance(ev, PhaseEvent):
            label = PHASE_LABELS.get(ev.phase, ev.phase.capitalize())
            if ev.phase == "repair":
                label += f" ({ev.part}: {len(ev.violations)} violation(s))"
            elif ev.phase == "panel":
                label += f": {ev.part}"
            self._status(label + (f" — round {ev.round}" if ev.round else ""))
        elif isinstance(ev, ExpertStarted):
            self.thinking[ev.domain] = None
            self._expert(ev.round, ev.domain, started=True)
        elif isinstance(ev, ExpertDone):
            self.thinking.pop(ev.domain, None)
            self._expert(ev.round, ev.domain, output=ev.output)
        elif isinstance(ev, BaselineStepDone):
            self._status(f"{ev.domain} done" + (f" — round {ev.round}" if ev.round else ""))
        elif isinstance(ev, ExpertFailed):
            self.thinking.pop(ev.domain, None)
            self._expert(ev.round, ev.domain, error=ev.error)
        elif isinstance(ev, FrameBuilt):
            with self._round(ev.round)["deliberation"]:
                st.markdown(f"**🧭 Deliberation after round {ev.round}**")
                render_deliberation(ev.frame, ev.diff, None, f"live_{self.run_id}_r{ev.round}")
        elif isinstance(ev, RoundDone):
            self._status(f"Round {ev.round} done ({ev.ok} expert(s) answered"
                         + (f"; failed: {', '.join(ev.failed)}" if ev.failed else "") + ")")
        elif isinstance(ev, ReportDone):
            self._status("Report written and checked.")


class StepLog:
    """The generic view: one status box listing finished steps (workflows without a view of their own)."""

    def __init__(self, title: str) -> None:
        self.box = st.status(f"Running {inert(title)}", expanded=True)

    def handle(self, event: Event) -> None:
        if event.type in ("step_finished", "step_failed"):
            self.box.write(f"{'✅' if event.type == 'step_finished' else '⚠️'} {event.node}")
        elif event.type == "run_finished":
            self.box.update(label="Finished", state="complete", expanded=False)
        elif event.type == "run_cancelled":
            self.box.update(label="Cancelled", state="error", expanded=False)
        elif event.type == "run_failed":
            self.box.update(label="Failed", state="error")


def live_view_for(info: Any) -> Any:
    """The view that renders a run's events, by workflow: anything with ``handle(event)``."""
    if info.workflow == "beliefs.llm":
        from ui.beliefs_view import LLMProgress

        config = info.params.get("config") or {}
        return LLMProgress(int(config.get("agents", 1)), int(config.get("rounds", 1)))
    if info.workflow == "rws.benchmark":
        from ui.rws_view import BenchmarkProgress

        return BenchmarkProgress(info.params)
    return StepLog(info.title)


def follow_run(run_id: str, *, resume: bool | None = None, show_failures: bool = True,
               resume_value: Any = None) -> dict[str, Any] | None:
    """Stream a run into the page; return its record, or None after a failure or a cancel (shown unless
    the caller shows it itself; the run stays resumable) or a pause for a person (``resume_value``
    answers one). The one event loop of the app: every page that starts or resumes a run calls it, and
    :func:`live_view_for` picks how the events are drawn.

    The event stream is closed however this ends — including when Streamlit stops the script because the
    user left the page — so the run's lease is released at once and the run reads as interrupted.
    """
    info = store().get_run(run_id)
    if calls_model(info.workflow) and not model_reachable(current_settings()):
        return None  # a dead endpoint: named in seconds (cause and address), the run not started
    try:
        stream = runs.stream_run(run_id, caller=caller(), store=store(), settings=current_settings(), resume=resume,
                                 resume_value=resume_value)
        first = next(stream)  # takes the lease: a run live elsewhere is refused here, before any output
    except runs.RunLive as exc:
        show_error(str(exc), st.warning)
        return None
    view, note = live_view_for(info), RetryNote()
    try:
        for event in itertools.chain([first], stream):
            view.handle(event)
            note.handle(event)  # "waiting for the model — retry 2 of 3: connection refused at …"
            if event.type == "run_cancelled":
                st.warning(f"Run `{run_id}` was cancelled; what finished is kept — resume it to continue.")
                return None
            if event.type == "run_finished":
                return event.data.get("record")
    except runs.RunFailed as exc:
        if show_failures:
            show_failure(run_id, str(exc))
    finally:
        stream.close()
    return None


def show_failure(run_id: str, message: str) -> None:
    """What went wrong and what was kept (finished model calls are in the checkpoint; resume reuses them)."""
    kept, total = call_counts(store().calls(run_id))
    show_error(f"The run stopped: {message}")
    st.caption(f"Kept: {kept} finished model call(s) of {total}; finished steps are checkpointed, so "
               "resuming re-runs only what did not finish.")
