"""LangSmith tracing: disclosed on the About page when the environment turns it on, and switchable off."""

from __future__ import annotations

import pytest

from ifworld.llm import tracing
from tests.security.helpers import open_page


@pytest.fixture(autouse=True)
def _reset_tracing():  # noqa: ANN202
    yield
    import langsmith

    langsmith.configure(enabled=None)  # back to "follow the environment"


def test_about_page_discloses_tracing_and_switches_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_PROJECT", "my-project")
    assert tracing.tracing_active()
    at = open_page("settings")
    assert not at.exception, at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "LANGSMITH_TRACING=true" in warning and "my-project" in warning and "every prompt" in warning
    assert at.toggle(key="settings_tracing").value is True
    at.toggle(key="settings_tracing").set_value(False).run()
    assert not tracing.tracing_active()  # the callback manager now builds no LangSmith tracer
    from langchain_core.callbacks.manager import CallbackManager
    from langchain_core.tracers.langchain import LangChainTracer

    manager = CallbackManager.configure()
    assert not any(isinstance(h, LangChainTracer) for h in manager.handlers)
    assert "Tracing is **off**" in " ".join(c.value for c in at.caption)


def test_about_page_says_tracing_is_off_when_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in tracing.TRACING_VARS:
        monkeypatch.delenv(name, raising=False)
    at = open_page("settings")
    assert not at.exception and not at.warning
    assert "LangSmith tracing is off" in " ".join(c.value for c in at.caption)
    assert not tracing.tracing_active()
