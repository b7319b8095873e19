"""The phone page's server (ui/phone_server.py) over HTTP, against a real store and the engine: the page, its
stream, every action, and what a forged or flooding client gets."""

from __future__ import annotations

import json
import secrets

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from ifworld import access, whatif
from ifworld.access import OPERATOR
from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ui import phone_server
from ui.phone_server import ACTION_HEADER, ROUTES

PROP = "What if the Moon disappeared overnight?"
HOSTILE = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


@pytest.fixture
def room(fake_server, settings, store, tmp_path, monkeypatch):  # noqa: ANN001, ANN201
    monkeypatch.setenv("IFWORLD_DB", str(tmp_path / "store.sqlite"))
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_MODEL", "fake-model")
    params = default_params(PROP, experts=["physics", "economics"], rounds=2, review=True, pause_between_rounds=True)
    run_id = service.run(params, settings=settings.model_copy(update={"max_concurrency": 16}), store=store,
                         source="page")["run_id"]
    ws = whatif.open_workshop(run_id, caller=OPERATOR, store=store)
    phone_server._budgets.clear()
    return run_id, ws


def phone() -> TestClient:
    client = TestClient(Starlette(routes=ROUTES), base_url="http://class.example")
    client.cookies.set(access.DEVICE_COOKIE, secrets.token_urlsafe(16))
    return client


def post(client: TestClient, action: str, body: dict, **headers: str):  # noqa: ANN201
    return client.post(f"/p/{action}", content=json.dumps(body),
                       headers={ACTION_HEADER: "1", "content-type": "application/json", **headers})


def start_of(html: str) -> dict:
    return json.loads(html.split('<script type="application/json" id="start">', 1)[1].split("</script>", 1)[0])


def test_code_then_name_then_the_room(room) -> None:
    run_id, ws = room
    client = phone()
    assert client.get("/p", follow_redirects=False).headers["location"] == "p/"
    assert start_of(client.get("/p/").text) == {"screen": "code"}
    token = post(client, "find", {"code": ws.code.lower()}).json()["token"]
    assert token == ws.token
    joining = start_of(client.get(f"/p/?w={token}").text)
    assert joining["screen"] == "join" and joining["proposition"] == PROP and not joining["roster"]
    assert post(client, "join", {"token": token, "given": "Ada"}).json() == {"ok": True, "token": token, "name": "Ada"}
    assert start_of(client.get(f"/p/?w={token}").text) == {"screen": "room", "token": token}  # the device is known


def test_the_stream_sends_this_phones_view(room, store) -> None:
    run_id, ws = room
    client = phone()
    post(client, "join", {"token": ws.token, "given": "Ada"})
    other = phone()
    post(other, "join", {"token": ws.token, "given": "Bo"})
    said = post(other, "send", {"token": ws.token, "text": HOSTILE, "kind": "concern"})
    assert said.status_code == 400 and "round" in said.json()["message"] or said.json()["ok"]
    with client.stream("GET", f"/p/events?w={ws.token}") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        view = _first_view(stream)
    assert view["me"] == "Ada" and view["form"] == "predict" and view["branches"]
    assert view["status_line"].startswith("You are Ada · ")


def _first_view(stream) -> dict:  # noqa: ANN001
    """The whole view a new stream starts with (its first patch: every field, every row in order)."""
    event = None
    for line in stream.iter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "patch":
            view = json.loads(line[6:])
            rows = view.pop("rows", {"order": [], "changed": []})
            assert [r["id"] for r in rows["changed"]] == rows["order"]
            return {**view, "rows": rows["changed"]}
    raise AssertionError("no view came")


def test_a_prediction_is_checked_by_the_engine(room) -> None:
    run_id, ws = room
    client = phone()
    post(client, "join", {"token": ws.token, "given": "Ada"})
    names = whatif.branches(whatif.scenario_of(run_id))
    bad = post(client, "predict", {"token": ws.token, "probabilities": {n: 10 for n in names}})
    assert bad.status_code == 400 and "100" in bad.json()["message"]
    even = whatif.even_split(names)
    good = post(client, "predict", {"token": ws.token, "probabilities": even})
    assert good.json()["ok"]
    assert whatif.load_workshop(run_id).predictions[0].probabilities == even


@pytest.mark.parametrize("forgery", ["no header", "other origin", "no device"])
def test_forged_presses_do_nothing(room, forgery) -> None:
    run_id, ws = room
    client = phone()
    post(client, "join", {"token": ws.token, "given": "Ada"})
    headers = {"origin": "http://evil.example"} if forgery == "other origin" else {}
    if forgery == "no header":
        reply = client.post("/p/predict", content=json.dumps({"token": ws.token, "probabilities": {}}))
    else:
        if forgery == "no device":
            client.cookies.clear()
        reply = post(client, "predict", {"token": ws.token, "probabilities": {}}, **headers)
    assert reply.status_code == 403
    assert whatif.load_workshop(run_id).predictions == []


def test_a_device_that_has_not_joined_gets_no_stream_and_no_action(room) -> None:
    run_id, ws = room
    client = phone()
    assert client.get(f"/p/events?w={ws.token}").status_code == 403
    reply = post(client, "send", {"token": ws.token, "text": "hello"})
    assert reply.status_code == 400 and "join" in reply.json()["message"]


def test_a_flood_of_presses_is_held_at_the_budget(room, monkeypatch) -> None:
    """A script pressing as fast as it can gets the burst, then 429 — before the engine or the store is asked."""
    monkeypatch.setattr(phone_server, "ACTIONS_PER_S", 0.0)  # no refill while the test runs, however slow it is
    run_id, ws = room
    client = phone()
    codes = [post(client, "find", {"code": "NOPE00"}).status_code for _ in range(phone_server.ACTION_BURST + 5)]
    assert codes[phone_server.ACTION_BURST:] == [429] * 5 and 429 not in codes[:phone_server.ACTION_BURST]


def test_two_processes_share_one_budget(room, monkeypatch) -> None:
    """Behind a proxy each press may reach another process, whose in-memory bucket is full: the budget also lives
    in the store, so a device still gets one burst in all, not one per process."""
    monkeypatch.setattr(phone_server, "ACTIONS_PER_S", 0.0)
    run_id, ws = room
    client = phone()
    codes = []
    for press in range(phone_server.ACTION_BURST + 5):
        if press % 2:  # every other press lands on a second process: nothing of the first one's memory
            phone_server._budgets.clear()
        codes.append(post(client, "find", {"code": "NOPE00"}).status_code)
    assert codes[phone_server.ACTION_BURST:] == [429] * 5 and 429 not in codes[:phone_server.ACTION_BURST]
    other = phone()  # another device has its own budget
    assert post(other, "find", {"code": "NOPE00"}).status_code != 429


def test_the_page_carries_hostile_text_only_as_json_data(room, store) -> None:
    run_id, ws = room
    client = phone()
    html = client.get("/p/?w=" + "</script><script>alert(1)</script>").text
    assert "<script>alert(1)" not in html and "</script><script>" not in html.split('id="start">', 1)[1][:200]


def _view(client: TestClient, token: str) -> dict:
    with client.stream("GET", f"/p/events?w={token}") as stream:
        return _first_view(stream)


def test_every_state_of_a_workshop_through_the_phone(room, store, settings) -> None:
    """Review → between rounds → completed → revealed, as two phones see it: the form of each state, the room,
    the reveal's numbers side by side — and no "None" in any view (a cell with no value is "—")."""
    run_id, ws = room
    ada, bo = phone(), phone()
    post(ada, "join", {"token": ws.token, "given": "Ada"})
    post(bo, "join", {"token": ws.token, "given": "Bo"})
    views = [_view(ada, ws.token)]
    names = views[0]["branches"]
    assert post(ada, "predict", {"token": ws.token, "probabilities": {names[0]: 70, names[1]: 30,
                                                                      **{n: 0 for n in names[2:]}}}).json()["ok"]
    wsettings = settings.model_copy(update={"max_concurrency": 16})
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"action": "continue"})
    views.append(between := _view(ada, ws.token))
    assert between["form"] == "contribute" and between["frame"] and between["frame_round"] == 1
    sent = post(ada, "send", {"token": ws.token, "text": HOSTILE, "kind": "concern", "tag": "ecology"}).json()
    again = post(ada, "send", {"token": ws.token, "text": HOSTILE, "kind": "concern", "tag": "ecology"}).json()
    assert sent["ok"] and again["id"] == sent["id"]  # a Send whose answer was lost, pressed again: one contribution
    assert post(bo, "vote", {"token": ws.token, "contribution_id": sent["id"]}).json()["ok"]
    refused = post(ada, "vote", {"token": ws.token, "contribution_id": sent["id"]})
    assert refused.status_code == 400 and "own" in refused.json()["message"]
    mine, theirs = _view(ada, ws.token), _view(bo, ws.token)
    assert [r["text"] for r in mine["rows"]] == [HOSTILE] and " you · " in mine["rows"][0]["who"]
    assert theirs["rows"][0]["actions"][0] == {"name": "vote", "label": "+1 (1)", "enabled": False,
                                               "title": "you have +1'd it"}
    whatif.decide(run_id, OPERATOR, sent["id"], "accept", store=store)
    for _ in whatif.continue_workshop(run_id, OPERATOR, store=store, settings=wsettings, background=False) or ():
        pass
    views.append(done := _view(ada, ws.token))
    assert done["rows"][0]["who"].endswith("accepted · went into round 2")  # what became of Ada's contribution
    assert done["form"] == "none" and done["report"] and done["reveal"] == {
        "revealed": False, "columns": [], "rows": [], "predicted": False, "note": whatif.NO_GROUND_TRUTH}
    whatif.reveal_workshop(run_id, OPERATOR, store=store)
    views += [shown := _view(ada, ws.token), other := _view(bo, ws.token)]
    table = dict(zip(shown["reveal"]["columns"], zip(*shown["reveal"]["rows"], strict=True), strict=True))
    assert shown["reveal"]["predicted"] and not other["reveal"]["predicted"]
    mine_pct = dict(zip(table["Branch"], table["You (%)"], strict=True))
    assert mine_pct[names[0]] == "70" and mine_pct[names[1]] == "30"
    assert all(cell.replace(".", "").isdigit() for cell in table["Panel (%)"][:len(names)])  # the panel's own %
    for view in views:
        assert "None" not in json.dumps(view), view["form"]


def test_one_device_may_hold_only_a_few_streams(room, monkeypatch) -> None:
    run_id, ws = room
    client = phone()
    post(client, "join", {"token": ws.token, "given": "Ada"})
    device = client.cookies[access.DEVICE_COOKIE]
    monkeypatch.setitem(phone_server._streams, device, phone_server.MAX_STREAMS_PER_DEVICE)
    reply = client.get(f"/p/events?w={ws.token}")
    assert reply.status_code == 429 and "Too many pages" in reply.json()["message"]


def test_after_the_whole_view_a_phone_gets_only_what_changed(room, store, settings) -> None:
    """The Patcher: the first patch is everything; an unchanged view is nothing; a new row is that row, the order
    and the heading that counts the rows — not the room, the scenario and the rest again."""
    from ui.phone_view import Patcher, phone_view, read_run

    run_id, ws = room
    ada = whatif.join_workshop(ws.token, "Ada", device_key=secrets.token_urlsafe(16), store=store)[0]
    bo, bo_key = whatif.join_workshop(ws.token, "Bo", device_key=secrets.token_urlsafe(16), store=store)
    patcher = Patcher()
    first = patcher.patch(phone_view(read_run(run_id, store, settings), ada.id))
    assert first is not None and {"scenario", "form", "rows", "status_line"} <= set(first)
    assert patcher.patch(phone_view(read_run(run_id, store, settings), ada.id)) is None
    said = whatif.contribute(run_id, bo.id, bo_key, "Ferries need tide-free charts", store=store)
    patch = patcher.patch(phone_view(read_run(run_id, store, settings), ada.id))
    assert patch is not None and set(patch) == {"rows", "room_heading"}
    assert patch["rows"]["order"] == [said.id] and [r["text"] for r in patch["rows"]["changed"]] == [
        "Ferries need tide-free charts"]


def test_a_roster_room_takes_a_personal_code_not_a_name(room, store) -> None:
    """The join screen of a roster room asks for the personal code; the roster's name is the one that joins, a
    typed name is refused, and a second device cannot take a code already held."""
    run_id, ws = room
    codes = {c.name: c.code for c in whatif.set_roster(run_id, OPERATOR, ["Ada Lovelace", "Bo"], store=store)}
    first, second = phone(), phone()
    assert start_of(first.get(f"/p/?w={ws.token}").text)["roster"] is True
    refused = post(first, "join", {"token": ws.token, "given": "Mallory"})
    assert refused.status_code == 400
    joined = post(first, "join", {"token": ws.token, "given": codes["Ada Lovelace"], "roster": True}).json()
    assert joined["ok"] and joined["name"] == "Ada Lovelace"
    taken = post(second, "join", {"token": ws.token, "given": codes["Ada Lovelace"], "roster": True})
    assert taken.status_code == 400
    assert [p.name for p in whatif.load_workshop(run_id, store=store).participants] == ["Ada Lovelace"]


@pytest.mark.timeout(60)  # without the check the stream goes on forever (keepalives): fail, do not hang
def test_a_phone_whose_code_is_released_is_told_it_left(room, store) -> None:
    """The facilitator releases a student's code (a lost phone): that phone's stream says "gone" (the page then
    starts again at the join screen) instead of showing a room it can no longer act in."""
    run_id, ws = room
    codes = {c.name: c.code for c in whatif.set_roster(run_id, OPERATOR, ["Ada Lovelace"], store=store)}
    client = phone()
    post(client, "join", {"token": ws.token, "given": codes["Ada Lovelace"], "roster": True})
    events = []
    with client.stream("GET", f"/p/events?w={ws.token}") as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                events.append(line[7:])
                if events == ["patch"]:
                    whatif.release_code(run_id, OPERATOR, "Ada Lovelace", store=store)
                if line == "event: gone":
                    break
    assert events[0] == "patch" and events[-1] == "gone"
    assert start_of(client.get(f"/p/?w={ws.token}").text)["screen"] == "join"
