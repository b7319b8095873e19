"""The facilitator's Base URL and model survive a reload (issue #42 item 5): saved in the run store by the engine,
which refuses anyone but the facilitator and anything that is not a plain http(s) address — never the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ifworld.access import OPERATOR, AccessDenied, Caller, Role
from ifworld.errors import ConfigError
from ifworld.runs.store import RunStore, get_store
from ifworld.saved_connection import MAX_URL_CHARS, save_connection, saved_connection

APP = str(Path(__file__).resolve().parents[1] / "app.py")
KEY = "sk-typed-in-the-sidebar-NEVER-STORED-4242"


@pytest.fixture
def store(tmp_path: Path):  # noqa: ANN201
    s = RunStore(tmp_path / "runs.sqlite")
    yield s
    s.close()


@pytest.mark.parametrize("who", [Caller(role=Role.PARTICIPANT, participant="p1"), Caller(role=Role.VISITOR), None])
def test_only_the_facilitator_saves(store: RunStore, who: Caller | None) -> None:
    save_connection(store, OPERATOR, "http://192.168.1.20:11434/v1", "llama3.1")
    with pytest.raises(AccessDenied, match="only the facilitator"):
        save_connection(store, who, "http://evil.example/v1", "steal")
    assert saved_connection(store).base_url == "http://192.168.1.20:11434/v1"


@pytest.mark.parametrize("url, why", [
    ("ftp://models.example/v1", "not an http"), ("javascript:alert(1)", "not an http"),
    ("localhost:8080", "not an http"),
    ("http://admin:hunter2@10.0.0.7/v1", "user name or password"), ("http://10.0.0.7/v1\nX-Evil: 1", "control"),
    ("http://h.example/" + "a" * MAX_URL_CHARS, "at most"),
])
def test_what_is_not_a_plain_address_is_refused_and_nothing_changes(store: RunStore, url: str, why: str) -> None:
    save_connection(store, OPERATOR, "https://api.example.org/v1", "m")
    with pytest.raises(ConfigError, match=why):
        save_connection(store, OPERATOR, url, "m")
    assert saved_connection(store).base_url == "https://api.example.org/v1"


def test_an_unreadable_saved_value_reads_as_nothing_saved(store: RunStore) -> None:
    with store._tx(immediate=True) as c:
        c.execute("INSERT INTO ifw_meta (key, value) VALUES ('saved_connection', '{not json')")
    assert saved_connection(store).base_url == "" and saved_connection(store).model == ""


def test_the_sidebar_keeps_url_and_model_through_a_reload_but_not_the_key(llm_env) -> None:  # noqa: ANN001
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="conn_api_key").set_value(KEY)
    at.text_input(key="conn_base_url").set_value("http://192.168.1.20:8000/v1").run()
    at.text_input(key="conn_model").set_value("mistral-small").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    again = AppTest.from_file(APP, default_timeout=60).run()  # a reload: a new browser session
    assert again.text_input(key="conn_base_url").value == "http://192.168.1.20:8000/v1"
    assert again.text_input(key="conn_model").value == "mistral-small"
    assert again.text_input(key="conn_api_key").value == ""
    assert KEY.encode() not in Path(get_store().path).read_bytes()
    at.text_input(key="conn_base_url").set_value("http://u:p@10.1.1.1/v1").run()  # refused, said on the page
    assert any("user name or password" in e.value for e in at.error)
    assert saved_connection(get_store()).base_url == "http://192.168.1.20:8000/v1"
