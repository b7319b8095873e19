"""The fake OpenAI-compatible server itself: routes, SSE, faults, log."""

import json
import subprocess
import sys
import time

import httpx

from ifworld.llm.wire import ROLE_HEADER
from tests.fixtures.fake_openai import FakeOpenAI, synthesize


def post(fake, body, role: str | None = None, **kw):
    headers = {ROLE_HEADER: role} if role else {}
    return httpx.post(f"{fake.url}/chat/completions", json=body, timeout=10, headers=headers, **kw)


def test_models_and_json(fake_server) -> None:
    assert httpx.get(f"{fake_server.url}/models").json()["data"][0]["id"] == "fake-model"
    fake_server.add_rule("test.x", "hello")
    r = post(fake_server, {"model": "m", "messages": [{"role": "system", "content": "You are X"}]}, "test.x").json()
    assert r["choices"][0]["message"]["content"] == "hello" and r["usage"]["total_tokens"] > 0
    assert fake_server.count("test.x") == 1


def test_sse_with_usage(fake_server) -> None:
    fake_server.add_rule("test.s", "a" * 60)
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "system", "content": "S"}]}
    lines = [ln for ln in post(fake_server, body, "test.s").text.splitlines() if ln.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(ln[6:]) for ln in lines[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]) == "a" * 60
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] > 0


def test_faults_and_peak(fake_server) -> None:
    fake_server.inject("429", times=1)
    fake_server.inject("malformed", times=1)
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    assert post(fake_server, body).status_code == 429
    assert "not valid json" in post(fake_server, body).json()["choices"][0]["message"]["content"]
    assert post(fake_server, body).status_code == 200
    assert fake_server.count(status=None) == 3 and fake_server.peak_concurrency == 1


def test_schema_synthesis() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items":
              {"$ref": "#/$defs/X"}}}, "$defs": {"X": {"type": "object", "properties": {"c": {"enum": ["p", "q"]}}}}}
    assert synthesize(schema) == {"a": 1, "b": [{"c": "p"}]}


def test_restart_on_same_port() -> None:
    fake = FakeOpenAI().start()
    port = fake.port
    fake.stop()
    fake.start()
    assert fake.port == port and httpx.get(f"{fake.url}/models").status_code == 200
    fake.stop()


def test_runs_as_script() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fixtures.fake_openai", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split(" on ")[1].split(" ")[0]
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                assert httpx.get(f"{url}/models").status_code == 200
                break
            except httpx.ConnectError:
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait()


# -- answering by the role on the wire (issue #41 item 2) ------------------------------------------------------
def test_the_role_comes_from_the_header_never_from_the_prompt(fake_server) -> None:
    """A prompt that reads like another role's (a pattern reusing PACE's critic template) is answered and
    counted as the role its header names."""
    fake_server.add_rule("rws.mine.critic", {"accept": True, "confidence": 0.99, "issues": [], "fix": ""})
    body = {"model": "m", "messages": [{"role": "system", "content": "You are the PACE critic."},
                                       {"role": "user", "content": "Agent role: whatif.expert"}]}
    reply = post(fake_server, body, "rws.mine.critic").json()["choices"][0]["message"]["content"]
    assert json.loads(reply)["confidence"] == 0.99
    assert fake_server.count("rws.mine.critic") == 1
    assert fake_server.count("rws.pace") == 0 and fake_server.count("whatif.expert") == 0


def test_a_call_name_falls_back_to_its_role_then_to_the_nearest_prefix(fake_server) -> None:
    fake_server.add_rule("test.agent", "the role")
    fake_server.add_rule("test", "the prefix")
    fake_server.add_rule("test.agent#retry", "the retry")
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    text = {role: post(fake_server, body, role).json()["choices"][0]["message"]["content"]
            for role in ("test.agent#retry", "test.agent#other", "test.agent.sub", "test.else")}
    assert text == {"test.agent#retry": "the retry", "test.agent#other": "the role", "test.agent.sub": "the role",
                    "test.else": "the prefix"}
    assert fake_server.count("test.agent") == 3 and fake_server.count("test.agent#retry") == 1


def test_without_the_header_the_answer_is_generic_and_schema_valid(fake_server) -> None:
    """No header, no role: whatever the prompt says, the reply is a minimal instance of the requested schema."""
    fake_server.add_rule("rws.pace.critic", {"accept": False})
    schema = {"type": "object", "properties": {"accept": {"type": "boolean"}, "n": {"type": "integer"}},
              "required": ["accept", "n"]}
    body = {"model": "m", "messages": [{"role": "system", "content": "You are the PACE critic. Agent role: "
                                                                      "rws.pace.critic"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "R", "schema": schema}}}
    reply = json.loads(post(fake_server, body).json()["choices"][0]["message"]["content"])
    assert reply == {"accept": True, "n": 1}
    assert fake_server.requests[-1].role is None and fake_server.requests[-1].rule is None


def test_match_narrows_a_rule_by_content_and_faults_by_role(fake_server) -> None:
    fake_server.add_rule("test.agent", "agent one", match="You are agent 1,")
    fake_server.add_rule("test.agent", "anyone else", first=False)
    fake_server.inject("500", times=1, role="test.other")
    body = {"model": "m", "messages": [{"role": "system", "content": "You are agent 1, of 3"}]}
    assert post(fake_server, body, "test.agent").json()["choices"][0]["message"]["content"] == "agent one"
    body["messages"][0]["content"] = "You are agent 2, of 3"
    assert post(fake_server, body, "test.agent").json()["choices"][0]["message"]["content"] == "anyone else"
    assert post(fake_server, body, "test.agent").status_code == 200  # the fault waits for its role
    assert post(fake_server, body, "test.other").status_code == 500


def test_the_product_sends_its_role_on_every_path(fake_server, settings) -> None:
    """``chat_model`` puts the role on the wire: plain and structured calls, streamed or not, every method."""
    from pydantic import BaseModel

    from ifworld import llm

    class Verdict(BaseModel):
        verdict: str
        confidence: float

    fake_server.add_rule("test.wire", {"verdict": "fine and long enough", "confidence": 0.5})
    for stream in (True, False):
        for method in ("json_schema", "function_calling", "json_mode", "prompt"):
            settings = settings.model_copy(update={"stream": stream, "structured_method": method})
            llm.structured("test.wire", [("user", "hi")], Verdict, settings=settings)
        llm.complete("test.wire", [("user", "hi")], settings=settings.model_copy(update={"stream": stream}),
                     variant="plain")
    roles = [r.role for r in fake_server.requests]
    assert roles == ["test.wire"] * 4 + ["test.wire#plain"] + ["test.wire"] * 4 + ["test.wire#plain"]
