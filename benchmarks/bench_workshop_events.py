"""Does one workshop write stay flat as the room talks? And does a flooded room still draw quickly?

For a workshop whose log holds 100, 1,000 and 10,000 events (joins, contributions and votes, as a room makes
them), measured side by side in one run on one store file:

- ``write_ms``: one guarded write as the product makes it — a +1 (open? a participant with this key? does the
  contribution exist, is it not their own, have they not voted yet?) — whose checks ask the indexed columns for
  the rows they need, inside the write lock; ``join_ms``: a join (open? this device new? room not full?);
- ``full_log_ms``: reading and parsing the whole log once, which is what every guarded write did before (and
  what held the write lock while it ran, so a second process waited into ``database is locked``);
- ``fold_ms``: the whole log folded into the room from scratch (what every redraw did before);
  ``redraw_ms``: :func:`ifworld.whatif.load_workshop` as a redraw makes it now, after one new event (the fold
  carries on from the last event it saw) and with none;
- ``page_s`` (6,000 contributions): the facilitator's What-if page drawn once under AppTest, 50 rows per kind
  (SQLite only; ``--no-page`` skips it).

    python benchmarks/bench_workshop_events.py
    python benchmarks/bench_workshop_events.py --store sqlite --store postgresql://user:pw@host/db --no-page

``--store`` (repeatable): ``sqlite`` (a new file, the default) or a ``postgresql://`` URL to an empty database;
each store gets its own table, one after the other.

Last line: ``SUMMARY {json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import workshop as ws  # noqa: E402
from ifworld.whatif.workshop_models import fold  # noqa: E402

SIZES = (100, 1_000, 10_000)
REPEATS = 30
PEOPLE = 40


def _fill(store: RunStore, run_id: str, events: int) -> list[tuple[str, str]]:
    """Bulk-insert a room's events (joins, then contributions and votes) as the engine writes them."""
    people = [(secrets.token_hex(6), secrets.token_urlsafe(16)) for _ in range(PEOPLE)]
    rows, seq = [], 0
    for pid, key in people:
        seq += 1
        rows.append((run_id, seq, time.time(), "join", json.dumps({"id": pid, "name": f"P{seq}",
                                                                   "key_hash": ws._hash(key)}), pid, ws._hash(key)))
    while seq < events:
        pid = people[seq % PEOPLE][0]
        seq += 1
        cid = f"c{seq}"
        if seq % 3:
            data = {"id": cid, "participant_id": pid, "after_round": seq % 5 + 10, "kind": "claim",
                    "text": f"point {seq}", "tag": "", "name": "P"}
            rows.append((run_id, seq, time.time(), "contribute", json.dumps(data), pid, cid))
        else:
            data = {"participant_id": pid, "contribution_id": f"c{seq - 1}"}
            rows.append((run_id, seq, time.time(), "vote", json.dumps(data), pid, f"c{seq - 1}"))
    with store._tx() as c:
        c.executemany("INSERT INTO ifw_workshop_events (run_id, seq, at, kind, data, actor, ref) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    if store.backend == "postgres":  # what autovacuum does within a minute of a room growing (ifworld.runs.postgres);
        with store._tx() as c:  # a room never grows by 10,000 events at once, this bulk fill does
            c.execute("ANALYZE ifw_workshop_events")
    return people


def _median_ms(fn) -> float:  # noqa: ANN001
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _room(store: RunStore, events: int) -> tuple[str, list[tuple[str, str]]]:
    run_id = store.create_run("whatif", "whatif.ifworld", {"proposition": "What if?", "rounds": 2}, "bench")
    store.add_workshop(run_id, token=secrets.token_urlsafe(16), code=secrets.token_hex(3).upper())
    return run_id, _fill(store, run_id, events)


def _page_seconds(home: Path) -> float:
    """The facilitator's What-if page with 6,000 contributions in its workshop, drawn once under AppTest."""
    from streamlit.testing.v1 import AppTest

    from ifworld.whatif import service
    from ifworld.whatif.params import default_params
    from tests.fixtures.fake_openai import FakeOpenAI

    os.environ["IFWORLD_DB"] = str(home / "page.sqlite")
    with FakeOpenAI() as fake:
        from ifworld.config import load_settings

        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0})
        store = RunStore(home / "page.sqlite")
        params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"],
                                rounds=2, review=True, pause_between_rounds=True)
        run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
        service.run({}, settings=settings, store=store, run_id=run_id, answer={"action": "continue"})
        store.add_workshop(run_id, token=secrets.token_urlsafe(16), code="BENCH1")
        _fill(store, run_id, 9_000 + PEOPLE)  # ≈ 6,000 contributions and 3,000 votes
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.switch_page("app_pages/whatif.py")
        at.query_params["run"] = run_id
        start = time.perf_counter()
        at.run()
        took = time.perf_counter() - start
        assert not at.exception, at.exception
        return took


def measure(store: RunStore) -> dict[str, float]:
    """The table for one store; returns its figures."""
    summary: dict[str, float] = {}
    print(f"store: {store.backend} ({store.label})")
    print("events  write_ms  join_ms  full_log_ms  fold_ms  redraw_new_ms  redraw_same_ms")
    for size in SIZES:
        run_id, _ = _room(store, size)
        token = store.workshop_row(run_id=run_id)["token"]
        voters = [ws.join_workshop(token, f"Voter {i}", device_key=secrets.token_urlsafe(16), store=store)
                  for i in range(REPEATS)]
        turn = iter(voters)

        def write(run_id: str = run_id, turn=turn) -> None:  # noqa: ANN001
            person, key = next(turn)
            ws.vote(run_id, person.id, key, f"c{PEOPLE + 1}", store=store)  # the first contribution

        def join(token: str = token) -> None:
            ws.join_workshop(token, "Late", device_key=secrets.token_urlsafe(16), store=store)

        write_ms, join_ms = _median_ms(write), _median_ms(join)
        full_ms = _median_ms(lambda run_id=run_id: store.workshop_events(run_id))
        row = store.workshop_row(run_id=run_id)
        fold_ms = _median_ms(lambda run_id=run_id, row=row: fold(row, store.workshop_events(run_id)))
        redraws = []
        for i in range(REPEATS):  # one new event, then the redraw that shows it
            ws.join_workshop(token, f"Redraw {i}", device_key=secrets.token_urlsafe(16), store=store)
            start = time.perf_counter()
            ws.load_workshop(run_id, store=store)
            redraws.append((time.perf_counter() - start) * 1000)
        new_ms = statistics.median(redraws)
        same_ms = _median_ms(lambda run_id=run_id: ws.load_workshop(run_id, store=store))
        print(f"{size:6d}  {write_ms:8.2f}  {join_ms:7.2f}  {full_ms:11.2f}  {fold_ms:7.1f}  {new_ms:13.1f}  "
              f"{same_ms:14.2f}")
        summary.update({f"write_ms_{size}": round(write_ms, 2), f"join_ms_{size}": round(join_ms, 2),
                        f"full_log_ms_{size}": round(full_ms, 2), f"fold_ms_{size}": round(fold_ms, 1),
                        f"redraw_new_ms_{size}": round(new_ms, 1), f"redraw_same_ms_{size}": round(same_ms, 2)})
    summary["write_ratio_10000_vs_100"] = round(summary["write_ms_10000"] / summary["write_ms_100"], 2)
    summary["full_log_ratio_10000_vs_100"] = round(summary["full_log_ms_10000"] / summary["full_log_ms_100"], 1)
    print(f"one write, 10,000 vs 100 events: x{summary['write_ratio_10000_vs_100']}; "
          f"the whole-log read the old check made: x{summary['full_log_ratio_10000_vs_100']}")
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", action="append", help="sqlite (a new file) or a postgresql:// URL; repeatable")
    ap.add_argument("--no-page", action="store_true", help="skip the AppTest page figure")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-events-"))
    summary: dict[str, float] = {}
    for n, where in enumerate(args.store or ["sqlite"]):
        store = RunStore(home / f"events{n}.sqlite" if where == "sqlite" else where)
        figures = measure(store)
        summary.update({f"{store.backend}_{k}" if store.backend != "sqlite" else k: v for k, v in figures.items()})
        store.close()
    if args.no_page:
        print("SUMMARY " + json.dumps(summary))
        return
    summary["page_s_6000"] = round(_page_seconds(home), 2)
    print(f"facilitator page with ~6,000 contributions: {summary['page_s_6000']} s (AppTest, one full run)")
    print("SUMMARY " + json.dumps(summary))


if __name__ == "__main__":
    main()
