"""What share of each input reached each what-if agent, measured at the wire, and the tokens a run costs.

Runs IF-World (3 experts, 2 rounds, debate on) against
- ``--server long``: the tests' long-reply fake (every text field 150–400 characters with a unique marker, every
  list of findings 4–8 items; ``tests/fixtures/long_replies.py``), and measures, from the prompts the fake
  received, the share of each reply's markers that reached the agents that should read it;
- ``--server demo``: the demo model's short canned replies (shares from the call records, when recorded).

``--window N`` reports an N-token window from the fake's ``/props`` (as llama.cpp does); without it the code's
default applies. The script only uses what every version of the code has (the fake server, ``service.run``), so
the same file measures an older checkout: copy it and the fixture there and run it side by side.

    python benchmarks/bench_whole_inputs.py --server long --window 131072
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld.config import load_settings  # noqa: E402
from ifworld.llm.demo_answers import prompt_text  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402
from tests.fixtures.long_replies import LongReplies, markers, share_of  # noqa: E402

PROPOSITION = "What if the Moon disappeared overnight?"
EXPERTS = ["physics", "economics", "medicine"]


def _by_role(fake: FakeOpenAI, role: str) -> list:
    return sorted((r for r in fake.requests if (r.role or "") == role and r.status == 200), key=lambda r: r.start)


def wire_shares(fake: FakeOpenAI) -> dict[str, float]:
    """The lowest share of the wanted markers found in each reader's prompt."""
    experts, resolvers = _by_role(fake, "whatif.expert"), _by_role(fake, "whatif.resolver")
    briefs, refiner = _by_role(fake, "whatif.debate.judge"), _by_role(fake, "whatif.refiner")
    writers = [r for r in fake.requests if (r.role or "").startswith("whatif.report.")]
    out: dict[str, float] = {}
    n = len(experts) // 2
    out["resolver <- each expert's output"] = min(
        share_of(markers(e.content), prompt_text(res.body))
        for i, res in enumerate(resolvers) for e in experts[i * n:(i + 1) * n])
    if resolvers and experts[n:]:
        out["round-2 expert <- Ψ"] = min(share_of(markers(resolvers[0].content), prompt_text(e.body))
                                         for e in experts[n:])
    if briefs and experts[n:]:
        out["round-2 expert <- D_r"] = min(share_of(markers(briefs[0].content), prompt_text(e.body))
                                           for e in experts[n:])
    if refiner:
        out["every expert <- scenario"] = min(share_of(markers(refiner[0].content), prompt_text(e.body))
                                              for e in experts)
    if resolvers and writers:
        out["every report writer <- final Ψ"] = min(share_of(markers(resolvers[-1].content), prompt_text(w.body))
                                                    for w in writers)
    return {k: round(v, 3) for k, v in out.items()}


def prefix_shares(fake: FakeOpenAI) -> list[float]:
    """Per round, the share of an expert's prompt (system + user, in characters) that the round's experts share
    byte for byte from the start: what a server can evaluate once for the whole panel."""
    experts = _by_role(fake, "whatif.expert")
    n = len(EXPERTS)
    out = []
    for i in range(0, len(experts), n):
        texts = ["\n".join(str(m.get("content") or "") for m in r.body["messages"]) for r in experts[i:i + n]]
        common = os.path.commonprefix(texts)
        out.append(round(len(common) / (sum(map(len, texts)) / len(texts)), 3))
    return out


def recorded_shares(calls: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {}
    for c in calls:
        for part in ((c.get("inputs") or {}).get("parts") or {}).values():
            role = c["role"]
            out[role] = round(min(out.get(role, 1.0), float(part["share"])), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", choices=("long", "demo"), default="long")
    ap.add_argument("--window", type=int, default=None)
    args = ap.parse_args()
    fake = (LongReplies() if args.server == "long" else FakeOpenAI()).start()
    if args.window:
        fake.context_tokens = args.window
    tmp = Path(tempfile.mkdtemp())
    settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "timeout_s": 30,
                              "max_concurrency": 8, "db_path": str(tmp / "runs.sqlite")})
    start = time.perf_counter()
    rec = service.run(default_params(PROPOSITION, "ifworld", experts=EXPERTS, rounds=2), settings=settings,
                      store=RunStore(tmp / "store.sqlite"))
    seconds = time.perf_counter() - start
    usage = rec["usage"]
    by_role: dict[str, int] = {}
    for c in rec["calls"]:
        key = "whatif.report" if c["role"].startswith("whatif.report") else c["role"]
        by_role[key] = by_role.get(key, 0) + int(c.get("prompt_tokens") or 0)
    fake.stop()
    print(json.dumps({"server": args.server, "window": args.window, "calls": len(rec["calls"]),
                      "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                      "prompt_tokens_by_role": by_role, "seconds": round(seconds, 1),
                      "wire_shares": wire_shares(fake) if args.server == "long" else None,
                      "expert_prefix_share_by_round": prefix_shares(fake),
                      "recorded_lowest_share": recorded_shares(rec["calls"])}, indent=1))


if __name__ == "__main__":
    main()
