"""AppTest: the pages against endpoints that fail — nothing listening, accepting and never answering, a 401, a
404 model — each named with its cause and address within 30 s; the sidebar is never green after a failed test,
and a job started on a dead endpoint is refused in seconds instead of retrying for minutes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ifworld.llm import status
from tests.fixtures.dead_servers import KINDS, dead_endpoint

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
DONE_WITHIN_S = 30.0
WORDS = {"refused": "nothing is listening at", "silent": "but no answer within 10 s",
         "unauthorized": "refused the API key (HTTP 401)", "no_model": "has no model 'demo' (HTTP 404)"}


@pytest.fixture(autouse=True)
def _fresh_status():
    status.reset()
    yield
    status.reset()


def _env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("IFWORLD_BASE_URL", url)
    monkeypatch.setenv("IFWORLD_MODEL", "demo")
    monkeypatch.setenv("IFWORLD_API_KEY", "sk-test-page-secret-42")
    monkeypatch.setenv("IFWORLD_MAX_RETRIES", "2")


def _address(url: str) -> str:
    return url.split("//", 1)[1].split("/", 1)[0]


def _shown(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in ("error", "warning", "info", "success", "caption", "markdown")
                     for e in getattr(at, kind))


@pytest.mark.parametrize("kind", KINDS)
def test_sidebar_test_names_the_failure_and_never_stays_green(kind: str, monkeypatch) -> None:
    with dead_endpoint(kind) as url:
        _env(monkeypatch, url)
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()  # home: AppTest keeps the sidebar there
        assert "⚪" in " ".join(c.value for c in at.sidebar.caption)  # untested, not green
        start = time.monotonic()
        at.button(key="conn_test").click().run()
        took = time.monotonic() - start
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert WORDS[kind] in errors and _address(url) in errors, errors
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "🟢" not in captions and "🔴" in captions and "failing since" in captions, captions
    assert "sk-test-page-secret" not in str(at._tree)
    assert took < DONE_WITHIN_S


def test_settings_box_follows_the_last_test(fake_server, monkeypatch) -> None:
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_MODEL", "fake-model")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("app_pages/settings.py")
    at.run()
    assert "untested" in " ".join(i.value for i in at.info) and not at.success  # configured is not "connected"
    at.button(key="settings_test").click().run()
    assert "connection ok" in at.success[0].value
    fake_server.stop()
    at.button(key="settings_test").click().run()
    assert not at.success  # a failed test leaves nothing green
    assert any("failing since" in e.value and "nothing is listening at" in e.value for e in at.error)


@pytest.mark.parametrize("kind", KINDS)
def test_benchmark_page_refuses_to_start_on_a_dead_endpoint(kind: str, monkeypatch) -> None:
    with dead_endpoint(kind) as url:
        _env(monkeypatch, url)
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.switch_page("app_pages/rws_benchmark.py")
        at.run()
        at.multiselect(key="rwsb_patterns").set_value(["single"]).run()
        at.number_input(key="rwsb_limit").set_value(1).run()
        start = time.monotonic()
        at.button(key="rwsb_run").click().run()
        took = time.monotonic() - start
    assert not at.exception, at.exception
    shown = _shown(at)
    assert "The job was not started." in shown and WORDS[kind] in shown and _address(url) in shown, shown
    assert took < DONE_WITHIN_S
    assert "pending" not in shown  # no run was created to sit there unstarted


def test_belief_llm_page_refuses_to_start_on_a_dead_endpoint(monkeypatch) -> None:
    from ifworld.runs.store import get_store

    with dead_endpoint("no_model") as url:
        _env(monkeypatch, url)
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.switch_page("app_pages/beliefs.py")
        at.run()
        at.number_input(key="beliefs_llm_agents").set_value(4)
        at.number_input(key="beliefs_llm_rounds").set_value(2)
        start = time.monotonic()
        next(b for b in at.button if b.label == "🤖 Run LLM agents").click().run()
        took = time.monotonic() - start
    assert not at.exception, at.exception
    shown = _shown(at)
    assert "The job was not started." in shown and WORDS["no_model"] in shown and _address(url) in shown, shown
    assert took < DONE_WITHIN_S and not get_store().list_runs(kind="beliefs")


def test_whatif_page_refuses_to_start_on_a_dead_endpoint(monkeypatch) -> None:
    with dead_endpoint("refused") as url:
        _env(monkeypatch, url)
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.switch_page("app_pages/whatif.py")
        at.run()
        at.button(key="whatif_quick").click().run()
        start = time.monotonic()
        next(b for b in at.button if b.label.startswith("▶️ Start run")).click().run()
        took = time.monotonic() - start
    assert not at.exception, at.exception
    shown = _shown(at)
    assert "The job was not started." in shown and f"nothing is listening at {_address(url)}" in shown, shown
    assert took < DONE_WITHIN_S


def test_judge_button_refuses_to_call_a_dead_endpoint(monkeypatch) -> None:
    from ifworld.runs.store import get_store
    from tests.whatif.records import sample_record

    store = get_store()
    rec = sample_record()
    run_id = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if (ifworld): Moon")
    store.finish_run(run_id, rec, rec["usage"])
    with dead_endpoint("unauthorized") as url:
        _env(monkeypatch, url)
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.switch_page("app_pages/whatif.py")
        at.query_params["run"] = run_id
        at.run()
        start = time.monotonic()
        next(b for b in at.button if b.label.startswith("⚖️ Judge this run")).click().run()
        took = time.monotonic() - start
    assert not at.exception, at.exception
    shown = _shown(at)
    assert "The job was not started." in shown and WORDS["unauthorized"] in shown and _address(url) in shown
    assert took < DONE_WITHIN_S and not (store.get_run(run_id).record or {}).get("judge")


def test_settings_lists_an_outside_extension_that_failed_to_load(monkeypatch) -> None:
    """docs/extending.md promises it: a broken installed extension is named on the Settings page."""
    import ifworld.registry as reg_module

    monkeypatch.setattr(reg_module, "_plugins_loaded", True)
    monkeypatch.setattr(reg_module, "_plugin_errors", ["extension 'school_pack' (school_pack) could not be loaded: "
                                                       "ImportError: no module"])
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("app_pages/settings.py")
    at.run()
    assert not at.exception
    assert any("school_pack" in w.value for w in at.warning)


def test_use_the_demo_model_connects_the_sidebar_to_the_built_in_demo(monkeypatch) -> None:
    """#42 item 5: a teacher without a model clicks one button instead of starting `ifworld demo-server` and typing
    its address and model; the connection test then answers (🟢) from this app's own demo server."""
    for name in ("IFWORLD_BASE_URL", "IFWORLD_MODEL", "IFWORLD_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert "no model connected" in " ".join(c.value for c in at.sidebar.caption)
    at.button(key="conn_demo").click().run()
    assert not at.exception, at.exception
    url = at.text_input(key="conn_base_url").value
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    assert at.text_input(key="conn_model").value == "demo" and not at.text_input(key="conn_api_key").value
    at.button(key="conn_test").click().run()
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "🟢 demo @" in captions, captions


def test_the_demo_model_button_is_the_facilitators(monkeypatch) -> None:
    """A participant's or visitor's session draws no such button, and the engine refuses the action from them."""
    from ifworld.access import VISITOR, AccessDenied
    from ifworld.llm import builtin_demo_url

    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")  # as in network mode: this session has not signed in
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not any(b.key == "conn_demo" for b in at.button)
    with pytest.raises(AccessDenied):
        builtin_demo_url(VISITOR)
