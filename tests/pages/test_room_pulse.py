"""The room's pulse (ui/room_pulse.py): the facilitator's page hears each change of the room at once — a join, a
Send from a phone — and nobody else may listen; a bad run, a run without a workshop, a store that cannot be
reached and a flood of streams each get their own answer, none with a server detail."""

from __future__ import annotations

import json

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from ifworld import whatif
from tests.pages.test_participant_robust import SECRET_PARTS, SECRET_URL
from tests.pages.test_phone_server import phone, post, room  # noqa: F401 — room is a fixture
from ui import room_pulse
from ui.phone_server import ROUTES


def facilitator(allowed: bool = True) -> TestClient:
    """The pulse and the phone page as ``ui/asgi.py`` mounts them (the pulse first), with who is the facilitator
    decided by ``allowed`` — the real rule is tested against the real server (tests/security)."""
    app = Starlette(routes=[room_pulse.route(lambda scope: allowed), *ROUTES])
    return TestClient(app, base_url="http://class.example", raise_server_exceptions=False)


def changes(lines, count: int) -> list[int]:  # noqa: ANN001
    """The versions of the next ``count`` ``changed`` events in a stream's ``lines`` (keepalives skipped)."""
    versions, event = [], ""
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "changed":
            versions.append(json.loads(line[6:]))
            if len(versions) == count:
                return versions
    raise AssertionError(f"the stream ended after {versions}")


def test_the_facilitator_hears_a_join_and_a_send(room) -> None:  # noqa: ANN001, F811
    run_id, ws = room
    client = facilitator()
    with client.stream("GET", "/" + room_pulse.pulse_url(run_id)) as stream:
        assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        [first] = changes(lines, 1)  # the room as it is: a page that drew before the stream opened catches up
        ada = phone()
        assert post(ada, "join", {"token": ws.token, "given": "Ada"}).json()["ok"]
        [second] = changes(lines, 1)
        assert second > first
        predicted = post(ada, "predict", {"token": ws.token,
                                          "probabilities": whatif.even_split(whatif.branches(whatif.scenario_of(
                                              run_id)))})
        assert predicted.json()["ok"]
        [third] = changes(lines, 1)
        assert third > second
    assert room_pulse._open == [0]  # the stream let go when the page did


def test_no_data_of_the_room_goes_down_the_pulse(room) -> None:  # noqa: ANN001, F811
    """A version number only: what the room says reaches the page through its own (checked) redraw."""
    run_id, ws = room
    post(phone(), "join", {"token": ws.token, "given": "Ada <b>Secretname</b>"})
    with facilitator().stream("GET", "/" + room_pulse.pulse_url(run_id)) as stream:
        lines = []
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("data: "):
                break
    assert "Secretname" not in "\n".join(lines) and json.loads(lines[-1][6:]) >= 1


def test_anyone_else_is_refused_before_anything_is_read(room, monkeypatch) -> None:  # noqa: ANN001, F811
    run_id, _ = room

    def read(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the store was read for a refused request")

    monkeypatch.setattr(whatif, "has_workshop", read)
    reply = facilitator(allowed=False).get("/" + room_pulse.pulse_url(run_id))
    assert reply.status_code == 403 and reply.text == "For the facilitator only."


@pytest.mark.parametrize("run, status, says", [
    ("no-such-run", 404, "This run has no workshop."),
    ("../../etc/passwd", 404, "No such run."),
    ("x" * 81, 404, "No such run."),
    ("", 404, "No such run."),
])
def test_a_run_without_a_workshop(room, run, status, says) -> None:  # noqa: ANN001, F811
    reply = facilitator().get(room_pulse.PATH, params={"run": run})
    assert (reply.status_code, reply.text) == (status, says)


def test_a_run_that_has_no_workshop_yet(room, store, settings) -> None:  # noqa: ANN001, F811
    from ifworld.whatif import service
    from ifworld.whatif.params import default_params

    run_id = service.run(default_params("What if it rained for a year?", experts=["physics"], rounds=1,
                                        review=True), settings=settings, store=store, source="page")["run_id"]
    reply = facilitator().get("/" + room_pulse.pulse_url(run_id))
    assert (reply.status_code, reply.text) == (404, "This run has no workshop.")


def test_a_store_that_cannot_be_reached_is_said_without_its_address(monkeypatch) -> None:  # noqa: ANN001
    from ifworld.runs import postgres

    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT_S", 1)
    monkeypatch.setenv("IFWORLD_DB", SECRET_URL)
    reply = facilitator().get(room_pulse.PATH, params={"run": "abc123"})
    assert reply.status_code == 503, reply.text
    for detail in SECRET_PARTS:
        assert detail not in reply.text


def test_a_flood_of_streams_is_held_at_the_cap(room, monkeypatch) -> None:  # noqa: ANN001, F811
    run_id, _ = room
    monkeypatch.setattr(room_pulse, "_open", [room_pulse.MAX_PULSES])
    reply = facilitator().get("/" + room_pulse.pulse_url(run_id))
    assert reply.status_code == 429 and "close one" in reply.text
