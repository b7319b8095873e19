"""Prompt tokens a real llama.cpp server evaluates for an IF-World round: shared-first vs role-first prompts.

The expert requests of a 9 × 2 IF-World run are recorded against the fake server, then replayed one after
another (a single-slot server, as people run it on a laptop) to a real llama-cpp-python server with the
Gemma 3 270M GGUF (tests/realserver/server.py builds and starts it), in two layouts:

- shared-first (this code base): common instructions, proposition, scenario, frame — then the role;
- role-first (the layout before the re-layout): the same text with the role part moved to the start of the
  system message (``Agent role: whatif.expert`` / ``You are the <domain> expert`` first).

Each request asks for one token, so the time is prompt evaluation; the evaluated token counts are read from
the server's log (the tokens its prefix cache already held are not evaluated again).

    .venv/bin/python -m benchmarks.bench_prefix_realserver
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from ifworld.whatif.propositions import DEFAULT_EXPERTS  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402
from tests.realserver.server import prompt_evals, start  # noqa: E402

ROLE_MARK = "\nAgent role: whatif.expert"


def recorded_rounds() -> dict[int, list[list[dict]]]:
    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0,
                                  "max_concurrency": 9, "db_path": Path(tmp) / "s.sqlite"})
        params = default_params("What if the Moon disappeared overnight?", "ifworld", experts=list(DEFAULT_EXPERTS),
                                rounds=2)
        service.run(params, settings=settings, store=RunStore(Path(tmp) / "runs.sqlite"))
        rounds: dict[int, list[list[dict]]] = defaultdict(list)
        for r in fake.requests:
            if r.role == "whatif.expert":
                rounds[2 if "<shared_frame>" in str(r.body) else 1].append(r.body["messages"])
    return rounds


def role_first(messages: list[dict]) -> list[dict]:
    """The same request with the role part moved to the start of the system message (the old layout)."""
    system, user = messages[0]["content"], messages[1]["content"]
    head, _, role = user.partition(ROLE_MARK)
    role_text = (ROLE_MARK + role).strip()
    return [{"role": "system", "content": role_text + "\n\n" + system}, {"role": "user", "content": head.rstrip()}]


def replay(server, requests: list[list[dict]]) -> tuple[int, int, float]:
    """(prompt tokens sent, prompt tokens evaluated, seconds) for requests sent one after another."""
    mark = len(server.log_text())
    sent, start_t = 0, time.perf_counter()
    with httpx.Client(timeout=600) as client:
        for messages in requests:
            body = {"model": server.model, "messages": messages, "max_tokens": 1, "temperature": 0}
            reply = client.post(f"{server.url}/chat/completions", json=body).json()
            sent += reply["usage"]["prompt_tokens"]
    seconds = time.perf_counter() - start_t
    evaluated = sum(n for n, _ in prompt_evals(server.log_text()[mark:]))
    return sent, evaluated, seconds


def main() -> None:
    rounds = recorded_rounds()
    server = start()
    try:
        replay(server, [[{"role": "user", "content": "warm up"}]])
        totals = {"shared-first": [0, 0, 0.0], "role-first": [0, 0, 0.0]}
        for rnd, requests in sorted(rounds.items()):
            for layout, reqs in (("role-first", [role_first(m) for m in requests]), ("shared-first", requests)):
                replay(server, [[{"role": "user", "content": f"reset {layout} {rnd}"}]])  # no carry-over
                sent, evaluated, seconds = replay(server, reqs)
                for i, v in enumerate((sent, evaluated, seconds)):
                    totals[layout][i] += v
                print(f"round {rnd}, {len(reqs)} experts, {layout:12s}: {sent:6d} prompt tokens sent, "
                      f"{evaluated:6d} evaluated ({evaluated / sent:.0%}), {seconds:6.1f} s")
        (s_sent, s_eval, s_sec), (r_sent, r_eval, r_sec) = totals["shared-first"], totals["role-first"]
        print(f"SUMMARY expert prompt tokens the server evaluates per 9x2 run: {r_eval} of {r_sent} role-first -> "
              f"{s_eval} of {s_sent} shared-first ({s_eval / r_eval:.0%}); prompt time {r_sec:.0f} s -> {s_sec:.0f} s")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
