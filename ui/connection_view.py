"""The model connection as the facts left it, on every page: the sidebar's connection panel and status line,
Settings' status box, the *Test connection* button, and the check a page makes before it starts a long job.

The state comes from :mod:`ifworld.llm.status` (last test, preflight or call of this app process): 🟢 only after
an answer, 🔴 "failing since …" after a failure, ⚪ untested before either — never green after a failure.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ifworld.toolkit import DEMO_MODEL, Settings, inert_markdown
from ui.common import current_settings, open_store, show_error, store
from ui.connection_memory import NOTICE, remember, restore
from ui.identity import caller, is_facilitator

ICONS = {"ok": "🟢", "failing": "🔴", "untested": "⚪"}
REPORT_AT = "conn_report_at"
"""Session key: which Test connection button (sidebar or Settings) the last report belongs under."""


def _status(settings: Settings) -> Any:
    from ifworld.llm import connection_status

    return connection_status(settings)


def status_text(settings: Settings) -> str:
    """The sidebar's one line: "🟢 model @ endpoint", "🔴 … failing since 20:40:55", "⚪ … untested"."""
    if not settings.enabled:
        return "⚪ no model connected"
    status = _status(settings)
    where = f"{settings.model} @ {settings.endpoint_label}"
    if status.state == "ok":
        return f"🟢 {where}"
    if status.state == "failing":
        return f"🔴 {where} — {status.line()}"
    return f"⚪ {where} — untested"


def sidebar_status(settings: Settings) -> None:
    """The sidebar's status caption (see :func:`status_text`)."""
    st.sidebar.caption(inert_markdown(status_text(settings)))


def status_box(settings: Settings, target: Any = None) -> None:
    """Settings' box: configured endpoint and model, coloured by the connection's state (not by configuration).
    ``target``: a container or ``st.empty()`` slot (default: the page)."""
    status = _status(settings)
    text = f"**{settings.endpoint_label}**, default model **{settings.model}** — connection {status.line()}"
    where = st if target is None else target
    box = {"ok": where.success, "failing": where.error, "untested": where.info}[status.state]
    box(inert_markdown(text), icon=ICONS[status.state])


def test_button(key: str, settings: Settings) -> None:
    """A "Test connection" button: latency, tokens/s and the structured-output method, or the cause and address."""
    if st.button("Test connection", key=key, disabled=not settings.enabled):
        from ifworld.llm import test_connection  # heavy import, only when asked

        with st.spinner(f"Calling the model at {settings.endpoint_label}…"):
            st.session_state["conn_report"] = test_connection(settings)
        st.session_state[REPORT_AT] = key  # the result shows under the button that was pressed
        st.rerun()  # the sidebar (drawn before the page) shows the new state too: never a stale green
    report = st.session_state.get("conn_report")
    if report is None or st.session_state.get(REPORT_AT, key) != key:
        return
    if report.ok:
        speed = f" · {report.tokens_per_s:.1f} tokens/s" if report.tokens_per_s else ""
        method = f" · structured output: {report.method or 'none working'}"
        window = (f" · context window {report.context_tokens:,} tokens ({report.context_source})"
                  if report.context_tokens else "")
        text = f"{report.model}: {report.latency_s * 1000:.0f} ms{speed}{method}{window} — {report.message}"
        (st.success if report.structured_ok else st.warning)(inert_markdown(text))
    else:
        st.error(inert_markdown(f"{report.model}: {report.message}"), icon="🔴")


MODEL_KINDS = ("whatif", "rws")
MODEL_WORKFLOWS = ("beliefs.llm",)
"""Runs that call a model (the others — heuristic belief runs, sweeps — start without a check)."""


def calls_model(workflow: str) -> bool:
    """Does a run of ``workflow`` call a model?"""
    return workflow.split(".")[0] in MODEL_KINDS or workflow in MODEL_WORKFLOWS


def model_reachable(settings: Settings, notice_key: str | None = None) -> bool:
    """Before a page starts a long job: check the endpoint in seconds. On failure show the cause and address
    (and turn the status red) and return False, so the job is not started. ``notice_key``: also keep the
    message in that session key, for a page that reruns before showing it."""
    from ifworld.llm import ModelUnreachable, preflight

    try:
        with st.spinner(f"Checking the model at {settings.endpoint_label}…"):
            preflight(settings)
    except ModelUnreachable as exc:
        text = f"**The job was not started.** {exc.failure.message}"
        st.error(inert_markdown(text), icon="🔴")
        if notice_key:
            st.session_state[notice_key] = text
        return False
    return True


def reachable_now() -> bool:
    """:func:`model_reachable` with this session's settings (for buttons that call a model once, e.g. the judge)."""
    return model_reachable(current_settings())


def retry_line(events: list[Any]) -> str | None:
    """The latest "waiting for the model — retry k of n: …" of a run's live events, if it is the latest news
    (a later finished step means the model answered since)."""
    for event in reversed(events):
        data = getattr(event, "data", None) or {}
        if event.type == "progress" and data.get("kind") == "model_retry":
            return str(data.get("text") or "")
        if event.type in ("step_finished", "run_finished", "run_failed"):
            return None
    return None


def show_retry(events: list[Any]) -> None:
    """Under a live run: the retry it waits on, if any ("⏳ waiting for the model — retry 2 of 3: …")."""
    line = retry_line(events)
    if line:
        st.warning(inert_markdown(line), icon="⏳")


class RetryNote:
    """For a page that streams a run's events itself: one slot that shows the retry being waited on and
    clears when the model answers again."""

    def __init__(self) -> None:
        self.slot = st.empty()

    def handle(self, event: Any) -> None:
        data = getattr(event, "data", None) or {}
        if event.type == "progress" and data.get("kind") == "model_retry":
            self.slot.warning(inert_markdown(str(data.get("text") or "")), icon="⏳")
        elif event.type in ("step_finished", "token", "run_finished", "run_failed", "run_cancelled"):
            self.slot.empty()


def use_demo_model() -> None:
    """On-click of "Use the demo model": the sidebar's connection becomes this process's own demo server (its
    canned answers are labelled [demo]); the key is cleared, the demo needs none. A callback, so the fields show
    the new values in the run the click starts."""
    from ifworld.llm import builtin_demo_url

    st.session_state.update(conn_base_url=builtin_demo_url(caller()), conn_model=DEMO_MODEL, conn_api_key="")
    remember(store)  # a reload keeps the demo model too


def demo_button(key: str) -> None:
    """The facilitator's "Use the demo model" button (the caller draws it for the facilitator only)."""
    st.button("🎭 Use the demo model", key=key, on_click=use_demo_model,
              help="Canned answers labelled [demo], served by this app — to try every page without a model.")


def sidebar() -> None:
    """Model connection panel: endpoint, model (both kept for the next visit), key (never stored), test button."""
    settings = current_settings()
    restore(lambda: open_store(settings.store), settings.store)  # not store(): a broken one must not stop the page
    with st.sidebar.expander("Model connection", expanded=not settings.enabled):
        st.text_input("Base URL", key="conn_base_url", placeholder=settings.base_url or "http://localhost:11434/v1",
                      on_change=remember, args=(store,),
                      help="Any OpenAI-compatible endpoint. Empty = IFWORLD_BASE_URL, or OpenAI if only a key is set. "
                           "Kept for the next visit, with the model name (never the key).")
        st.text_input("Model", key="conn_model", placeholder=settings.model, on_change=remember, args=(store,))
        notice = st.session_state.pop(NOTICE, None)
        if notice:
            show_error(notice)
        st.text_input("API key", key="conn_api_key", type="password",
                      placeholder="set" if settings.api_key else "not set",
                      help="Kept in this browser session only; never written to the run store, logs or exports.")
        connection_check("conn_test")
        if is_facilitator():
            demo_button("conn_demo")
    sidebar_status(current_settings())  # ok / failing since … / untested: never green after a failure
    st.sidebar.caption(f"Run store: `{settings.store_label}`")


def connection_check(key: str) -> None:
    """A "Test connection" button: latency, tokens/s and the structured-output method, or the cause and address."""
    test_button(key, current_settings())
