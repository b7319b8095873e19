"""``ifworld demo-server``: the product's canned-answer server, run as users run it (a subprocess of the real
CLI) and driven by the real ``ifworld`` commands of all three tools; hostile requests; the no-model panel."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from streamlit.testing.v1 import AppTest

from ifworld.beliefs import load_llm_record
from ifworld.config import DEMO_MODEL, DEMO_URL, load_settings
from ifworld.llm import test_connection
from ifworld.llm.demo import DEFAULT_PORT, DEMO_LABEL, label_reply, make_demo_server
from ifworld.llm.demo_cli import DEFAULT_PORT as CLI_DEFAULT_PORT
from ifworld.runs import RunStore, export_run
from ifworld.rws import load_benchmark_record
from ifworld.whatif import load_record
from ifworld.whatif.experts import load_expert

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "rws_sample.jsonl"
APP = str(ROOT / "app.py")
START_TIMEOUT_S = 120.0  # the CLI imports the engines before it serves; slow on a loaded machine
RUN_TIMEOUT_S = 600.0
STOP_TIMEOUT_S = 60.0


@dataclass
class DemoProcess:
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def start_demo(log: Path) -> DemoProcess:
    """``ifworld demo-server`` on a free port; returns once the port accepts connections and the settings to
    use are printed (both polled)."""
    port = _free_port()
    with log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "demo-server", "--port", str(port)],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    demo = DemoProcess(proc, port, log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (_listening(port) and "Ctrl-C to stop" in demo.stderr()):  # it prints just after it binds
        if proc.poll() is not None:
            pytest.fail(f"demo-server exited with {proc.returncode}: {demo.stderr()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"demo-server did not listen on {port} within {START_TIMEOUT_S} s")
        time.sleep(0.05)
    return demo


def stop_demo(demo: DemoProcess) -> int | None:
    if demo.proc.poll() is None:
        demo.proc.send_signal(signal.SIGTERM)
    try:
        return demo.proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        demo.proc.kill()
        demo.proc.wait()
        return None


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    running = start_demo(tmp_path_factory.mktemp("demo") / "stderr.txt")
    yield running
    stop_demo(running)


def ifworld(*args: str, url: str) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, pointed at the demo server (IFWORLD_DB is the test's, see conftest)."""
    env = {**os.environ, "IFWORLD_BASE_URL": url, "IFWORLD_MODEL": DEMO_MODEL}
    res = subprocess.run([sys.executable, "-m", "ifworld.cli", *args], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, (args, res.stderr[-3000:])
    return res


def stored(run_id: str) -> dict:
    store = RunStore(load_settings().db_path)
    try:
        info = store.get_run(run_id)
        assert info.status == "completed", info.status
        return info.record
    finally:
        store.close()


def test_the_demo_model_says_what_the_experts_owner_hands_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model layer imports no engine: an expert's words and the default panel come from use_expert_words;
    without them every expert gets words made from its domain."""
    from ifworld.llm.demo_answers import whatif as demo

    monkeypatch.setattr(demo, "_source", dict(demo._source))
    demo.use_expert_words(lambda d: demo.ExpertWords("tides", "tidal range", "m", "navigation")
                          if d == "harbours" else None, lambda: ["harbours"])
    assert demo._demo("harbours") == (("tides", "tidal range", "m"), "navigation")
    assert demo._demo("law") == (("law mechanisms", "law indicator", "index"), demo.GENERIC_DOWNSTREAM)
    asked = "<proposition>What if tides stop?</proposition>"
    refined = demo.refiner({"messages": [{"role": "user", "content": asked}]})
    assert refined["expert_plan"] == ["harbours"]


def test_prints_where_it_listens_and_what_to_set(demo: DemoProcess) -> None:
    err = demo.stderr()
    assert f"IFWORLD_BASE_URL={demo.url} IFWORLD_MODEL={DEMO_MODEL}" in err
    assert httpx.get(f"{demo.url}/models").json()["data"] == [{"id": "demo", "object": "model",
                                                               "owned_by": "ifworld-demo"}]
    assert DEMO_URL == f"http://127.0.0.1:{DEFAULT_PORT}/v1" and CLI_DEFAULT_PORT == DEFAULT_PORT


def test_whatif_run_completes_with_labelled_report(demo: DemoProcess, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    ifworld("whatif", "run", "What if the Moon vanished?", "--experts", "physics,economics", "--rounds", "1",
            "--out", str(out), url=demo.url)
    record = json.loads(out.read_text(encoding="utf-8"))
    typed = load_record(stored(record["run_id"]), run_id=record["run_id"])
    assert set(typed.rounds[0].experts) == {"physics", "economics"} and len(typed.rounds) == 1
    assert not record["degraded"] and {c["status"] for c in record["calls"]} == {"ok"}
    assert record["report"]["executive_verdict"]["verdict"].startswith(DEMO_LABEL)
    physics = load_expert("physics").demo  # the command hands the model layer the experts' words (issue #41)
    assert physics is not None and typed.rounds[0].experts["physics"].reasoning_steps[0].mechanism == physics.mechanism
    markdown = export_run(record["run_id"], "md", store=RunStore(load_settings().db_path))
    assert markdown.count(DEMO_LABEL) >= 5  # verdict, summary, conclusions … all say they are demo text


def test_rws_pattern_run_completes_with_labelled_answers(demo: DemoProcess, tmp_path: Path) -> None:
    out = tmp_path / "rws.json"
    ifworld("rws", "run", "--pattern", "pace", "--data", str(SAMPLE), "--limit", "2", "--out", str(out),
            url=demo.url)
    record = load_benchmark_record(json.loads(out.read_text(encoding="utf-8")))
    assert record.n_items == 2 and len(record.results) == 2
    assert all(r.raw_output.startswith(DEMO_LABEL) and r.model == DEMO_MODEL for r in record.results)
    assert {r.grade.verdict for r in record.results} <= {"correct", "incorrect", "not_sure"}


def test_llm_belief_run_completes(demo: DemoProcess) -> None:
    res = ifworld("beliefs", "llm", "--agents", "4", "--rounds", "2", "--json", url=demo.url)
    summary = json.loads(res.stdout)
    record = load_llm_record(stored(summary["run_id"]), run_id=summary["run_id"])
    assert record.final.rounds_used == 2 and record.agent_models == [DEMO_MODEL] * 4
    assert record.counts["malformed"] == 0 and record.counts["unknown_facts"] == 0


def test_unknown_role_gets_a_labelled_generic_answer(demo: DemoProcess) -> None:
    chat = f"{demo.url}/chat/completions"
    unknown = [{"role": "system", "content": "Agent role: nobody.knows"}, {"role": "user", "content": "Hello?"}]
    text = httpx.post(chat, json={"model": "demo", "messages": unknown}).json()["choices"][0]["message"]["content"]
    assert text.startswith(DEMO_LABEL) and "demo server" in text
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["answer", "n"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "X", "schema": schema}}
    reply = httpx.post(chat, json={"model": "demo", "messages": unknown, "response_format": fmt}).json()
    value = json.loads(reply["choices"][0]["message"]["content"])
    assert value["answer"].startswith(DEMO_LABEL) and value["n"] == 1
    tool = {"type": "function", "function": {"name": "X", "parameters": schema}}
    reply = httpx.post(chat, json={"model": "demo", "messages": unknown, "tools": [tool],
                                   "tool_choice": {"type": "function", "function": {"name": "X"}}}).json()
    call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "X" and json.loads(call["arguments"])["answer"].startswith(DEMO_LABEL)
    stream = httpx.post(chat, json={"model": "demo", "messages": unknown, "stream": True}).text
    assert stream.rstrip().endswith("data: [DONE]") and DEMO_LABEL in stream


@pytest.mark.parametrize("body, status", [
    (b"{not json", 400),
    (b"[1, 2]", 400),
    (b'{"messages": "hi"}', 400),
    (b'{"messages": [{"role": "user", "content": "x"}], "tools": [{}]}', 400),
    (b'{"messages": [{"role": "user", "content": "x"}], "response_format": "json"}', 400),
])
def test_malformed_requests_get_http_400(demo: DemoProcess, body: bytes, status: int) -> None:
    res = httpx.post(f"{demo.url}/chat/completions", content=body, headers={"Content-Type": "application/json"})
    assert res.status_code == status and res.json()["error"]["message"]
    assert httpx.get(f"{demo.url}/models").status_code == 200  # still serving


def test_sigterm_stops_the_server(tmp_path: Path) -> None:
    running = start_demo(tmp_path / "stderr.txt")
    assert stop_demo(running) == 0
    assert not _listening(running.port)
    assert "demo server stopped" in running.stderr()


def test_connection_test_passes_and_shows_the_label() -> None:
    with make_demo_server(port=0) as server:
        report = test_connection(load_settings({"base_url": server.url, "model": DEMO_MODEL}))
    assert report.ok and report.structured_ok and DEMO_LABEL in report.message


def test_label_marks_free_text_only() -> None:
    reply = json.dumps({"verdict": "x", "kind": "hard", "ranges": [{"quantity": "g"}], "notes": ["a", "b"]})
    labelled = json.loads(label_reply(reply, frozenset({"verdict", "notes"})))
    assert labelled == {"verdict": "[demo] x", "kind": "hard", "ranges": [{"quantity": "g"}],
                        "notes": ["[demo] a", "[demo] b"]}
    assert label_reply("Final Answer: 3", frozenset()) == "[demo] Final Answer: 3"


@pytest.mark.parametrize("page", ["app_pages/whatif.py", "app_pages/settings.py"])
def test_no_model_panel_names_the_demo_server(page: str) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    panel = " ".join(i.value for i in at.info if "A language model is needed for" in i.value)
    assert "ifworld demo-server" in panel and f"IFWORLD_MODEL={DEMO_MODEL}" in panel
    shown = " ".join(e.value for e in [*at.info, *at.caption, *at.markdown])
    assert "tests.fixtures" not in shown


def test_settings_page_says_when_the_model_is_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_BASE_URL", DEMO_URL)
    monkeypatch.setenv("IFWORLD_MODEL", DEMO_MODEL)
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/settings.py")
    at.run()
    assert not at.exception, at.exception
    assert any("ifworld demo-server" in w.value and DEMO_LABEL in w.value for w in at.warning)


def test_the_demo_answers_by_the_role_header_not_the_prompt() -> None:
    """Issue #41 item 2: the role comes from ``X-IFWorld-Role``; a spec's ``demo_answer`` is served (labelled)
    for its own roles even when the prompt is another role's; a request without the header gets the generic
    answer whatever its prompt says."""
    from ifworld.llm.wire import ROLE_HEADER
    from ifworld.rws import PATTERN_REGISTRY
    from tests.fixtures.examples import load_example

    spec = load_example("toy_pattern").SPEC
    hmaw_prompt = [{"role": "system", "content": "You are the HMAW worker."}, {"role": "user", "content": "Q?"}]
    with make_demo_server(port=0) as server, PATTERN_REGISTRY.temporarily(spec):
        chat = f"{server.url}/chat/completions"

        def ask(role: str | None) -> str:
            headers = {ROLE_HEADER: role} if role else {}
            reply = httpx.post(chat, json={"model": "demo", "messages": hmaw_prompt}, headers=headers, timeout=10)
            return reply.json()["choices"][0]["message"]["content"]

        assert ask("rws.hmaw.manager").startswith(f"{DEMO_LABEL} 1. List the knowns")  # the manager's, not the worker's
        assert ask("rws.draft_check.draft") == f"{DEMO_LABEL} Reasoning: a canned draft.\nFinal Answer: 42"
        assert "no canned answer" in ask(None) and "no canned answer" in ask("rws.nobody.here")
