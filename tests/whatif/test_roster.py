"""Roster mode (#40): personal codes from a class list, only those codes get in, one device each, names from the
roster, release and re-roster — checked at the engine, where a forged press or a typed URL arrives too."""

from __future__ import annotations

import secrets
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ifworld import whatif
from ifworld.access import OPERATOR, AccessDenied, Caller, Role
from ifworld.errors import WorkshopError
from ifworld.whatif import workshop as ws
from ifworld.whatif.workshop_roster import PERSONAL_CODE_LENGTH
from ui.roster_sheet import sheet_html

CLASS = ["Ada Lovelace", "Bo", "Cy", "Bo"]
NOT_FACILITATOR = [Caller(role=Role.PARTICIPANT, participant="p1"), Caller(role=Role.VISITOR), None]


def device() -> str:
    return secrets.token_urlsafe(16)


@pytest.fixture
def room(store):  # noqa: ANN001, ANN201
    """A workshop on a what-if run (no model needed: nothing here runs a round)."""
    run_id = store.create_run("whatif", "whatif.ifworld", {"proposition": "What if?"}, "What-if: roster")
    return whatif.open_workshop(run_id, caller=OPERATOR, store=store)


@pytest.fixture
def roster(room, store):  # noqa: ANN001, ANN201
    return room, {c.name: c.code for c in whatif.set_roster(room.run_id, OPERATOR, CLASS, store=store)}


def _raw(store) -> bytes:  # noqa: ANN001
    return b"".join(p.read_bytes() for p in (store.path, Path(f"{store.path}-wal")) if p.exists())


def test_codes_are_distinct_in_the_alphabet_and_stored_only_as_hashes(roster, store) -> None:
    w, codes = roster
    assert list(codes) == ["Ada Lovelace", "Bo", "Cy", "Bo (2)"]  # twins apart as the room does, in list order
    assert len(set(codes.values())) == 4 and w.code not in codes.values()
    assert all(len(c) == PERSONAL_CODE_LENGTH and set(c) <= set(ws.CODE_ALPHABET) for c in codes.values())
    assert all(c.encode() not in _raw(store) for c in codes.values())
    room = whatif.load_workshop(w.run_id, store=store)
    assert room.is_roster and [(e.name, e.joined) for e in room.roster] == [(n, False) for n in codes]
    assert "code" not in room.roster[0].model_dump() and not set(codes.values()) & set(room.model_dump_json())


@pytest.mark.parametrize("who", NOT_FACILITATOR, ids=["participant", "visitor", "nobody"])
def test_only_the_facilitator_sets_a_roster_or_releases_a_code(roster, store, who) -> None:  # noqa: ANN001
    w, codes = roster
    whatif.join_with_code(w.token, codes["Bo"], device_key=device(), store=store)
    before = store.workshop_events(w.run_id)
    with pytest.raises(AccessDenied):
        whatif.set_roster(w.run_id, who, ["Mallory"], store=store)
    with pytest.raises(AccessDenied):
        whatif.release_code(w.run_id, who, "Bo", store=store)
    assert store.workshop_events(w.run_id) == before


def test_a_roster_is_refused_empty_too_long_or_with_names_the_room_refuses(room, store) -> None:
    for empty in ([], ["", "   ", "\n"]):
        with pytest.raises(WorkshopError, match="empty"):
            whatif.set_roster(room.run_id, OPERATOR, empty, store=store)
    with pytest.raises(WorkshopError, match=f"at most {ws.MAX_PARTICIPANTS}"):
        whatif.set_roster(room.run_id, OPERATOR, [f"Pupil {i}" for i in range(ws.MAX_PARTICIPANTS + 1)],
                          store=store)
    hostile = ["Ada", "<img src=x onerror=alert(1)>", "**bold** [x](http://evil.example)", "Teacher", "\u202eevil"]
    with pytest.raises(WorkshopError, match="line 2: .*line 3: .*line 4") as refused:
        whatif.set_roster(room.run_id, OPERATOR, hostile, store=store)
    assert "<img" not in str(refused.value)  # the reason names the line, never echoes the markup
    assert store.workshop_events(room.run_id) == []  # refused whole: no half-made roster


def test_open_join_is_refused_in_a_roster_room_and_earlier_people_stay(room, store) -> None:
    early, early_key = whatif.join_workshop(room.token, "Early", device_key=device(), store=store)
    whatif.set_roster(room.run_id, OPERATOR, ["Ada"], store=store)
    with pytest.raises(WorkshopError, match="personal codes only"):
        whatif.join_workshop(room.token, "Ada", device_key=device(), store=store)
    assert whatif.join_workshop(room.token, "Whatever", device_key=early_key, store=store)[0].id == early.id
    whatif.contribute(room.run_id, early.id, early_key, "I was here first", store=store)
    with pytest.raises(WorkshopError, match="not one of this workshop's"):
        whatif.join_with_code(room.token, "ANYTHING", device_key=early_key, store=store)
    with pytest.raises(WorkshopError, match="no roster"):
        other = store.create_run("whatif", "whatif.ifworld", {}, "plain")
        whatif.join_with_code(whatif.open_workshop(other, store=store).token, "ABCDEFGH", device_key=device(),
                              store=store)


def test_an_early_device_cannot_take_a_code_too(room, store) -> None:
    _, key = whatif.join_workshop(room.token, "Early", device_key=device(), store=store)
    codes = {c.name: c.code for c in whatif.set_roster(room.run_id, OPERATOR, ["Ada"], store=store)}
    with pytest.raises(WorkshopError, match="already joined this workshop as Early"):
        whatif.join_with_code(room.token, codes["Ada"], device_key=key, store=store)


def test_wrong_codes_are_counted_and_the_ninth_try_is_refused_even_right(roster, store) -> None:
    w, codes = roster
    clients = ["session:s1", "ip:10.0.0.7"]
    for i in range(ws.CODE_FAILURES):
        with pytest.raises(WorkshopError, match="not one of this workshop's"):
            whatif.join_with_code(w.token, f"WRONG{i:03d}", device_key=device(), clients=clients, store=store)
    with pytest.raises(WorkshopError, match="too many wrong codes"):
        whatif.join_with_code(w.token, codes["Cy"], device_key=device(), clients=clients, store=store)
    with pytest.raises(WorkshopError, match="too many wrong codes"):  # one counter with the room code's
        whatif.find_by_code(w.code, ["ip:10.0.0.7"], store=store)
    person, _ = whatif.join_with_code(w.token, codes["Cy"], device_key=device(), clients=["ip:10.0.0.8"],
                                      store=store)
    assert person.name == "Cy"


def test_one_device_each_and_the_name_comes_from_the_roster(roster, store) -> None:
    w, codes = roster
    phone = device()
    ada, key = whatif.join_with_code(w.token, codes["Ada Lovelace"].lower(), device_key=phone, store=store)
    assert ada.name == "Ada Lovelace" and not ada.held
    again, _ = whatif.join_with_code(w.token, f" {codes['Ada Lovelace'][:4]}-{codes['Ada Lovelace'][4:]} ",
                                     device_key=phone, store=store)
    assert again.id == ada.id  # the same device, the same person (a reload, a second scan)
    assert whatif.join_workshop(w.token, "Typed Other Name", device_key=phone, store=store)[0].name == "Ada Lovelace"
    assert whatif.participant_for(w.run_id, phone, store=store).id == ada.id
    with pytest.raises(WorkshopError, match="already in use on another device"):
        whatif.join_with_code(w.token, codes["Ada Lovelace"], device_key=device(), store=store)
    with pytest.raises(WorkshopError, match="already joined this workshop as Ada Lovelace"):
        whatif.join_with_code(w.token, codes["Cy"], device_key=phone, store=store)  # one person per device
    room = whatif.load_workshop(w.run_id, store=store)
    assert [p.name for p in room.participants] == ["Ada Lovelace"]
    assert [e.joined for e in room.roster] == [True, False, False, False]
    whatif.contribute(w.run_id, ada.id, key, "Tides stop", store=store)


def test_twins_join_apart(roster, store) -> None:
    w, codes = roster
    bo, _ = whatif.join_with_code(w.token, codes["Bo (2)"], device_key=device(), store=store)
    bo1, _ = whatif.join_with_code(w.token, codes["Bo"], device_key=device(), store=store)
    names = whatif.load_workshop(w.run_id, store=store).display_names()
    assert (names[bo.id], names[bo1.id]) == ("Bo (2)", "Bo")


def test_release_lets_a_new_device_in_as_the_same_person(roster, store) -> None:
    w, codes = roster
    old = device()
    cy, old_key = whatif.join_with_code(w.token, codes["Cy"], device_key=old, store=store)
    whatif.contribute(w.run_id, cy.id, old_key, "Night gets darker", store=store)
    with pytest.raises(WorkshopError, match="not in use"):
        whatif.release_code(w.run_id, OPERATOR, "Bo", store=store)
    with pytest.raises(WorkshopError, match="nobody on the roster"):
        whatif.release_code(w.run_id, OPERATOR, "Zed", store=store)
    whatif.release_code(w.run_id, OPERATOR, "Cy", store=store)
    assert whatif.participant_for(w.run_id, old, store=store) is None  # the dead phone is nobody now
    with pytest.raises(WorkshopError, match="not a participant"):
        whatif.contribute(w.run_id, cy.id, old_key, "from the old phone", store=store)
    assert not whatif.load_workshop(w.run_id, store=store).roster[2].joined
    new = device()
    again, new_key = whatif.join_with_code(w.token, codes["Cy"], device_key=new, store=store)
    assert (again.id, again.name) == (cy.id, "Cy")
    whatif.contribute(w.run_id, cy.id, new_key, "from the new phone", store=store)
    room = whatif.load_workshop(w.run_id, store=store)
    assert [p.id for p in room.participants] == [cy.id] and len(room.contributions) == 2
    assert room.roster[2].joined
    with pytest.raises(WorkshopError, match="already in use on another device"):
        whatif.join_with_code(w.token, codes["Cy"], device_key=old, store=store)


def test_a_new_roster_makes_new_codes_and_keeps_people_by_name(roster, store) -> None:
    w, codes = roster
    phone = device()
    ada, key = whatif.join_with_code(w.token, codes["Ada Lovelace"], device_key=phone, store=store)
    new = {c.name: c.code for c in whatif.set_roster(w.run_id, OPERATOR, ["Ada Lovelace", "Dee"], store=store)}
    assert not set(new.values()) & set(codes.values())
    assert whatif.participant_for(w.run_id, phone, store=store) is None  # signed out: codes changed
    with pytest.raises(WorkshopError, match="not a participant"):
        whatif.contribute(w.run_id, ada.id, key, "still here?", store=store)
    with pytest.raises(WorkshopError, match="not one of this workshop's"):
        whatif.join_with_code(w.token, codes["Ada Lovelace"], device_key=phone, store=store)
    again, _ = whatif.join_with_code(w.token, new["Ada Lovelace"], device_key=phone, store=store)
    assert again.id == ada.id
    assert [e.name for e in whatif.load_workshop(w.run_id, store=store).roster] == ["Ada Lovelace", "Dee"]


def test_a_closed_room_takes_no_code_and_no_roster(roster, store) -> None:
    w, codes = roster
    whatif.close_workshop(w.run_id, OPERATOR, store=store)
    with pytest.raises(WorkshopError, match="closed"):
        whatif.join_with_code(w.token, codes["Bo"], device_key=device(), store=store)
    with pytest.raises(WorkshopError, match="closed"):
        whatif.set_roster(w.run_id, OPERATOR, ["Ada"], store=store)


def test_a_class_of_forty(room, store) -> None:
    names = [f"Pupil {chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    made = whatif.set_roster(room.run_id, OPERATOR, names, store=store)
    assert [c.name for c in made] == names and len({c.code for c in made}) == 40
    for c in made:
        whatif.join_with_code(room.token, c.code, device_key=device(), clients=["ip:10.0.0.9"], store=store)
    w = whatif.load_workshop(room.run_id, store=store)
    assert len(w.participants) == 40 and all(e.joined for e in w.roster)
    assert not any(p.held for p in w.participants)  # the roster is the facilitator's own list: nobody held


# -- the printable sheet ----------------------------------------------------------------------------------
class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_markdown_names_are_stored_as_text_and_the_sheet_escapes_every_name(room, store) -> None:
    made = whatif.set_roster(room.run_id, OPERATOR, ["_Ada_", "O'Brien", "Zoë-Ann"], store=store)
    assert [c.name for c in made] == ["_Ada_", "O'Brien", "Zoë-Ann"]
    hostile = [whatif.RosterCode(id="x1", name='<img src=x onerror=alert(1)>"\'', code="ABCDEFGH"),
               whatif.RosterCode(id="x2", name="<script>alert(2)</script>", code="HGFEDCBA"), *made]
    page = sheet_html(hostile, lambda code: f"http://10.0.0.1:8501/p/?w={room.token}&personal={code}",
                      room_code=room.code, title="<b>Moon</b>")
    parsed = _Tags()
    parsed.feed(page)
    assert set(parsed.tags) <= {"html", "head", "meta", "title", "style", "body", "h1", "p", "b", "div", "svg",
                                "path"}
    assert parsed.tags.count("b") == 1  # the room code's own emphasis; the title's <b> is text
    assert parsed.tags.count("svg") == len(hostile)  # one QR per card
    assert not any(k.startswith("on") or k == "src" for k, _ in parsed.attrs)
    text = "".join(parsed.text)
    assert all(c.name in text and c.code in text for c in hostile)
    assert "break-inside: avoid" in page and "@media print" in page
