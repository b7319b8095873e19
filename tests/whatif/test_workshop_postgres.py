"""Two app processes, one room, on PostgreSQL: participants joining, contributing and voting from two OS processes
at the same moment, the facilitator deciding from both — every write exact (none lost, none doubled), and each
process sees the other's within the 2 s a redraw allows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ifworld.access import OPERATOR
from ifworld.runs.store import RunStore
from ifworld.whatif import service, workshop as ws
from ifworld.whatif.params import default_params

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[2]
PEOPLE = 6  # per process

WORKER = textwrap.dedent("""
    import json, sys, time
    from ifworld.access import OPERATOR
    from ifworld.errors import WorkshopError
    from ifworld.runs.store import RunStore
    from ifworld.whatif import workshop as ws
    url, run_id, token, tag, people = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    s = RunStore(url)
    me = [ws.join_workshop(token, f"{tag}{i}", device_key=f"{tag}-device-{i}".ljust(22, "x"), store=s)
          for i in range(people)]
    for p, k in me:
        ws.contribute(run_id, p.id, k, f"idea of {p.name}", store=s)
    deadline = time.time() + 60
    while len(ws.load_workshop(run_id, store=s).contributions) < 2 * people and time.time() < deadline:
        time.sleep(0.05)
    seen_other_after = time.time()
    room = ws.load_workshop(run_id, store=s)
    refused = 0
    for p, k in me:
        for c in room.contributions:
            for _ in range(2):  # the second +1 is refused: one vote per person and contribution
                try:
                    ws.vote(run_id, p.id, k, c.id, store=s)
                except WorkshopError:
                    refused += 1
    mine = [c for c in room.contributions if c.name.startswith(tag)]
    for c in mine[: people // 2]:
        ws.decide(run_id, OPERATOR, c.id, "accept", store=s)
    print(json.dumps({"refused": refused, "saw_all_at": seen_other_after}))
""")


def test_two_processes_one_room_exact(pg_url: str, fake_server, wsettings) -> None:
    store = RunStore(pg_url)
    params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"], rounds=2,
                            review=True, pause_between_rounds=True)
    run_id = service.run(params, settings=wsettings, store=store, source="page")["run_id"]
    w = ws.open_workshop(run_id, caller=OPERATOR, store=store)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, pg_url, run_id, w.token, tag, str(PEOPLE)], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for tag in "AB"]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err[-3000:]
        outs.append(json.loads(out.strip().splitlines()[-1]))
    room = ws.load_workshop(run_id, store=store)
    n = 2 * PEOPLE
    assert len(room.participants) == n and len(room.contributions) == n
    # each person +1s every contribution but their own, once: n - 1 votes per contribution, nothing doubled
    assert all(c.votes == n - 1 for c in room.contributions)
    assert len(room.votes) == n * (n - 1)
    assert sum(o["refused"] for o in outs) == n * n + n  # own contribution twice, everyone else's second time
    decided = [c for c in room.contributions if c.decision is not None]
    assert len(decided) == 2 * (PEOPLE // 2) and {c.decision.decision for c in decided} == {"accept"}
    events = store.workshop_events(run_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert abs(outs[0]["saw_all_at"] - outs[1]["saw_all_at"]) < 10
    start = time.time()
    other = RunStore(pg_url)  # a third process's view: the same room at once
    assert len(ws.load_workshop(run_id, store=other).contributions) == n and time.time() - start < 2
    other.close()
    store.close()
