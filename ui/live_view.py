"""Following a run live: consume ``runs.stream_run`` events into ``st.status`` boxes, cards and counters.

One consumer for every page that starts or resumes a run. What-if runs get phase boxes, expert tabs per
round filled as experts finish, streaming tokens, the shared frame with its diff and usage counters; other
kinds get a generic step log. Failures are shown with what was kept and left resumable.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import streamlit as st

from ifworld import runs
from ifworld.events import Event
from ifworld.llm import usage_totals
from ifworld.redact import redact
from ifworld.safe_text import inert_markdown
from ui import whatif_view
from ui.common import current_settings, safe_md, show_error, store

TOKEN_TAIL_CHARS = 900
TOKEN_REFRESH_S = 0.25
USAGE_REFRESH_S = 0.5


def find_expert_outputs(update: Any, depth: int = 0) -> dict[str, dict]:
    """Expert outputs inside a step update, wherever the engine put them ({domain: output})."""
    found: dict[str, dict] = {}
    if depth > 3:
        return found
    if isinstance(update, dict):
        if "verdict" in update and ("key_causal_edges" in update or "conclusions" in update):
            if update.get("domain"):
                found[str(update["domain"])] = update
            return found
        for key, value in update.items():
            if isinstance(value, dict) and "verdict" in value and not value.get("domain"):
                found[str(key)] = value
            else:
                found.update(find_expert_outputs(value, depth + 1))
    elif isinstance(update, list):
        for item in update:
            found.update(find_expert_outputs(item, depth + 1))
    return found


class LiveWhatIf:
    """Renders one what-if run's events as they arrive."""

    def __init__(self, run_id: str, experts: list[str]) -> None:
        self.run_id, self.experts = run_id, list(experts)
        self.usage_box = st.empty()
        self.token_box = st.empty()
        self.status: Any = None
        self.tabs: dict[int, dict[str, Any]] = {}
        self.tokens: dict[str, str] = {}
        self.round = 1
        self._last_tokens = self._last_usage = 0.0

    def _open(self, label: str) -> None:
        if self.status is not None:
            self.status.update(state="complete", expanded=False)
        self.status = st.status(label, expanded=True)

    def _slots(self, rnd: int) -> dict[str, Any]:
        if rnd not in self.tabs:
            if self.status is None:
                self._open(f"Experts, round {rnd}")
            with self.status:
                names = self.experts or ["experts"]
                labels = [inert_markdown(n) for n in names]  # a model-chosen panel: labels render Markdown
                self.tabs[rnd] = {d: t.empty() for d, t in zip(names, st.tabs(labels), strict=True)}
                for slot in self.tabs[rnd].values():
                    slot.caption("waiting…")
        return self.tabs[rnd]

    def _expert(self, rnd: int, domain: str, output: dict | None = None, error: str | None = None,
                started: bool = False) -> None:
        slots = self._slots(rnd)
        slot = slots.get(domain)
        if slot is None:
            return
        with slot.container():
            if error:
                show_error(f"{domain} failed: {error}")
            elif output:
                whatif_view.render_expert(domain, output)
            elif started:
                st.caption(f"⏳ {domain} is thinking…")
            else:
                st.caption(f"✅ {domain} done")

    def usage(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_usage > USAGE_REFRESH_S:
            self._last_usage = now
            with self.usage_box.container():
                whatif_view.render_usage(usage_totals(store().calls(self.run_id)))

    def handle(self, event: Event) -> None:
        data = event.data or {}
        if event.type == "progress":
            self._progress(data)
        elif event.type == "token":
            role = str(data.get("role") or event.node or "model")
            self.tokens[role] = (self.tokens.get(role, "") + str(data.get("text", "")))[-TOKEN_TAIL_CHARS:]
            if time.monotonic() - self._last_tokens > TOKEN_REFRESH_S:
                self._last_tokens = time.monotonic()
                safe_md(f"✍️ {role}: …{redact(self.tokens[role])[-400:]}", self.token_box.caption)
        elif event.type == "step_finished":
            if isinstance(data.get("panel"), list) and data["panel"] and not self.tabs:
                self.experts = [str(d) for d in data["panel"]]
            items = [o for o in data.get("outputs") or [] if isinstance(o, dict) and "round" in o]
            for item in items:
                self._expert(int(item["round"]), str(item.get("domain")), output=item.get("output"),
                             error=item.get("error"))
            if not items:
                for domain, output in find_expert_outputs(data).items():
                    self._expert(self.round, domain, output)
            self.usage()
        elif event.type == "step_failed" and self.status is not None:
            self.status.warning(f"{event.node}: {data.get('error', '')[:300]}")
        elif event.type == "run_finished":
            if self.status is not None:
                self.status.update(state="complete", expanded=False)
            self.token_box.empty()
            self.usage(force=True)

    def _progress(self, data: dict[str, Any]) -> None:
        kind = data.get("kind")
        rnd = int(data.get("round") or self.round or 1)
        if kind == "phase":
            self.round = rnd
            phase = str(data.get("phase", "working"))
            self._open(f"{phase.capitalize()}" + (f" — round {rnd}" if data.get("round") else ""))
        elif kind in ("expert_started", "expert_done", "expert_failed"):
            self.round = rnd
            self._expert(rnd, str(data.get("domain")), output=data.get("output"),
                         error=data.get("error", "failed") if kind == "expert_failed" else None,
                         started=kind == "expert_started")
        elif kind == "frame_built":
            target = self.status if self.status is not None else st.container()
            with target:
                st.markdown(f"**Shared frame after round {rnd}**")
                whatif_view.render_frame(data.get("frame"), data.get("diff"))
        elif kind == "round_done" and self.status is not None:
            self.status.caption(f"Round {rnd} done.")
        elif kind == "report_done" and self.status is not None:
            self.status.caption("Report written.")


def follow_run(run_id: str, *, resume: bool | None = None, show_failures: bool = True) -> dict[str, Any] | None:
    """Stream a run into the page; return its record, or None after a failure or a cancel (shown unless
    the caller shows it itself; the run stays resumable).

    The event stream is closed however this ends — including when Streamlit stops the script because the
    user left the page — so the run's lease is released at once and the run reads as interrupted.
    """
    info = store().get_run(run_id)
    live = LiveWhatIf(run_id, info.params.get("experts") or []) if info.kind == "whatif" else None
    log = None if live else st.status(f"Running {info.title}", expanded=True)
    try:
        stream = runs.stream_run(run_id, store=store(), settings=current_settings(), resume=resume)
        events = iter(stream)
        first = next(events)  # takes the lease: a run live elsewhere fails here, before any output
    except runs.RunLive as exc:
        show_error(str(exc), st.warning)
        return None
    try:
        for event in itertools.chain([first], events):
            if live:
                live.handle(event)
            elif event.type in ("step_finished", "step_failed"):
                log.write(f"{'✅' if event.type == 'step_finished' else '⚠️'} {event.node}")
            if event.type == "run_cancelled":
                if log:
                    log.update(label="Cancelled", state="error", expanded=False)
                st.warning(f"Run `{run_id}` was cancelled; what finished is kept — resume it to continue.")
                return None
            if event.type == "run_finished":
                if log:
                    log.update(label="Finished", state="complete", expanded=False)
                return event.data.get("record")
    except runs.RunFailed as exc:
        if log:
            log.update(label="Failed", state="error")
        if show_failures:
            show_failure(run_id, str(exc))
    finally:
        stream.close()
    return None


def show_failure(run_id: str, message: str) -> None:
    """What went wrong and what was kept (finished model calls are in the checkpoint; resume reuses them)."""
    calls = store().calls(run_id)
    ok = [c for c in calls if c.get("status") in ("ok", "success", None)]
    show_error(f"The run stopped: {message}")
    st.caption(f"Kept: {len(ok)} finished model call(s) of {len(calls)}; finished steps are checkpointed, so "
               "resuming re-runs only what did not finish.")
