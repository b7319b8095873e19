"""The model layer against servers that behave like the local ones people run (fake server, real HTTP):
structured-method probing, forced tool calls, empty replies, bounds and truncation, timeouts counted from
the last token, a single-slot server, streamed partial JSON."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest
from pydantic import BaseModel, Field

from ifworld import llm
from ifworld.config import load_settings
from ifworld.llm import methods

SYS = "You are the endpoint test agent."
RULE = "test.endpoint"  # the role the calls below name


class Verdict(BaseModel):
    verdict: str
    confidence: float = Field(0.5, ge=0, le=1)


class Essay(BaseModel):
    title: str = ""
    paragraphs: list[str] = []


def ask(settings, schema=Verdict, **kw):
    return llm.structured("test.endpoint", [("system", SYS), ("user", "q")], schema, settings=settings, **kw)


@pytest.fixture(autouse=True)
def fresh_methods():
    methods._methods.clear()
    yield
    methods._methods.clear()


def test_llama_cpp_500_moves_to_forced_tool_call_once_and_is_remembered(fake_server, settings):
    fake_server.like_llama_cpp().add_rule(RULE, {"verdict": "ok", "confidence": 0.8})
    retrying = settings.model_copy(update={"max_retries": 2, "retry_backoff_s": 0.01})
    assert ask(retrying).verdict == "ok"
    assert fake_server.count(status=500) == 1  # refused format: no retry of the same request
    body = fake_server.requests[-1].body
    assert "response_format" not in body and body["tools"][0]["function"]["parameters"]["required"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Verdict"}}
    assert methods.stored_method(settings, "test.endpoint") == "function_calling"
    methods._methods.clear()  # a new process: the store remembers
    assert ask(retrying).verdict == "ok" and fake_server.count(status=500) == 1


def test_concurrent_first_calls_probe_once(fake_server, settings):
    fake_server.like_llama_cpp().add_rule(RULE, {"verdict": "ok", "confidence": 0.8})
    out = []
    threads = [threading.Thread(target=lambda: out.append(ask(settings))) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(out) == 6 and fake_server.count(status=500) == 1 and fake_server.count() == 6


def test_4xx_format_errors_fall_through_but_auth_errors_do_not(fake_server, settings):
    fake_server.add_rule(RULE, {"verdict": "ok", "confidence": 0.8})
    fake_server.reject_formats, fake_server.reject_status = {"json_schema"}, 422
    assert ask(settings).verdict == "ok" and fake_server.count(status=422) == 1
    methods._methods.clear()
    fake_server.reject_status = 401
    with pytest.raises(llm.LLMCallError, match="HTTP 401"):
        ask(settings.model_copy(update={"db_path": settings.db_path.with_name("other.sqlite")}))


def test_json_mode_then_prompt_when_tools_are_refused_too(fake_server, settings):
    fake_server.add_rule(RULE, {"verdict": "ok", "confidence": 0.8})
    fake_server.reject_formats, fake_server.reject_tools = {"json_schema"}, True
    assert ask(settings).verdict == "ok"
    assert fake_server.requests[-1].body["response_format"] == {"type": "json_object"}
    assert llm.known_method(settings, "test.endpoint") == "json_mode"


def test_explicit_method_that_is_refused_names_the_setting(fake_server, settings):
    fake_server.like_llama_cpp()
    fixed = settings.model_copy(update={"structured_method": "json_schema"})
    with pytest.raises(llm.LLMCallError, match="IFWORLD_STRUCTURED_METHOD=auto"):
        ask(fixed)


def test_empty_object_is_a_failed_call_not_a_success(fake_server, settings):
    fake_server.add_rule(RULE, {})
    with pytest.raises(llm.StructuredOutputError, match="every field is empty"):
        ask(settings, Essay)
    assert fake_server.count() == 2  # the reply, then one repair turn
    replies = iter([{"title": "", "paragraphs": []}, {"title": "T", "paragraphs": ["p"]}])
    fake_server.add_rule(RULE, lambda body: next(replies))
    assert ask(settings, Essay).title == "T"


def test_max_tokens_sent_per_role_and_overridable(fake_server, settings, monkeypatch):
    fake_server.add_rule("whatif.expert", "fine")
    llm.complete("whatif.expert", [("system", SYS), ("user", "q")], settings=settings)
    assert fake_server.requests[-1].body["max_tokens"] == 3000
    monkeypatch.setenv("IFWORLD_MAX_TOKENS", "700")
    monkeypatch.setenv("IFWORLD_MAX_TOKENS_WHATIF__EXPERT", "900")
    s = load_settings({"base_url": fake_server.url})
    assert (s.max_tokens_for("whatif.expert"), s.max_tokens_for("rws.pace.critic")) == (900, 700)
    monkeypatch.setenv("IFWORLD_MAX_TOKENS_RWS", "lots")
    with pytest.raises(ValueError, match="IFWORLD_MAX_TOKENS_RWS must be a whole number"):
        load_settings()


def test_truncated_reply_is_retried_once_with_a_larger_bound(fake_server, settings):
    fake_server.add_rule(RULE, {"verdict": "x" * 100, "confidence": 0.5})  # ~30 "tokens"
    bounded = settings.model_copy(update={"role_max_tokens": {"test.endpoint": 20}})
    tracker = llm.UsageTracker()
    assert ask(bounded, callbacks=[tracker]).confidence == 0.5
    assert [r.body["max_tokens"] for r in fake_server.requests] == [20, 40]
    assert [r.finish for r in fake_server.requests] == ["length", "stop"]
    assert tracker.records()[0].status == "ok" and tracker.records()[0].retries == 1


def test_truncated_twice_is_reported_as_truncated(fake_server, settings):
    fake_server.add_rule(RULE, {"verdict": "x" * 400, "confidence": 0.5})
    bounded = settings.model_copy(update={"role_max_tokens": {"test.endpoint": 20}})
    tracker = llm.UsageTracker()
    with pytest.raises(llm.TruncatedOutputError, match="truncated at 40 tokens.*IFWORLD_MAX_TOKENS_TEST__ENDPOINT"):
        ask(bounded, callbacks=[tracker])
    assert fake_server.count() == 2 and tracker.records()[0].status == "truncated"
    text = llm.complete("test.endpoint", [("system", SYS), ("user", "q")], settings=bounded)
    assert len(text) == 40 * 4  # plain text: the text so far, after the same one retry


def test_timeout_counts_from_the_last_token(fake_server, settings):
    fake_server.add_rule(RULE, "word " * 60)  # 13 chunks
    fake_server.token_delay = 0.15  # ~2 s in all, never 0.6 s without a token
    slow = settings.model_copy(update={"timeout_s": 0.6})
    start = time.monotonic()
    assert llm.complete("test.endpoint", [("system", SYS), ("user", "q")], settings=slow).startswith("word")
    assert time.monotonic() - start > 1.5 and fake_server.count() == 1


def test_single_slot_server_keeps_generating_after_a_client_timeout(fake_server, settings):
    fake_server.use_slots(1)
    fake_server.inject("timeout", times=1, delay=1.2)  # holds the slot 1.2 s before its first token
    retrying = settings.model_copy(update={"timeout_s": 0.8, "max_retries": 1, "retry_backoff_s": 0.01})
    assert llm.complete("test.endpoint", [("user", "x")], settings=retrying)
    first, second = fake_server.requests
    assert second.start < first.end - 0.2  # the retry arrived while the abandoned generation still ran
    assert second.end >= first.end  # and was served only after it


def test_partial_objects_stream_while_the_reply_is_generated(fake_server, settings):
    paragraphs = [f"paragraph {i} " + "text " * 8 for i in range(12)]
    fake_server.add_rule(RULE, {"title": "Tides", "paragraphs": paragraphs})
    fake_server.token_delay = 0.03
    seen: list[tuple[float, dict]] = []
    start = time.monotonic()
    out = ask(settings, Essay, on_partial=lambda d: seen.append((time.monotonic(), d)))
    done = time.monotonic()
    assert out.paragraphs == paragraphs and len(seen) >= 3
    assert seen[0][0] < done - 0.5  # text was there well before the call finished
    counts = [len(d.get("paragraphs", [])) for _, d in seen]
    assert counts == sorted(counts) and counts[-1] == len(paragraphs)
    assert len(seen) <= (done - start) / llm.PARTIAL_INTERVAL_S + 2  # throttled
    assert "nostream" in fake_server.requests[-1].body.get("metadata", {}).get("tags", ["nostream"])


def test_no_key_in_the_store_file(fake_server, settings):
    secret = "sk-test-DoNotStoreMe-123456"
    fake_server.like_llama_cpp().add_rule(RULE, {"verdict": "ok", "confidence": 0.8})
    keyed = load_settings({"base_url": fake_server.url.replace("http://", f"http://user:{secret}@"),
                           "api_key": secret, "model": "fake-model", "db_path": settings.db_path, "max_retries": 0})
    assert ask(keyed).verdict == "ok"
    rows = sqlite3.connect(settings.db_path).execute("SELECT * FROM ifw_structured_methods").fetchall()
    assert rows and secret not in repr(rows) and "user:" not in repr(rows)
    assert secret.encode() not in settings.db_path.read_bytes()


def test_usage_is_estimated_when_the_stream_carries_none(fake_server, settings):
    fake_server.like_llama_cpp().add_rule(RULE, "word " * 30)
    tracker = llm.UsageTracker()
    llm.complete("test.endpoint", [("system", SYS), ("user", "q")], settings=settings, callbacks=[tracker])
    (rec,) = tracker.records()
    chunks = -(-len("word " * 30) // 24)
    assert rec.usage_estimated and rec.completion_tokens == chunks and rec.prompt_tokens == (len(SYS) + 1) // 4
    fake_server.add_rule(RULE, "")
    llm.complete("test.endpoint", [("system", SYS), ("user", "q")], settings=settings, callbacks=[tracker])
    assert tracker.records()[-1].prompt_tokens > 0 and tracker.records()[-1].completion_tokens == 0


def test_cut_twice_keeps_the_items_it_had_finished(fake_server, settings):
    paragraphs = [f"paragraph {i} " + "y" * 30 for i in range(12)]  # a small model looping on list items
    fake_server.add_rule(RULE, {"title": "Loops", "paragraphs": paragraphs})
    bounded = settings.model_copy(update={"role_max_tokens": {"test.endpoint": 40}})  # 160, then 320 chars
    tracker = llm.UsageTracker()
    essay = ask(bounded, Essay, callbacks=[tracker])
    assert fake_server.count() == 2 and [r.finish for r in fake_server.requests] == ["length", "length"]
    full = json.dumps({"title": "Loops", "paragraphs": paragraphs})  # as the fake serialises it, cut at 320
    complete = sum(full.index(json.dumps(p)) + len(json.dumps(p)) <= 320 for p in paragraphs)
    assert essay.title == "Loops" and essay.paragraphs == paragraphs[:complete] and 0 < complete < 12
    record = tracker.records()[0]
    assert record.status == "truncated" and llm.KEPT_NOTE in record.error and "at 80 tokens" in record.error


def test_complete_prefix_of_a_cut_reply():
    from ifworld.llm.reply import complete_prefix_json

    assert complete_prefix_json('{"a": [{"x": 1}, {"x": 2}, {"x": "thr') == {"a": [{"x": 1}, {"x": 2}]}
    assert complete_prefix_json('<think>plan</think>{"a": {"b": [1, 2]}, "c": "cut her') == {"a": {"b": [1, 2]}}
    assert complete_prefix_json('{"a": ["one", "t\\"w,o]", "thr') == {"a": ["one", 't"w,o]']}  # not cut in a string
    assert complete_prefix_json('{"verdict": "cut before anything clo') is None
    assert complete_prefix_json("no json at all") is None
