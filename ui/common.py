"""Shared page furniture: session settings, the model-connection sidebar, the store, the no-model panel,
and the safe ways to show model text and errors (:func:`safe_md`, :func:`show_error`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import streamlit as st

from ifworld.config import CONNECT_HELP, DEMO_MODEL, DEMO_URL, Settings, load_settings
from ifworld.redact import redact, safe_error
from ifworld.safe_text import inert_markdown

if TYPE_CHECKING:
    from ifworld.runs import RunStore

SIDEBAR_KEYS = ("base_url", "model", "api_key")


def init_state() -> None:
    """Global session keys (page-specific keys are prefixed with the page name)."""
    st.session_state.setdefault("conn_base_url", "")
    st.session_state.setdefault("conn_model", "")
    st.session_state.setdefault("conn_api_key", "")
    st.session_state.setdefault("conn_report", None)


def overrides() -> dict[str, Any]:
    return {k: st.session_state.get(f"conn_{k}", "") for k in SIDEBAR_KEYS}


def current_settings() -> Settings:
    """Settings with the sidebar's values on top of environment and secrets.toml."""
    return load_settings(overrides())


@st.cache_resource(show_spinner=False)
def _store(path: str) -> RunStore:
    from ifworld.runs import get_store  # langgraph import is slow: only pages that need the store pay it

    return get_store(path)


def store() -> RunStore:
    """The run store for this process (shared by all sessions; safe across threads).

    A store that cannot be opened (corrupt file, read-only directory, full disk) is reported with its path
    and a way out, and the page stops there instead of showing a traceback.
    """
    from ifworld.runs import StoreError

    try:
        return _store(str(current_settings().db_path))
    except StoreError as exc:
        store_problem(exc)
        st.stop()
        raise  # st.stop() raises; this keeps type checkers and readers sure nothing follows


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


def sidebar() -> None:
    """Model connection panel: endpoint, model, key (never stored), test button."""
    settings = current_settings()
    with st.sidebar.expander("Model connection", expanded=not settings.enabled):
        st.text_input("Base URL", key="conn_base_url", placeholder=settings.base_url or "http://localhost:11434/v1",
                      help="Any OpenAI-compatible endpoint. Empty = IFWORLD_BASE_URL, or OpenAI if only a key is set.")
        st.text_input("Model", key="conn_model", placeholder=settings.model)
        st.text_input("API key", key="conn_api_key", type="password",
                      placeholder="set" if settings.api_key else "not set",
                      help="Kept in this browser session only; never written to the run store, logs or exports.")
        connection_check("conn_test")
    status = f"🟢 {settings.model} @ {settings.endpoint_label}" if settings.enabled else "⚪ no model connected"
    st.sidebar.caption(status)
    st.sidebar.caption(f"Run store: `{settings.db_path}`")


def connection_check(key: str) -> None:
    """A "Test connection" button: latency, tokens/s and the structured-output method in use, or the error."""
    if st.button("Test connection", key=key, disabled=not current_settings().enabled):
        from ifworld.llm import test_connection  # heavy import, only when asked

        with st.spinner("Calling the model…"):
            st.session_state["conn_report"] = test_connection(current_settings())
    report = st.session_state.get("conn_report")
    if report is not None:
        if report.ok:
            speed = f" · {report.tokens_per_s:.1f} tokens/s" if report.tokens_per_s else ""
            method = f" · structured output: {report.method or 'none working'}"
            text = f"{report.model}: {report.latency_s * 1000:.0f} ms{speed}{method} — {report.message}"
            (st.success if report.structured_ok else st.warning)(text)
        else:
            show_error(f"{report.model}: {report.message}")


def model_ready(feature: str) -> bool:
    """True when a model is configured; otherwise show how to connect one and return False."""
    if current_settings().enabled:
        return True
    st.info(
        f"**{feature} needs a language model.** {CONNECT_HELP}\n\n"
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
