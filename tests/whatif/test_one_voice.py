"""One voice per person, stronger than a cookie (#40 item 3): fresh device cookies from one address beyond
:data:`FREE_JOINS_PER_ADDRESS` a minute join *held* — their +1s wait for the facilitator. Before: 12 fresh cookies
from one address put "+12" on one contribution, which then topped the facilitator's list and reached the prompt
as ``votes="12"``."""

from __future__ import annotations

import pytest

from ifworld.access import VISITOR, AccessDenied
from ifworld.whatif import workshop as ws
from tests.whatif.test_workshop import device, room  # noqa: F401 — the fixture


def test_twelve_cookies_from_one_address_count_as_few_voices_until_allowed(room, store) -> None:  # noqa: ANN001, F811
    run_id, w, fac, people = room


    voters = [ws.join_workshop(w.token, f"Sock {i}", device_key=device(), clients=["ip:10.9.9.9"], store=store)
              for i in range(12)]
    assert sum(p.held for p, _ in voters) == 12 - ws.FREE_JOINS_PER_ADDRESS
    room_now = ws.load_workshop(run_id, store=store)
    (group, held), = room_now.held_groups().items()
    assert len(held) == 12 - ws.FREE_JOINS_PER_ADDRESS and group
    ok = ws.join_workshop(w.token, "Elsewhere", device_key=device(), clients=["ip:10.9.9.10"], store=store)[0]
    assert not ok.held  # another address is another person


@pytest.fixture
def said(room, store, wsettings):  # noqa: ANN001, ANN201, F811
    """The run moved on to the pause between rounds, with one contribution by Ada."""
    from ifworld.whatif import service

    run_id, w, fac, people = room
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"action": "continue"})
    (ada, ka), _, _ = people
    return ws.contribute(run_id, ada.id, ka, "Tides would shrink to a third.", store=store)


def test_plus_twelve_from_one_address_is_plus_three_until_the_facilitator_allows(room, store, said) -> None:  # noqa: ANN001, F811
    run_id, w, fac, _ = room
    voters = [ws.join_workshop(w.token, f"Sock {i}", device_key=device(), clients=["ip:10.9.9.9"], store=store)
              for i in range(12)]
    for person, key in voters:
        ws.vote(run_id, person.id, key, said.id, store=store)
    counted = next(c for c in ws.load_workshop(run_id, store=store).contributions if c.id == said.id).votes
    print(f"+{counted} counted of 12 votes from one address before the facilitator allowed them")
    assert counted == ws.FREE_JOINS_PER_ADDRESS
    held = [p.id for p in ws.load_workshop(run_id, store=store).participants if p.held]
    with pytest.raises(AccessDenied):
        ws.allow_participants(run_id, VISITOR, held, store=store)
    assert ws.allow_participants(run_id, fac, held, store=store) == 12 - ws.FREE_JOINS_PER_ADDRESS
    room_now = ws.load_workshop(run_id, store=store)
    assert next(c for c in room_now.contributions if c.id == said.id).votes == 12 and not room_now.held_groups()
