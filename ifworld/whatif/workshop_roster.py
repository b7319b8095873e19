"""Roster mode: the facilitator pastes a class list, each student gets a personal code, and the room then takes
those codes only (part of :mod:`ifworld.whatif.workshop`).

What it guarantees, engine-checked (a forged widget press or a typed URL gets the same answers):

- **only the roster gets in** — once a roster is set, :func:`~ifworld.whatif.workshop.join_workshop` (a typed
  name) is refused; people who had joined by name before keep their place, nobody new joins that way;
- **names come from the roster** — a student never types a name; twins are told apart as the room does
  (``Sam``, ``Sam (2)``), in the roster's order;
- **one device each** — the first device to use a code holds it; that device again is the same participant,
  any other device is refused until the facilitator releases the code (:func:`release_code`);
- **codes cannot be tried out** — 8 characters of :data:`~ifworld.whatif.workshop.CODE_ALPHABET` (31⁸ ≈ 8.5 ×
  10¹¹), and a wrong one counts toward the same per-client limit as a wrong room code; only a salted hash of
  each code is stored, the plain codes are returned once, to the facilitator.

What it cannot guarantee: that the person holding a card is the student named on it (a card handed to a friend
before its owner used it lets the friend in as that student).

Setting a roster again makes new codes for everyone: every old code stops working and every device bound by a
code is signed out, while a name that is on both lists keeps its participant (same id, predictions, votes,
contributions) — its student signs in again with the new code.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from ifworld.access import Caller
from ifworld.errors import WorkshopError
from ifworld.names import name_key
from ifworld.runs import RunStore, get_store
from ifworld.runs.workshop_tables import EventLog
from ifworld.whatif.workshop import (
    CODE_ALPHABET,
    CODE_FAILURES,
    CODE_WINDOW_S,
    MAX_PARTICIPANTS,
    _facilitator,
    _hash,
    _open_check,
    normalise_code,
)
from ifworld.whatif.workshop_models import Participant, bound
from ifworld.whatif.workshop_names import clean_name

__all__ = ["PERSONAL_CODE_LENGTH", "RosterCode", "join_with_code", "release_code", "set_roster"]

PERSONAL_CODE_LENGTH = 8
"""31⁸ ≈ 8.5 × 10¹¹ codes: at :data:`~ifworld.whatif.workshop.CODE_FAILURES` wrong tries a minute per client,
finding one of 300 live codes takes a client thousands of years."""


class RosterCode(BaseModel):
    """One student's card: the name they will join as and their personal code (returned once, never stored)."""
    model_config = ConfigDict(frozen=True)
    id: str
    name: str
    code: str


def _code_hash(salt: str, code: str) -> str:
    return hashlib.sha256(f"{salt}:{code}".encode()).hexdigest()


def _twins_apart(names: list[str]) -> list[str]:
    """The room's rule for two of one name (:meth:`~ifworld.whatif.workshop_models.Workshop.display_names`),
    applied once to the list: ``Sam``, ``Sam (2)`` — so the card, the room and the export say the same."""
    used: set[str] = set()
    out = []
    for name in names:
        label, n = name, 1
        while name_key(label) in used:
            n += 1
            label = f"{name} ({n})"
        used.add(name_key(label))
        out.append(label)
    return out


def _clean_all(names: list[str]) -> list[str]:
    """Every non-blank line through the room's name rules; refused whole, with each refused line and why, so the
    facilitator fixes the list once (a half-made roster would leave students without a card)."""
    if not isinstance(names, list):
        raise WorkshopError("the roster is a list of names")
    lines = [(i, n) for i, n in enumerate(names, 1) if not isinstance(n, str) or n.strip()]
    if not lines:
        raise WorkshopError("the roster is empty; paste one name per line")
    if len(lines) > MAX_PARTICIPANTS:
        raise WorkshopError(f"the roster has {len(lines)} names; at most {MAX_PARTICIPANTS}")
    cleaned, refused = [], []
    for i, raw in lines:
        try:
            cleaned.append(clean_name(raw))
        except WorkshopError as exc:
            refused.append(f"line {i}: {exc}")
    if refused:
        shown = "; ".join(refused[:5]) + (f"; and {len(refused) - 5} more" if len(refused) > 5 else "")
        raise WorkshopError(f"some names cannot be used: {shown}")
    return _twins_apart(cleaned)


def _new_codes(count: int, room_code: str) -> list[str]:
    codes: set[str] = set()
    while len(codes) < count:  # a clash among 300 draws of 31⁸ is all but impossible; drawn again if it happens
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(PERSONAL_CODE_LENGTH))
        if code != room_code:
            codes.add(code)
    return list(codes)


def _latest(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    return rows[-1]["data"] if rows else None


def set_roster(run_id: str, caller: Caller, names: list[str], *, store: RunStore | None = None) -> list[RosterCode]:
    """Make the room a roster room (or replace its roster): one personal code per name, returned once — only
    their salted hashes are recorded. A name already on the previous roster keeps its participant id; every old
    code stops working and every device a code bound must use its new code (see the module's notes)."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "set the roster")
    names = _clean_all(names)
    row = store.workshop_row(run_id=run_id)
    codes = _new_codes(len(names), str(row["code"]) if row else "")
    salt = secrets.token_hex(16)
    made: list[RosterCode] = []
    data: dict[str, Any] = {"salt": salt}

    def check(log: EventLog) -> None:
        _open_check(log)
        before = {x["name"]: x["id"] for x in (_latest(log.find("roster")) or {}).get("entries", [])}
        made.clear()
        made.extend(RosterCode(id=before.get(n) or secrets.token_hex(6), name=n, code=c)
                    for n, c in zip(names, codes, strict=True))
        data["entries"] = [{"id": m.id, "name": m.name, "code_hash": _code_hash(salt, m.code)} for m in made]

    store.add_workshop_event(run_id, "roster", data, check, actor="facilitator")
    return made


def _limit_keys(clients: list[str] | None) -> list[str]:
    return [f"workshop-code:{c}" for c in clients or [] if c]  # the same counters as a wrong room code


class _Held(WorkshopError):
    """This device already holds the code (raised inside the write's check): the participant it is."""

    def __init__(self, participant: Participant) -> None:
        super().__init__("already joined")
        self.participant = participant


def join_with_code(token: str, personal_code: str, *, device_key: str, clients: list[str] | None = None,
                   store: RunStore | None = None) -> tuple[Participant, str]:
    """Join a roster room with a personal code from the device holding ``device_key``; the name is the roster's.
    The same device again is the same participant; another device is refused while one holds the code. A wrong
    code counts toward the wrong-code limit (:data:`~ifworld.whatif.workshop.CODE_FAILURES` a minute per client);
    past it every try is refused for the rest of the minute, the right code too."""
    store = store or get_store()
    row = store.workshop_row(token=str(token)[:100]) if token else None
    if row is None:
        raise WorkshopError("this join link is not valid (mistyped or from another app); ask for the code")
    run_id = str(row["run_id"])
    keys = _limit_keys(clients)
    if any(not store.hit_rate(k, limit=CODE_FAILURES, window_s=CODE_WINDOW_S, add=False) for k in keys):
        raise WorkshopError(f"too many wrong codes from this device; wait a minute and try again "
                            f"(at most {CODE_FAILURES} a minute)")
    rosters = store.workshop_find(run_id, "roster")
    roster = _latest(rosters)
    if roster is None:
        raise WorkshopError("this workshop has no roster; join with a display name")
    digest = _code_hash(roster["salt"], normalise_code(personal_code)[:PERSONAL_CODE_LENGTH * 2])
    entry = next((x for x in roster["entries"] if hmac.compare_digest(x["code_hash"], digest)), None)
    if entry is None:
        for k in keys:
            store.hit_rate(k, limit=CODE_FAILURES, window_s=CODE_WINDOW_S)
        raise WorkshopError("this personal code is not one of this workshop's; check the code on your card")
    if not isinstance(device_key, str) or len(device_key) < 16:
        raise WorkshopError("this browser has no device key; reload the page and join again")
    key_hash, pid = _hash(device_key), entry["id"]
    data: dict[str, Any] = {"id": pid, "name": entry["name"], "key_hash": key_hash, "held": False, "group": "",
                            "roster": True, "rosters": len(rosters)}

    def check(log: EventLog) -> None:
        _open_check(log)
        if log.count("roster") != len(rosters):
            raise WorkshopError("the facilitator has just made new codes; ask for your new card")
        data["releases"] = log.count("release", actor=pid)
        holder = next((r for r in reversed(log.find("join", actor=pid)) if bound(log, r)), None)
        if holder is not None and holder["data"]["key_hash"] == key_hash:
            raise _Held(Participant(id=pid, name=holder["data"]["name"], joined=holder["at"]))
        if holder is not None:
            raise WorkshopError("this code is already in use on another device — ask the facilitator to release it")
        mine = next((r for r in log.find("join", ref=key_hash) if bound(log, r)), None)
        if mine is not None:
            raise WorkshopError(f"this device has already joined this workshop as {mine['data']['name']}")

    try:
        store.add_workshop_event(run_id, "join", data, check, actor=pid, ref=key_hash)
    except _Held as held:
        return held.participant, device_key
    return Participant(id=pid, name=entry["name"], joined=time.time()), device_key


def release_code(run_id: str, caller: Caller, name_or_id: str, *, store: RunStore | None = None) -> None:
    """Free a student's code from the device holding it (a phone that died): that device is signed out at once,
    and the next device to use the same code becomes the same participant (same id, name, prediction, votes and
    contributions). The code itself does not change — if a card was lost or copied, make new codes instead."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "release a personal code")
    roster = _latest(store.workshop_find(run_id, "roster"))
    if roster is None:
        raise WorkshopError("this workshop has no roster")
    wanted = str(name_or_id)
    entry = next((x for x in roster["entries"] if wanted in (x["id"], x["name"])), None)
    if entry is None:
        raise WorkshopError("nobody on the roster has this name")
    pid = entry["id"]

    def check(log: EventLog) -> None:
        _open_check(log)
        if not any(bound(log, r) for r in log.find("join", actor=pid)):
            raise WorkshopError(f"{entry['name']}'s code is not in use on any device; nothing to release")
    store.add_workshop_event(run_id, "release", {"id": pid}, check, actor=pid, ref=pid)
