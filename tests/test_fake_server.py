"""The fake OpenAI-compatible server itself: routes, SSE, faults, log."""

import json
import subprocess
import sys
import time

import httpx

from tests.fixtures.fake_openai import FakeOpenAI, synthesize


def post(fake, body, **kw):
    return httpx.post(f"{fake.url}/chat/completions", json=body, timeout=10, **kw)


def test_models_and_json(fake_server) -> None:
    assert httpx.get(f"{fake_server.url}/models").json()["data"][0]["id"] == "fake-model"
    fake_server.add_rule("^You are X", "hello")
    r = post(fake_server, {"model": "m", "messages": [{"role": "system", "content": "You are X"}]}).json()
    assert r["choices"][0]["message"]["content"] == "hello" and r["usage"]["total_tokens"] > 0
    assert fake_server.count("^You are X") == 1


def test_sse_with_usage(fake_server) -> None:
    fake_server.add_rule("S", "a" * 60)
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "system", "content": "S"}]}
    lines = [ln for ln in post(fake_server, body).text.splitlines() if ln.startswith("data: ")]
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
