"""Shared fixtures: an isolated environment, the fake OpenAI server, settings bound to it, a temp store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ifworld.config import Settings, load_settings
from ifworld.runs.store import RunStore
from tests.fixtures.fake_openai import FakeOpenAI

LEAKY_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
pytest_plugins = ["tests.fixtures.postgres"]  # pg_server, pg_url, any_store: a throwaway PostgreSQL cluster


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test sees the developer's keys or run store."""
    for key in list(os.environ):
        if key.startswith("IFWORLD_") or key in LEAKY_ENV:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("IFWORLD_DB", str(tmp_path / "runs.sqlite"))
    from ifworld.llm import context

    context.clear_cache()  # a window or tokenizer probed by an earlier test's server is not this test's
    monkeypatch.setenv("IFWORLD_WARMUP", "0")  # no import thread left running in the test process by AppTest
    yield


@pytest.fixture(autouse=True)
def app_binds_loopback() -> None:
    """Serve AppTest sessions as the app's own .streamlit/config.toml says (``server.address = 127.0.0.1``,
    loopback mode: the local browser is the facilitator) whatever the working directory: Streamlit reads that
    file from the directory it starts in, and without it an address is unset — network mode, where every
    session is a visitor until it signs in (what tests of roles ask for with ``IFWORLD_REQUIRE_SIGNIN``)."""
    from streamlit import config

    config.get_option("server.address")  # parse the files first, so they cannot override the value below
    config.set_option("server.address", "127.0.0.1")


@pytest.fixture(autouse=True)
def app_serves_phone_page(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Page tests (AppTest) run ``app.py`` as ``ifworld app`` serves it, with the phone page mounted beside it
    (``ui/asgi.py`` sets the flag): the facilitator is offered a workshop and its link leads to ``/p/``. The one
    test of plain ``streamlit run app.py`` turns it off again."""
    if request.path.parent.name in ("pages", "security"):
        from ui import phone_server

        monkeypatch.setattr(phone_server, "SERVED", True)


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAI]:
    """A fresh fake OpenAI-compatible server on 127.0.0.1 with all subsystem scripts loaded."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def settings(fake_server: FakeOpenAI) -> Settings:
    """Settings pointing at the fake server; no retries, short timeouts (tests of retries override)."""
    return load_settings({"base_url": fake_server.url, "model": "fake-model", "max_retries": 0,
                          "timeout_s": 5, "retry_backoff_s": 0.01, "max_concurrency": 8})


@pytest.fixture
def llm_env(fake_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """Environment variables pointing at the fake server (for CLI and AppTest)."""
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_MODEL", "fake-model")
    monkeypatch.setenv("IFWORLD_MAX_RETRIES", "0")
    monkeypatch.setenv("IFWORLD_TIMEOUT_S", "5")
    return fake_server


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    s = RunStore(tmp_path / "store.sqlite")
    yield s
    s.close()
