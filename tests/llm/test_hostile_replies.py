"""Hostile replies through the fake server's hostile modes: a reply that cannot be read is a failed call with a
readable message (retried first), lone surrogates never leave the model layer, nesting and size are bounded."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import BaseModel

from ifworld import llm
from ifworld.llm.reply import MAX_FIELD_CHARS, MAX_REPLY_CHARS, cut_text, extract_json
from tests.fixtures.fake_openai import HUGE_CHARS, hostile_text

ROLE_PROMPT = "Agent role: test.hostile"
ANSWER = {"answer": "an answer long enough to count as free text", "items": ["an item long enough to be free text"]}
MESSAGES = [("system", ROLE_PROMPT), ("user", "hi")]


class Answer(BaseModel):
    answer: str
    items: list[str]


@pytest.fixture
def hostile(fake_server, settings):
    fake_server.add_rule("test.hostile", ANSWER)
    return fake_server, settings


def _has_surrogate(value: object) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in str(value))


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("call", ["structured", "complete"])
def test_invalid_utf8_is_a_failed_call_after_retries(hostile, stream: bool, call: str) -> None:
    fake, settings = hostile
    settings = settings.model_copy(update={"stream": stream, "max_retries": 1})
    fake.inject("bad_utf8", times=2)
    tracker = llm.UsageTracker()
    # a structured call's degrade path is StructuredOutputError's; a text call's is a failed call
    with pytest.raises(llm.StructuredOutputError if call == "structured" else llm.LLMCallError) as err:
        if call == "structured":
            llm.structured("test.hostile", MESSAGES, Answer, settings=settings, callbacks=[tracker])
        else:
            llm.complete("test.hostile", MESSAGES, settings=settings, callbacks=[tracker])
    assert "not UTF-8 text" in str(err.value) and "after 1 retries" in str(err.value)
    assert fake.count(status=None) == 2  # retried once, then failed
    (rec,) = tracker.records()
    assert rec.status == "error" and rec.retries == 1 and rec.error.startswith("the endpoint sent a reply that is not")


@pytest.mark.parametrize("stream", [True, False])
def test_invalid_utf8_once_is_retried(hostile, stream: bool) -> None:
    fake, settings = hostile
    fake.inject("bad_utf8", times=1)
    settings = settings.model_copy(update={"stream": stream, "max_retries": 1})
    assert llm.structured("test.hostile", MESSAGES, Answer, settings=settings) == Answer(**ANSWER)


@pytest.mark.parametrize("stream", [True, False])
def test_lone_surrogates_become_replacement_characters(hostile, stream: bool) -> None:
    fake, settings = hostile
    settings = settings.model_copy(update={"stream": stream})
    fake.inject("surrogate", times=2)
    tracker = llm.UsageTracker()
    value = llm.structured("test.hostile", MESSAGES, Answer, settings=settings, callbacks=[tracker])
    assert not _has_surrogate(value.model_dump()) and "\ufffd" in value.answer
    fake.add_rule("test.hostile#plain", "a plain reply that is long enough to be free text")
    text = llm.complete("test.hostile", [("system", "Agent role: test.plain")], settings=settings, callbacks=[tracker],
                        variant="plain")
    assert not _has_surrogate(text) and "\ufffd" in text
    assert all(not _has_surrogate(r.output) for r in tracker.records())
    for rec in tracker.records():
        rec.output.encode("utf-8")  # storable


def test_deep_nesting_gets_the_repair_turn(hostile) -> None:
    fake, settings = hostile
    settings = settings.model_copy(update={"stream": False})
    fake.inject("deep_nesting", times=1)
    assert llm.structured("test.hostile", MESSAGES, Answer, settings=settings) == Answer(**ANSWER)
    assert fake.count(status=None) == 2  # the nested reply, then the repair turn


def test_deep_nesting_every_time_is_a_structured_output_error(hostile) -> None:
    fake, settings = hostile
    settings = settings.model_copy(update={"stream": False})
    fake.inject("deep_nesting", times=2)
    with pytest.raises(llm.StructuredOutputError) as err:
        llm.structured("test.hostile", MESSAGES, Answer, settings=settings)
    assert "nested deeper" in str(err.value)
    assert len(err.value.raw) <= MAX_REPLY_CHARS + 300


def test_huge_reply_is_cut_with_size_and_hash(hostile) -> None:
    fake, settings = hostile
    settings = settings.model_copy(update={"stream": False})
    fake.inject("huge", times=2)
    tracker = llm.UsageTracker()
    value = llm.structured("test.hostile", MESSAGES, Answer, settings=settings, callbacks=[tracker])
    assert HUGE_CHARS > len(value.answer) > MAX_FIELD_CHARS // 2 and "characters in all, sha256" in value.answer
    fake.add_rule("test.hostile#plain", "a plain reply that is long enough to be free text")
    text = llm.complete("test.hostile", [("system", "Agent role: test.plain")], settings=settings, callbacks=[tracker],
                        variant="plain")
    assert len(text) <= MAX_REPLY_CHARS + 300 and "reply cut: 2,000,0" in text
    whole = hostile_text("huge", "a plain reply that is long enough to be free text")
    plain = tracker.records()[-1]
    assert plain.output_chars == len(whole) and plain.output_sha256 == hashlib.sha256(whole.encode()).hexdigest()
    assert all(len(r.output) <= MAX_REPLY_CHARS + 300 for r in tracker.records())


def test_cut_text_keeps_head_and_tail() -> None:
    text = "H" * 1000 + "middle" + "T" * 1000
    cut = cut_text(text, 400)
    assert cut.startswith("H" * 300) and cut.endswith("T" * 100) and "2,006 characters in all" in cut
    assert hashlib.sha256(text.encode()).hexdigest() in cut
    assert cut_text("short", 400) == "short"


def test_extract_json_refuses_a_reply_too_big_even_after_cutting_strings() -> None:
    many = '{"items": [' + ",".join(['"x"'] * 60_000) + "]}"
    with pytest.raises(llm.ReplyFormatError, match="still"):
        extract_json(many)
    assert extract_json('{"a": "\\ud800b"}') == {"a": "\ufffdb"}


@pytest.mark.parametrize("stream", [False, True])
def test_the_stream_setting_holds_inside_a_langgraph_run(stream: bool, fake_server, settings, store) -> None:  # noqa: ANN001
    """``stream=False`` sends one non-streamed request per call even while LangGraph's "messages" mode listens
    (LangChain streams an invoke() whenever a streaming handler is attached: a server that cannot stream failed,
    and a 2 MB reply was read as 250,000 chunks — 164 s of CPU in tests/reliability/test_hostile_runs.py)."""
    from ifworld import runs

    cfg = settings.model_copy(update={"stream": stream})
    runs.execute("demo.fanout", {"topic": "the Moon", "workers": 2}, store=store, settings=cfg)
    sent = [bool(r.body.get("stream")) for r in fake_server.requests if r.path.endswith("/chat/completions")]
    assert len(sent) == 3 and set(sent) == {stream}, sent
