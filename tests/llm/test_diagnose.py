"""The connection truth: each way an endpoint fails is told in its own words with its address, fast — by the
classifier, the preflight, a failed call, ``ifworld model check`` and the page's connection status."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from ifworld import llm
from ifworld.config import load_settings
from ifworld.llm import status
from ifworld.llm.check_cli import KIND_EXIT
from tests.fixtures.dead_servers import KINDS, SERVED_MODELS, dead_endpoint

DONE_WITHIN_S = 30.0
EXPECTED = {  # dead endpoint kind -> (failure kind, words the message must hold)
    "refused": ("refused", "nothing is listening at 127.0.0.1:"),
    "silent": ("timeout", "but no answer within"),
    "unauthorized": ("auth", "refused the API key (HTTP 401)"),
    "no_model": ("model", "has no model 'demo' (HTTP 404)"),
}


@pytest.fixture(autouse=True)
def _fresh_status():
    status.reset()
    yield
    status.reset()


def _settings(url: str, **extra):
    return load_settings({"base_url": url, "model": "demo", "api_key": "sk-test-secret-123456", "timeout_s": 3,
                          "max_retries": 0, "retry_backoff_s": 0.01, **extra})


def _port(url: str) -> str:
    return url.split("//", 1)[1].split("/", 1)[0]


@pytest.mark.parametrize("kind", KINDS)
def test_preflight_names_cause_and_address_fast(kind: str) -> None:
    with dead_endpoint(kind) as url:
        settings = _settings(url)
        start = time.monotonic()
        with pytest.raises(llm.ModelUnreachable) as err:
            llm.preflight(settings, force=True)
        took = time.monotonic() - start
    want_kind, words = EXPECTED[kind]
    assert err.value.failure.kind == want_kind
    assert words in str(err.value) and _port(url) in str(err.value)
    assert "sk-test-secret" not in str(err.value)
    assert took < DONE_WITHIN_S
    assert status.connection_status(settings).state == "failing"
    if kind == "no_model":
        assert err.value.failure.models == SERVED_MODELS and "llama3.1:8b, qwen2.5:7b" in str(err.value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_failed_call_names_cause_and_address(kind: str) -> None:
    with dead_endpoint(kind) as url, pytest.raises(llm.LLMCallError) as err:
        llm.complete("test.role", [("user", "hi")], settings=_settings(url, timeout_s=2))
    want_kind, words = EXPECTED[kind]
    assert err.value.failure.kind == want_kind
    assert _port(url) in str(err.value)
    if kind != "silent":  # a call's own timeout is IFWORLD_TIMEOUT_S: same words, its own hint
        assert words in str(err.value)
    else:
        assert "no answer within 2 s" in str(err.value) and "IFWORLD_TIMEOUT_S" in str(err.value)


def test_retries_are_announced_with_the_cause() -> None:
    seen: list[str] = []
    stop = llm.on_retry(seen.append)
    try:
        with dead_endpoint("refused") as url, pytest.raises(llm.LLMCallError, match=r"after 2 retries"):
            llm.complete("test.role", [("user", "hi")], settings=_settings(url, max_retries=2))
    finally:
        stop()
    assert seen == [f"waiting for the model — retry {i} of 2: connection refused at {_port(url)}" for i in (1, 2)]


def test_name_not_resolved_and_not_openai_compatible() -> None:
    settings = _settings("http://no-such-host.invalid:8080/v1")
    with pytest.raises(llm.ModelUnreachable, match="the name 'no-such-host.invalid' could not be resolved"):
        llm.preflight(settings)
    with dead_endpoint("no_model") as url:  # a 404 that does not name a model: the base URL is wrong
        import httpx

        request = httpx.Request("POST", url + "/chat/completions")
        exc = httpx.HTTPStatusError("404", request=request, response=httpx.Response(404, text="Not Found",
                                                                                     request=request))
        failure = llm.classify(exc, _settings(url))
    assert failure.kind == "protocol" and "not an OpenAI-compatible API" in failure.message


def test_status_follows_the_facts(fake_server) -> None:
    settings = _settings(fake_server.url, model="fake-model")
    assert status.connection_status(settings).state == "untested"
    assert llm.test_connection(settings).ok
    assert status.connection_status(settings).state == "ok"
    fake_server.stop()
    report = llm.test_connection(settings)
    assert not report.ok and report.kind == "refused"
    now = status.connection_status(settings)
    assert now.state == "failing" and "failing since" in now.line() and _port(fake_server.url) in now.line()


# -- ifworld model check --------------------------------------------------------------------------------------
def _check(monkeypatch, url: str, *args: str):
    from ifworld.cli import app

    monkeypatch.setenv("IFWORLD_BASE_URL", url)
    monkeypatch.setenv("IFWORLD_MODEL", "demo")
    monkeypatch.setenv("IFWORLD_TIMEOUT_S", "3")
    start = time.monotonic()
    result = CliRunner().invoke(app, ["model", "check", *args])
    return result, time.monotonic() - start


@pytest.mark.parametrize("kind", KINDS)
def test_model_check_exit_code_and_words(kind: str, monkeypatch) -> None:
    with dead_endpoint(kind) as url:
        result, took = _check(monkeypatch, url)
    want_kind, words = EXPECTED[kind]
    assert result.exit_code == KIND_EXIT[want_kind], result.output
    assert words in result.output and _port(url) in result.output and "FAILED" in result.output
    assert took < DONE_WITHIN_S


def test_model_check_passes_and_reports_json(fake_server, monkeypatch) -> None:
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_MODEL", "fake-model")
    from ifworld.cli import app

    result = CliRunner().invoke(app, ["model", "check", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ok"] and data["method"] == "json_schema" and data["first_token_s"] is not None
    assert (data["context_tokens"], data["context_source"]) == (32_768, "default (the server does not say)")
    fake_server.context_tokens = 4_096  # the server says it, as llama.cpp's /props does
    from ifworld.llm import context

    context.clear_cache()
    text = CliRunner().invoke(app, ["model", "check"]).output
    for line in ("reachable    yes", "key accepted yes", "model present yes", "structured   json_schema",
                 "first token", "window       4,096 tokens (server (llama.cpp /props)); counted by tiktoken"):
        assert line in text


def test_model_check_without_a_model_exits_2() -> None:
    from ifworld.cli import app

    result = CliRunner().invoke(app, ["model", "check"])
    assert result.exit_code == 2 and "IFWORLD_BASE_URL" in result.output


def test_cli_job_says_it_waits_for_the_model(fake_server, monkeypatch, tmp_path) -> None:
    """While a job retries, stderr says so with the cause and the address; then the job goes on."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("IFWORLD_")}
    env.update({"IFWORLD_BASE_URL": fake_server.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_MAX_RETRIES": "2",
                "IFWORLD_RETRY_BACKOFF_S": "0.05", "IFWORLD_DB": str(tmp_path / "runs.sqlite"),
                "PYTHONPATH": str(root)})
    fake_server.inject("500", times=2)
    done = subprocess.run([sys.executable, "-m", "ifworld.cli", "rws", "run", "--pattern", "single", "--data",
                           str(root / "data" / "rws_sample.jsonl"), "--limit", "1", "--no-verify"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    for i in (1, 2):
        assert f"waiting for the model — retry {i} of 2: HTTP 500 from {_port(fake_server.url)}" in done.stderr


def test_the_page_shows_the_retry_until_the_model_answers() -> None:
    from ifworld.runs.events import Event
    from ui.connection_view import retry_line

    wait = Event(type="progress", run_id="r", data={"kind": "model_retry", "text": "waiting for the model — retry 1 "
                                                    "of 2: connection refused at 127.0.0.1:8749"})
    assert retry_line([wait]).endswith("connection refused at 127.0.0.1:8749")
    assert retry_line([wait, Event(type="step_finished", run_id="r", node="x")]) is None


def test_a_retry_is_a_progress_event_of_the_run(fake_server, settings, store) -> None:
    """The page's live views read the wait from the run's own event stream (LangGraph's custom mode)."""
    from ifworld import runs
    from ifworld.whatif import default_params, workflow_name

    params = default_params("What if the Moon disappeared overnight?", "single")
    run_id = runs.start_run(workflow_name("single"), params, store=store)
    fake_server.inject("500", times=1)
    retrying = settings.model_copy(update={"max_retries": 1, "retry_backoff_s": 0.01})
    events = list(runs.stream_run(run_id, store=store, settings=retrying))
    waits = [e.data["text"] for e in events if e.type == "progress" and e.data.get("kind") == "model_retry"]
    assert waits == [f"waiting for the model — retry 1 of 1: HTTP 500 from {_port(fake_server.url)}"]
    assert events[-1].type == "run_finished"


def test_runs_resume_checks_the_endpoint_first(monkeypatch) -> None:
    from ifworld.cli import app
    from ifworld.runs import start_run
    from ifworld.whatif import default_params, workflow_name

    run_id = start_run(workflow_name("single"), default_params("What if the Moon disappeared overnight?", "single"))
    with dead_endpoint("refused") as url:
        monkeypatch.setenv("IFWORLD_BASE_URL", url)
        monkeypatch.setenv("IFWORLD_MODEL", "demo")
        start = time.monotonic()
        resumed = CliRunner().invoke(app, ["runs", "resume", run_id])
        took = time.monotonic() - start
    assert resumed.exit_code == KIND_EXIT["refused"], resumed.output
    assert f"nothing is listening at {_port(url)}" in resumed.output and took < 5
