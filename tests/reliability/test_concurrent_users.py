"""A workshop of 8 users, each starting a what-if run at once (Streamlit sessions are threads of one process).

Every run completes, runs don't mix, the store stays consistent, and the endpoint never sees more
concurrent requests than the configured limit. Prints throughput and the peak.
"""

from __future__ import annotations

import threading
import time

from ifworld import runs
from ifworld.runs.store import RunStore

USERS = 8
LIMIT = 4
TOPICS = ["the Moon disappeared", "gravity doubled", "all insects disappeared", "oxygen levels rose",
          "sea levels rose 10 m", "Earth's magnetic field collapsed", "a supervolcano erupted", "a global cloud"]


def test_eight_users_share_the_limit(fake_server, settings, store: RunStore, capsys) -> None:
    fake_server.latency = 0.1
    cfg = settings.model_copy(update={"max_concurrency": LIMIT})
    records: dict[int, dict] = {}
    errors: list[BaseException] = []

    def user(i: int) -> None:
        params = {"proposition": f"What if {TOPICS[i]}?", "method": "ifworld",
                  "experts": ["physics", "economics"], "rounds": 1}
        try:
            records[i] = runs.execute("whatif.ifworld", params, store=store, settings=cfg)
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    start = time.perf_counter()
    threads = [threading.Thread(target=user, args=(i,)) for i in range(USERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    wall = time.perf_counter() - start
    assert not errors, errors
    assert len(records) == USERS
    for i, record in records.items():
        assert TOPICS[i] in record["proposition"]
    saved = store.list_runs(kind="whatif")
    assert len(saved) == USERS and all(r.status == "completed" for r in saved)
    assert sorted(r.record["proposition"] for r in saved) == sorted(rec["proposition"] for rec in records.values())
    for info in saved:  # each run's call log holds only its own calls
        assert len(store.calls(info.id)) == len(info.record["calls"]) > 0
    assert fake_server.peak_concurrency <= LIMIT
    with capsys.disabled():
        print(f"\n{USERS} concurrent what-if runs: {wall:.1f} s wall, {USERS / wall * 60:.1f} runs/min, "
              f"{fake_server.count()} requests, peak concurrency {fake_server.peak_concurrency} (limit {LIMIT})")
