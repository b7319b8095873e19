"""Shared page furniture: session settings, the store, the no-model panel,
the run the user is looking at (:data:`CURRENT_RUN`, ``?run=ID`` links), and the safe ways to show model text
and errors (:func:`safe_md`, :func:`show_error`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import streamlit as st

from ifworld.toolkit import (
    CONNECT_HELP,
    DEMO_MODEL,
    DEMO_URL,
    Settings,
    clean_title,
    inert_markdown,
    load_settings,
    redact,
    safe_error,
)
from ui.identity import caller, is_facilitator

if TYPE_CHECKING:
    from ifworld.runs import RunStore

SIDEBAR_KEYS = ("base_url", "model", "api_key")

CURRENT_RUN = "current_run"
"""Session key shared by the pages: the id of the saved run the user is looking at (an id only, never a record).

Set by the Runs page when a run is opened, by a ``?run=ID`` link (:func:`follow_run_link`) and by the What-if
page when it starts or opens a run; read first by the Causal map and the Runs page, so each opens the run the
user was just looking at. Read it with :func:`current_run`."""
LINK_PARAM = "run"
"""Query parameter of a run's link: ``…/runs?run=ID`` opens the run on the Runs page (and Causal map)."""
MAX_LINK_ID_CHARS = 200


def init_state() -> None:
    """Global session keys (page-specific keys are prefixed with the page name)."""
    st.session_state.setdefault("conn_base_url", "")
    st.session_state.setdefault("conn_model", "")
    st.session_state.setdefault("conn_api_key", "")
    st.session_state.setdefault("conn_report", None)


def overrides() -> dict[str, Any]:
    return {k: st.session_state.get(f"conn_{k}", "") for k in SIDEBAR_KEYS}


def current_settings() -> Settings:
    """Settings with the sidebar's values on top of environment and secrets.toml — the facilitator's sidebar
    only: a participant's or visitor's session uses the configured connection, and the engine refuses a
    change from anyone else (:func:`ifworld.config.load_settings` checks the caller)."""
    return load_settings(overrides() if is_facilitator() else None, caller=caller())


@st.cache_resource(show_spinner=False)
def open_store(path: str) -> RunStore:
    """The store at ``path``, opened as it is: no page-stopping report (:func:`store` adds that)."""
    from ifworld.runs import get_store  # langgraph import is slow: only pages that need the store pay it

    return get_store(path)


def store() -> RunStore:
    """The run store for this process (shared by all sessions; safe across threads).

    A store that cannot be opened (corrupt file, read-only directory, full disk) is reported with its path
    and a way out, and the page stops there instead of showing a traceback.
    """
    from ifworld.runs import StoreError

    try:
        return open_store(current_settings().store)
    except StoreError as exc:
        if is_facilitator():
            store_problem(exc)
        else:
            reconnecting()
        st.stop()
        raise  # st.stop() raises; this keeps type checkers and readers sure nothing follows


RECONNECT_EVERY_S = 2.0
PARTICIPANT_WAIT_S = 1.5
"""How long a visitor's page here waits for an unreachable store before it says "reconnecting" (the backend's own
wait is 30 s). The room's own page, the phone page, bounds its waits itself (``ui.phone_server.READ_WAIT_S``)."""
RECONNECTING = "Reconnecting to the workshop… this page comes back by itself."


def reconnecting() -> None:
    """What a visitor (a participant who opened one of these pages) reads while the run store cannot be reached:
    one friendly line — never the store's address, user or error — and the page tries again every
    :data:`RECONNECT_EVERY_S` seconds, coming back by itself."""
    st.info(RECONNECTING, icon="🔄")
    st.session_state["_reconnect_drawn"] = True

    @st.fragment(run_every=RECONNECT_EVERY_S)
    def retry() -> None:
        from ifworld.runs import StoreError, store_patience

        if st.session_state.pop("_reconnect_drawn", False):  # drawn with the line just now: the store was found
            return                                            # down a moment ago; try on the next tick
        try:
            with store_patience(PARTICIPANT_WAIT_S):
                open_store(current_settings().store).list_runs(limit=1)  # a read: an open store whose server is down
        except StoreError:                                             # is not back yet
            return
        st.rerun(scope="app")
    retry()


def store_problem(exc: BaseException) -> None:
    """Show a run-store failure: what and where, and what to do (never a traceback)."""
    st.error(f"**The run store cannot be used.** {inert_markdown(safe_error(exc))}", icon="🗄️")
    st.caption("Everything that needs no saved runs (simulations, grading) still works on the other pages.")


def safe_md(text: Any, target: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """Render model text as Markdown that loads nothing and runs nothing (images, links and raw HTML
    shown as text; secrets masked). ``target`` is another Markdown-rendering element (``st.caption``,
    ``col.markdown``, ``slot.caption`` …); default ``st.markdown``. HTML is never allowed."""
    kwargs.pop("unsafe_allow_html", None)
    return (target or st.markdown)(inert_markdown(redact(str(text or ""))), **kwargs)


class Inert:
    """A proxy for ``st`` or a container whose text elements render model text safely:
    ``inert(col).markdown(text)`` is ``col.markdown(inert_markdown(redact(text)))``, errors are capped too.
    Other attributes pass through unchanged."""

    TEXT = ("markdown", "caption", "subheader", "header", "title", "text")
    ERRORS = ("error", "warning", "info", "success", "toast")

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._target, name)
        if name not in self.TEXT + self.ERRORS:
            return fn

        def call(body: Any = "", *args: Any, **kwargs: Any) -> Any:
            kwargs.pop("unsafe_allow_html", None)
            text = safe_error(str(body)) if name in self.ERRORS else redact(str(body))
            return fn(text if name == "text" else inert_markdown(text), *args, **kwargs)

        return call


def inert(target: Any = None) -> Inert:
    """``inert().markdown(x)`` / ``inert(col).caption(x)``: see :class:`Inert`."""
    return Inert(st if target is None else target)


def show_error(message: Any, target: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """An error box for text that may come from a model or an endpoint: masked, capped, made inert."""
    text = message if isinstance(message, str) else safe_error(message)
    return (target or st.error)(inert_markdown(safe_error(text)), **kwargs)


def model_ready(feature: str) -> bool:
    """True when a model is configured; otherwise show how to connect one and return False. ``feature`` is
    what cannot run yet, phrased to follow "A language model is needed for" (e.g. "LLM agents")."""
    if current_settings().enabled:
        return True
    st.info(
        f"**A language model is needed for {feature}.** {CONNECT_HELP}\n\n"
        "Examples:\n"
        "- OpenAI: `export OPENAI_API_KEY=sk-…`\n"
        "- Ollama: `ollama serve`, then `export IFWORLD_BASE_URL=http://localhost:11434/v1 "
        "IFWORLD_MODEL=llama3.1`\n"
        "- vLLM / LM Studio / llama.cpp server: their `/v1` URL as `IFWORLD_BASE_URL`\n"
        f"- No model at all: `ifworld demo-server --port 8765`, then `IFWORLD_BASE_URL={DEMO_URL}` and "
        f"`IFWORLD_MODEL={DEMO_MODEL}` (or the sidebar): canned answers labelled [demo], to try the app — "
        "not analysis.\n\n"
        "Everything that needs no model (simulations, grading, browsing and replaying saved runs) works now.",
        icon="🔌",
    )
    return False


def coming_soon(what: str) -> None:
    st.info(f"{what} is coming in the next release.", icon="🚧")


# -- the run the user is looking at, and links to it ----------------------------------------------------------
def current_run() -> str | None:
    """The id in :data:`CURRENT_RUN` (the run the user is looking at), if any."""
    value = st.session_state.get(CURRENT_RUN)
    return value if isinstance(value, str) and value else None


def set_current_run(run_id: str) -> None:
    """Remember ``run_id`` as the run the user is looking at and keep the page's address pointing at it
    (so the browser's own URL is the run's link too)."""
    st.session_state[CURRENT_RUN] = run_id
    st.session_state["_run_link_seen"] = run_id
    if st.query_params.get(LINK_PARAM) != run_id:
        st.query_params[LINK_PARAM] = run_id


def follow_run_link() -> None:
    """Apply a ``?run=ID`` link: the id of a saved run becomes :data:`CURRENT_RUN` (once per link, so the user
    can move on to other runs). An unknown, over-long or hostile id is reported — shown as plain text, never as
    Markdown or HTML — and ignored."""
    raw = st.query_params.get(LINK_PARAM)
    if raw is None or raw == st.session_state.get("_run_link_seen"):
        return
    run_id = raw.strip()
    known = False
    if 0 < len(run_id) <= MAX_LINK_ID_CHARS:
        try:
            store().get_run(run_id)
            known = True
        except KeyError:
            known = False
    if not known:
        st.warning("The link names a run this app has not saved (mistyped, deleted, or from another "
                   "installation). Showing the saved runs instead. The link asked for:", icon="🔗")
        st.text(clean_title(raw, MAX_LINK_ID_CHARS) or "(an empty id)")
        return
    st.session_state["_run_link_seen"] = run_id
    st.session_state[CURRENT_RUN] = run_id


def run_link(run_id: str, page: str) -> str:
    """The address that opens ``run_id`` on a page: the page's own URL (``st.context.url``, without its query)
    plus ``?run=ID``; when the app's address is unknown, the page path (``/runs?run=ID``)."""
    base = st.context.url or f"/{page}"
    return f"{base.split('?', 1)[0]}?{urlencode({LINK_PARAM: run_id})}"


def show_run_link(run_id: str, page: str) -> None:
    """The run's link, ready to copy (send it to a class: it opens this run on this page)."""
    st.caption("🔗 Link to this run — anyone with access to this app opens it with:")
    st.code(run_link(run_id, page), language=None, wrap_lines=True)  # not a scrolling box on a narrow screen
