"""How far cl100k_base's count is from a local model's own tokenizer, on the prompts our agents really send.

The packer counts a prompt with the server's tokenizer when it has one, else with tiktoken's cl100k_base raised
by ``FOREIGN_MARGIN`` (``ifworld/llm/context.py``). This measures that margin: it captures every prompt of an
IF-World run (3 experts × 2 rounds) at the tests' fake server — long replies (``tests/fixtures/long_replies.py``)
and the demo's short ones — then counts each with cl100k_base and with Gemma 3's tokenizer, through the real
llama-cpp-python server the real-server tier starts (``tests/realserver/server.py``, built on first use). It prints
the ratio gemma / cl100k per prompt (min, median, max) and whether the server's own tokenizer answered.

    python benchmarks/calibrate_token_margin.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from ifworld.config import load_settings  # noqa: E402
from ifworld.llm import context  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402
from tests.fixtures.long_replies import LongReplies  # noqa: E402
from tests.realserver.server import start  # noqa: E402


def prompts_of(fake: FakeOpenAI) -> list[str]:
    tmp = Path(tempfile.mkdtemp())
    settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "timeout_s": 30,
                              "max_concurrency": 8, "db_path": str(tmp / "runs.sqlite")})
    service.run(default_params("What if the Moon disappeared overnight?", "ifworld",
                               experts=["physics", "economics", "medicine"], rounds=2),
                settings=settings, store=RunStore(tmp / "store.sqlite"))
    return ["\n".join(str(m.get("content") or "") for m in r.body["messages"])
            for r in fake.requests if r.path.endswith("/chat/completions")]


def gemma_count(url: str, model: str, text: str) -> int:
    root = url.removesuffix("/v1")
    reply = httpx.post(f"{root}/extras/tokenize/count", json={"input": text, "model": model}, timeout=60)
    reply.raise_for_status()
    return int(reply.json()["count"])


def main() -> None:
    texts = []
    for fake in (LongReplies(), FakeOpenAI()):
        with fake:
            texts += prompts_of(fake)
    server = start()
    try:
        settings = load_settings({"base_url": server.url, "model": server.model})
        counter = context.token_counter(settings, "whatif.expert")
        cl100k = context._cl100k()
        ratios = [gemma_count(server.url, server.model, t) / len(cl100k.encode(t, disallowed_special=()))
                  for t in texts]
    finally:
        server.stop()
    print(json.dumps({"prompts": len(texts), "server_counter": counter.name,
                      "gemma_over_cl100k": {"min": round(min(ratios), 3), "median": round(statistics.median(ratios), 3),
                                            "max": round(max(ratios), 3)},
                      "foreign_margin": context.FOREIGN_MARGIN}, indent=1))


if __name__ == "__main__":
    main()
