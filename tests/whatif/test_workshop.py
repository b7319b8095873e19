"""Workshop engine: joining, predictions, contributions, votes, decisions, the frame, the record, the guards."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ifworld.whatif.workshop_export as wr
from ifworld.errors import WorkshopError
from ifworld.whatif import service, workshop as ws
from ifworld.whatif.params import default_params
from ifworld.whatif.session import State, load_session

PROP = "What if the Moon disappeared overnight?"
ROOT = Path(__file__).resolve().parents[2]


def _paused_at_review(wsettings, store) -> str:  # noqa: ANN001
    params = default_params(PROP, experts=["physics", "economics"], rounds=2, review=True,
                            pause_between_rounds=True)
    return service.run(params, settings=wsettings, store=store, source="page")["run_id"]


@pytest.fixture
def room(fake_server, wsettings, store):  # noqa: ANN001, ANN201
    run_id = _paused_at_review(wsettings, store)
    w, secret = ws.open_workshop(run_id, store=store)
    people = [ws.join_workshop(w.token, name, store=store) for name in ("Ada", "Bo", "Cy")]
    return run_id, w, secret, people


def test_open_gives_a_long_token_a_short_code_and_stores_only_the_secret_hash(room, store) -> None:
    run_id, w, secret, _ = room
    assert len(w.token) >= 22 and len(secret) >= 22  # token_urlsafe(16): 128 bits
    assert len(w.code) == ws.CODE_LENGTH and set(w.code) <= set(ws.CODE_ALPHABET)
    raw = store.path.read_bytes() + Path(str(store.path) + "-wal").read_bytes()
    assert secret.encode() not in raw
    assert ws.find_by_code(w.code.lower(), ["s1"], store=store).run_id == run_id
    with pytest.raises(WorkshopError, match="already has a workshop"):
        ws.open_workshop(run_id, store=store)


def test_a_whole_workshop_enters_the_next_round_with_attribution(room, store, wsettings) -> None:
    run_id, w, secret, people = room
    (ada, ka), (bo, kb), (cy, kc) = people
    names = ws.branches(ws.scenario_of(run_id, store=store, settings=wsettings))
    assert len(names) >= 2
    ws.predict(run_id, ada.id, ka, ws.even_split(names), store=store)
    with pytest.raises(WorkshopError, match="sum to 100"):
        ws.predict(run_id, bo.id, kb, dict.fromkeys(names, 10.0), store=store)
    ws.predict(run_id, bo.id, kb, {names[0]: 100.0, **{n: 0.0 for n in names[1:]}}, store=store)
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"action": "continue"})
    assert load_session(run_id, store).state == State.BETWEEN_ROUNDS
    with pytest.raises(WorkshopError, match="locked"):
        ws.predict(run_id, cy.id, kc, ws.even_split(names), store=store)
    c1 = ws.contribute(run_id, ada.id, ka, "Tides vanish: coastal fisheries collapse", "claim", "ecology",
                       store=store)
    c2 = ws.contribute(run_id, bo.id, kb, "Who pays for new navigation aids?", "question", store=store)
    c3 = ws.contribute(run_id, cy.id, kc, "Night-time lighting demand rises", "evidence", store=store)
    assert c1.after_round == 1
    ws.vote(run_id, bo.id, kb, c1.id, store=store)
    ws.vote(run_id, cy.id, kc, c1.id, store=store)
    with pytest.raises(WorkshopError, match="already voted"):
        ws.vote(run_id, cy.id, kc, c1.id, store=store)
    with pytest.raises(WorkshopError, match="your own contribution"):
        ws.vote(run_id, ada.id, ka, c1.id, store=store)
    ws.decide(run_id, secret, c1.id, "accept", store=store)
    ws.decide(run_id, secret, c2.id, "edit", text="Who funds replacement navigation aids?", store=store)
    ws.decide(run_id, secret, c3.id, "reject", store=store)
    room_now = ws.load_workshop(run_id, store=store)
    assert [c.id for c in room_now.by_votes()][0] == c1.id and room_now.by_votes()[0].votes == 2
    assert {c.id for c in room_now.pending()} == {c1.id, c2.id}
    for _ in ws.continue_workshop(run_id, secret, store=store, settings=wsettings):
        pass
    assert load_session(run_id, store).state == State.COMPLETED
    rec = store.get_run(run_id).record
    said = {p["name"]: p["text"] for p in rec["participants"]}
    assert said == {"Ada (workshop claim, ecology, +2)": "Tides vanish: coastal fisheries collapse",
                    "Bo (workshop question)": "Who funds replacement navigation aids?"}
    assert all(p["round"] == 2 for p in rec["participants"])
    assert ws.load_workshop(run_id, store=store).pending() == []
    ws.reveal_workshop(run_id, secret, store=store)
    out = wr.workshop_record(run_id, store=store, anonymise=True)
    assert out is not None and out.revealed and len(out.contributions) == 3 and len(out.votes) == 2
    assert {p.name for p in out.participants} == {"P1", "P2", "P3"}
    assert "Ada" not in out.model_dump_json()
    assert out.comparison and out.comparison[0].gap >= out.comparison[-1].gap


def test_facilitator_actions_refuse_a_participant_key_and_a_forged_secret(room, store) -> None:
    run_id, w, secret, people = room
    (ada, ka), _, _ = people
    c = ws.contribute(run_id, ada.id, ka, "a claim", store=store)
    for wrong in (ka, None, "", w.token, secret + "x", ws._hash(secret)):
        with pytest.raises(WorkshopError, match="only the workshop's facilitator"):
            ws.decide(run_id, wrong, c.id, "accept", store=store)
        with pytest.raises(WorkshopError, match="only the workshop's facilitator"):
            ws.close_workshop(run_id, wrong, store=store)
        with pytest.raises(WorkshopError, match="only the workshop's facilitator"):
            ws.hide_contribution(run_id, wrong, c.id, store=store)
        with pytest.raises(WorkshopError, match="only the workshop's facilitator"):
            ws.continue_workshop(run_id, wrong, store=store)
    assert ws.load_workshop(run_id, store=store).contributions[0].decision is None
    assert ws.is_facilitator(run_id, secret, store=store) and not ws.is_facilitator(run_id, ka, store=store)


def test_participants_act_only_with_their_own_key(room, store) -> None:
    run_id, _, _, people = room
    (ada, ka), (bo, _), _ = people
    with pytest.raises(WorkshopError, match="not a participant"):
        ws.contribute(run_id, bo.id, ka, "speaking for Bo", store=store)
    with pytest.raises(WorkshopError, match="not a participant"):
        ws.contribute(run_id, "nobody", "x", "who am I", store=store)


def test_bounds_and_a_closed_workshop(room, store) -> None:
    run_id, w, secret, people = room
    (ada, ka), _, _ = people
    with pytest.raises(WorkshopError, match="at most 40"):
        ws.join_workshop(w.token, "N" * 41, store=store)
    with pytest.raises(WorkshopError, match="at most 1,000"):
        ws.contribute(run_id, ada.id, ka, "x" * 1001, store=store)
    with pytest.raises(WorkshopError, match="one of claim"):
        ws.contribute(run_id, ada.id, ka, "ok", "rant", store=store)
    for i in range(ws.MAX_CONTRIBUTIONS_PER_ROUND):
        ws.contribute(run_id, ada.id, ka, f"point {i}", store=store)
    with pytest.raises(WorkshopError, match="at most 20 contributions"):
        ws.contribute(run_id, ada.id, ka, "one more", store=store)
    ws.close_workshop(run_id, secret, store=store)
    with pytest.raises(WorkshopError, match="closed"):
        ws.join_workshop(w.token, "Late", store=store)
    with pytest.raises(WorkshopError, match="closed"):
        ws.vote(run_id, ada.id, ka, ws.load_workshop(run_id, store=store).contributions[0].id, store=store)


def test_wrong_codes_are_rate_limited_per_client_and_the_limit_is_stored(room, store, tmp_path) -> None:
    _, w, _, _ = room
    for _ in range(ws.CODE_FAILURES):
        with pytest.raises(WorkshopError, match="no workshop has this code"):
            ws.find_by_code("ZZZZZZ", ["session:a", "ip:10.0.0.7"], store=store)
    with pytest.raises(WorkshopError, match="too many wrong codes"):
        ws.find_by_code(w.code, ["session:b", "ip:10.0.0.7"], store=store)  # same IP, new session: still refused
    from ifworld.runs.store import RunStore

    other = RunStore(store.path)  # another process on the same file sees the same count
    try:
        with pytest.raises(WorkshopError, match="too many wrong codes"):
            ws.find_by_code(w.code, ["session:a"], store=other)
        assert ws.find_by_code(w.code, ["session:c", "ip:10.0.0.8"], store=other).code == w.code
    finally:
        other.close()


def test_two_processes_on_one_store_see_each_others_participants_and_contributions(room, store) -> None:
    run_id, w, _, people = room
    (ada, ka), _, _ = people
    ws.contribute(run_id, ada.id, ka, "from this process", store=store)
    script = textwrap.dedent(f"""
        from ifworld.runs.store import RunStore
        from ifworld.whatif import workshop as ws
        s = RunStore({str(store.path)!r})
        room = ws.load_workshop({run_id!r}, store=s)
        assert [c.text for c in room.contributions] == ["from this process"], room.contributions
        p, k = ws.join_workshop({w.token!r}, "Dee", store=s)
        ws.contribute({run_id!r}, p.id, k, "from the other process", store=s)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
                   timeout=120)
    room_now = ws.load_workshop(run_id, store=store)
    assert "Dee" in {p.name for p in room_now.participants}
    assert {c.text for c in room_now.contributions} == {"from this process", "from the other process"}


def test_merge_keeps_every_contribution_in_the_record(room, store) -> None:
    run_id, _, secret, people = room
    (ada, ka), (bo, kb), _ = people
    a = ws.contribute(run_id, ada.id, ka, "fisheries", store=store)
    b = ws.contribute(run_id, bo.id, kb, "fishing towns", store=store)
    ws.decide(run_id, secret, a.id, "merge", text="Fisheries and fishing towns", merge_with=[b.id], store=store)
    room_now = ws.load_workshop(run_id, store=store)
    assert [c.final_text for c in room_now.pending()] == ["Fisheries and fishing towns"]
    assert len(room_now.contributions) == 2
    assert "merged into" in wr.workshop_markdown(wr.workshop_record(run_id, store=store))


def test_the_workshop_is_in_every_export_and_anonymise_hides_names(room, store, wsettings, monkeypatch) -> None:
    import json

    from typer.testing import CliRunner

    from ifworld.cli import app
    from ifworld.runs import export_run

    run_id, _, secret, people = room
    (ada, ka), (bo, kb), _ = people
    hostile = "<script>alert(1)</script> ![x](http://evil.example/x.png) [go](http://evil.example/)"
    c = ws.contribute(run_id, ada.id, ka, hostile, "concern", store=store)
    ws.vote(run_id, bo.id, kb, c.id, store=store)
    ws.decide(run_id, secret, c.id, "reject", store=store)
    data = json.loads(export_run(run_id, "json", store=store))["record"]["workshop"]
    assert {p["name"] for p in data["participants"]} == {"Ada", "Bo", "Cy"} and len(data["votes"]) == 1
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"action": "continue"})
    md = export_run(run_id, "md", store=store, anonymise=True)
    assert "## Workshop" in md and "| P1 | concern |" in md and "Ada" not in md
    assert "![x](" not in md and not re.search(r"(?<!\\)<script>", md) and "](http://evil.example/)" not in md
    html = export_run(run_id, "html", store=store)
    assert "Workshop" in html and "Ada" in html and "<script>alert" not in html
    assert "<img" not in html.split("<h2>Charts")[0] and 'href="http://evil' not in html
    monkeypatch.setenv("IFWORLD_DB", str(store.path))
    out = CliRunner().invoke(app, ["runs", "export", run_id, "--format", "json", "--anonymise"])
    assert out.exit_code == 0, out.output
    assert {p["name"] for p in json.loads(out.stdout)["record"]["workshop"]["participants"]} == {"P1", "P2", "P3"}
