"""Streaming overhead and prompt-prefix sharing for one 9-expert IF-World round (a script, not a timed test).

1. Wall time of a round of 9 concurrent expert calls inside a LangGraph graph streamed the way the page
   consumes it (custom + updates + messages), against the fake server generating tokens at a steady pace:
   streamed structured calls with throttled partial-JSON progress events vs the non-streaming path
   (``IFWORLD_STREAM=false``), alternating, several repeats. Target: overhead ≤ 10 %.
2. The share of each expert request that is a byte-identical prefix shared by the round's experts, in
   characters and in word-piece tokens (``\\w+|[^\\w\\s]``, a tokenizer-free proxy), for rounds 1 and 2
   of a 9 × 2 run. Target: ≥ 80 %.

    .venv/bin/python -m benchmarks.bench_streaming [--repeats 5] [--token-delay 0.004]
"""

from __future__ import annotations

import argparse
import operator
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Send  # noqa: E402

from ifworld import prompts  # noqa: E402
from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import agents, service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from ifworld.whatif.propositions import DEFAULT_EXPERTS  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402

PROPOSITION = "What if the Moon disappeared overnight?"
TOKEN_RE = re.compile(r"\w+|[^\w\s]")


class RoundState(TypedDict, total=False):
    outputs: Annotated[list[dict], operator.add]


def round_graph(settings):
    def expert(task: dict) -> dict:
        return {"outputs": [agents.expert(task["domain"], 1, PROPOSITION, None, settings)]}

    g = StateGraph(RoundState)
    g.add_node("expert", expert)
    g.add_conditional_edges(START, lambda s: [Send("expert", {"domain": d}) for d in DEFAULT_EXPERTS])
    g.add_edge("expert", END)
    return g.compile()


def timed_round(settings) -> tuple[float, int]:
    start, partials = time.perf_counter(), 0
    for mode, chunk in round_graph(settings).stream({"outputs": []}, stream_mode=["custom", "updates", "messages"]):
        if mode == "custom" and chunk.get("kind") == "expert_partial":
            partials += 1
    return time.perf_counter() - start, partials


def overhead(repeats: int, token_delay: float) -> None:
    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.token_delay = token_delay
        base = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "max_concurrency": 9,
                              "db_path": Path(tmp) / "s.sqlite"})
        streamed, plain, events = [], [], []
        timed_round(base)  # warm-up (imports, method memory)
        for _ in range(repeats):
            t, n = timed_round(base)
            streamed.append(t)
            events.append(n)
            plain.append(timed_round(base.model_copy(update={"stream": False}))[0])
        s, p = statistics.median(streamed), statistics.median(plain)
        reply_chunks = max(len(r.content) for r in fake.requests) // 24
        print(f"9-expert round, fake server streaming ~{reply_chunks} chunks per reply at {token_delay * 1000:g} ms "
              f"each, {repeats} repeats (median):")
        print(f"  non-streaming path      {p:6.2f} s")
        print(f"  streamed + partials     {s:6.2f} s   ({statistics.median(events):.0f} expert_partial events)")
        print(f"SUMMARY streaming overhead: {100 * (s / p - 1):+.1f} % (target ≤ +10 %)")


def prefix_sharing() -> None:
    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "max_concurrency": 9,
                                  "db_path": Path(tmp) / "s.sqlite"})
        store = RunStore(Path(tmp) / "runs.sqlite")
        params = default_params(PROPOSITION, "ifworld", experts=list(DEFAULT_EXPERTS), rounds=2)
        service.run(params, settings=settings, store=store)
        by_round: dict[int, list[str]] = defaultdict(list)
        for r in fake.requests:
            if r.role == "whatif.expert":
                by_round[2 if "<shared_frame>" in str(r.body) else 1].append(prompts.flatten(r.body["messages"]))
    for rnd, texts in sorted(by_round.items()):
        shared = prompts.shared_prefix(texts)
        tokens_shared = len(TOKEN_RE.findall(texts[0][:shared]))
        chars = [shared / len(t) for t in texts]
        toks = [tokens_shared / len(TOKEN_RE.findall(t)) for t in texts]
        print(f"round {rnd}: {len(texts)} experts, shared prefix {shared} chars; per request "
              f"{min(chars):.1%}–{max(chars):.1%} of characters, {min(toks):.1%}–{max(toks):.1%} of tokens")
    print(f"SUMMARY prompt prefix shared by a round's experts: ≥ {min(min(toks), min(chars)):.1%} (target ≥ 80 %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--token-delay", type=float, default=0.004, help="seconds per streamed chunk")
    args = parser.parse_args()
    overhead(args.repeats, args.token_delay)
    prefix_sharing()


if __name__ == "__main__":
    main()
