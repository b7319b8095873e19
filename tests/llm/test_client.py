"""The model layer against the fake OpenAI-compatible server (real HTTP, real ChatOpenAI)."""

import asyncio

import pytest
from pydantic import BaseModel

from ifworld import llm
from ifworld.config import load_settings


class Verdict(BaseModel):
    verdict: str
    confidence: float


SYS = "You are the test verdict agent."


def test_complete_and_accounting(fake_server, settings) -> None:
    fake_server.add_rule("test", "<think>private reasoning</think>All good.")
    tracker = llm.UsageTracker()
    text = llm.complete("test.agent", [("system", SYS), ("user", "hi")], settings=settings,
                        meta={"round": 2, "system": "test"}, callbacks=[tracker])
    assert text == "All good."
    (rec,) = tracker.records()
    assert (rec.role, rec.round, rec.system, rec.status, rec.model) == ("test.agent", 2, "test", "ok", "fake-model")
    assert rec.prompt_tokens > 0 and rec.completion_tokens > 0 and rec.latency_s > 0
    assert fake_server.count() == 1


def test_unclosed_think_is_stripped() -> None:
    assert llm.strip_think("<think>never closed") == ""
    assert llm.strip_think("a<THINK>x</think>b") == "ab"


def test_streaming_path(fake_server, settings) -> None:
    fake_server.add_rule("test", "streamed " * 20)
    model = llm.chat_model("test.agent", settings)
    chunks = list(model.stream([("system", SYS), ("user", "x")]))
    assert len(chunks) > 3
    assert "".join(c.content for c in chunks).strip() == ("streamed " * 20).strip()
    assert fake_server.requests[-1].stream
    assert fake_server.requests[-1].body["stream_options"] == {"include_usage": True}


def test_structured_uses_json_schema(fake_server, settings) -> None:
    fake_server.add_rule("test", {"verdict": "yes", "confidence": 0.9})
    out = llm.structured("test.agent", [("system", SYS), ("user", "q")], Verdict, settings=settings)
    assert out == Verdict(verdict="yes", confidence=0.9)
    body = fake_server.requests[-1].body
    assert body["response_format"]["type"] == "json_schema"
    assert "JSON schema" in body["messages"][0]["content"]


def test_structured_fenced_and_think(fake_server, settings) -> None:
    fake_server.add_rule("test",
                         '<think>hmm {"no": 1}</think>Here:\n```json\n{"verdict": "no", "confidence": 0.2}\n```')
    out = llm.structured("test.agent", [("system", SYS), ("user", "q")], Verdict, settings=settings)
    assert out.verdict == "no"


def test_structured_repair_path(fake_server, settings) -> None:
    fake_server.add_rule("test", {"verdict": "yes", "confidence": 0.5})
    fake_server.inject("malformed", times=1)
    tracker = llm.UsageTracker()
    out = llm.structured("test.agent", [("system", SYS), ("user", "q")], Verdict, settings=settings,
                         callbacks=[tracker])
    assert out.verdict == "yes"
    assert fake_server.count() == 2
    repair_msgs = fake_server.requests[-1].body["messages"]
    assert "ONLY one JSON object" in repair_msgs[-1]["content"]
    assert tracker.records()[0].status == "repaired"


def test_structured_fails_with_typed_error(fake_server, settings) -> None:
    fake_server.add_rule("test", "not json, twice")
    with pytest.raises(llm.StructuredOutputError) as err:
        llm.structured("test.role", [("system", SYS), ("user", "q")], Verdict, settings=settings)
    assert err.value.role == "test.role" and "[test.role]" in str(err.value)
    assert err.value.raw == "not json, twice"


def test_schema_validation_error_is_repaired(fake_server, settings) -> None:
    replies = iter([{"verdict": "yes"}, {"verdict": "yes", "confidence": 1.0}])
    fake_server.add_rule("test", lambda body: next(replies))
    out = llm.structured("test.agent", [("system", SYS), ("user", "q")], Verdict, settings=settings)
    assert out.confidence == 1.0
    assert "confidence" in fake_server.requests[-1].body["messages"][-1]["content"]


def test_429_then_success_is_retried(fake_server, settings) -> None:
    fake_server.inject("429", times=1)
    retrying = settings.model_copy(update={"max_retries": 2})
    tracker = llm.UsageTracker()
    assert llm.complete("test.agent", [("user", "x")], settings=retrying, callbacks=[tracker])
    assert fake_server.count(status=429) == 1 and fake_server.count() == 1
    rec = tracker.records()[0]
    assert rec.retries == 1 and rec.status == "ok"


def test_500_exhausts_retries(fake_server, settings) -> None:
    fake_server.inject("500", times=5)
    retrying = settings.model_copy(update={"max_retries": 1})
    with pytest.raises(llm.LLMCallError, match="after 1 retries"):
        llm.complete("test.agent", [("user", "x")], settings=retrying)
    assert fake_server.count(status=500) == 2


def test_timeout_is_typed_error_naming_the_setting(fake_server, settings) -> None:
    fake_server.inject("timeout", times=1, delay=3)
    quick = settings.model_copy(update={"timeout_s": 0.5})
    said = r"\[test.slow\] connected to 127.0.0.1:\d+ but no answer within 0.5 s.*IFWORLD_TIMEOUT_S"
    with pytest.raises(llm.LLMCallError, match=said):
        llm.complete("test.slow", [("user", "x")], settings=quick)


def test_not_configured() -> None:
    with pytest.raises(llm.LLMNotConfigured, match="IFWORLD_BASE_URL"):
        llm.complete("x", [("user", "y")], settings=load_settings())


def test_async_variants_respect_concurrency(fake_server, settings) -> None:
    fake_server.latency = 0.2
    limited = settings.model_copy(update={"max_concurrency": 2})

    async def many():
        return await asyncio.gather(*[llm.acomplete("t", [("user", str(i))], settings=limited) for i in range(6)])

    assert len(asyncio.run(many())) == 6
    assert fake_server.peak_concurrency == 2


def test_structured_async(fake_server, settings) -> None:
    fake_server.add_rule("t", {"verdict": "a", "confidence": 0})
    out = asyncio.run(llm.astructured("t", [("system", SYS), ("user", "q")], Verdict, settings=settings))
    assert out.verdict == "a"


def test_connection_report(fake_server, settings) -> None:
    ok = llm.test_connection(settings)
    assert ok.ok and ok.latency_s > 0 and ok.structured_ok and ok.method == "json_schema"
    assert ok.tokens_per_s and ok.tokens_per_s > 0 and "tokens/s" in ok.message and "json_schema" in ok.message
    fake_server.inject("500", times=1)
    bad = llm.test_connection(settings)
    assert not bad.ok and "500" in bad.message
