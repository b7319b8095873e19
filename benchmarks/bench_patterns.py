"""Calls per item per pattern against the fake server, checked against each pattern's state machine.

For every pattern: one item whose first answer the fake server gets right (the accept path) and one it gets
wrong first (reviewers reject → one retry: the reject path). Prints measured calls per role beside the
expected ones, then a small benchmark run (accuracy, calls, tokens, wall time per pattern). Exit 1 on any
mismatch. Run: ``python benchmarks/bench_patterns.py``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.rws import benchmark  # noqa: E402
from ifworld.rws.patterns import REGISTRY  # noqa: E402
from ifworld.rws.patterns.run import run_pattern  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402

ACCEPT_ITEM, REJECT_ITEM = "2025_IFW_2_b", "2025_IFW_1_b"


def check_paths(fake: FakeOpenAI, settings, items: dict) -> bool:
    ok = True
    print(f"{'pattern':<8} {'path':<7} {'calls':>5} {'expected':>8}  per role (measured/expected)")
    for pattern in REGISTRY.names():
        for path, item_id in (("accept", ACCEPT_ITEM), ("reject", REJECT_ITEM)):
            expected = REGISTRY.get(pattern).calls.get(path) or REGISTRY.get(pattern).calls["accept"]
            fake.reset()
            run_pattern(pattern, items[item_id], settings, verify=False)  # the pattern's own calls
            measured = {r: fake.count(f"rws.{pattern}.{r}") for r in expected}
            same = measured == expected and fake.count() == sum(expected.values())
            ok &= same
            roles = ", ".join(f"{r} {measured[r]}/{n}" for r, n in expected.items())
            print(f"{pattern:<8} {path:<7} {fake.count():>5} {sum(expected.values()):>8}  {roles}"
                  f"{'' if same else '   <-- MISMATCH'}")
    return ok


def small_run(settings, items: list, tmp: Path) -> None:
    store = RunStore(tmp / "bench.sqlite")
    params = benchmark.benchmark_params(items, list(REGISTRY.names()), limit=9)
    start = time.perf_counter()
    record = benchmark.run_benchmark(params, store=store, settings=settings)
    wall = time.perf_counter() - start
    print(f"\nbenchmark run: {len(params['items'])} items × {len(REGISTRY)} patterns in {wall:.2f} s")
    print(f"{'pattern':<8} {'accuracy':>8} {'calls/item':>10} {'tokens/item':>11}")
    for row in record["cost"]:
        if row["pattern"] == "verifier":  # grading calls, not a pattern's (the verifier is on by default)
            print(f"verifier (Parser + Judge on answers the grader did not call correct): {row['calls']} calls, "
                  f"{row['total_tok']} tokens")
            continue
        print(f"{row['pattern']:<8} {row['accuracy']:>8.2f} {row['calls_per_item']:>10.2f}"
              f" {row['total_tok'] / max(row['items'], 1):>11.0f}")
    store.close()


def main() -> int:
    import tempfile

    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0,
                                  "max_concurrency": 8})
        sample = benchmark.load_sample()
        ok = check_paths(fake, settings, {i.id: i for i in sample})
        small_run(settings, sample, Path(tmp))
    print("\nall call counts match the state machines" if ok else "\nMISMATCH between calls and state machines")
    print("SUMMARY " + json.dumps({"pattern call counts match the state machines": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
