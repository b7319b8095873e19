"""Workshop mode: the people in the room join a what-if run's deliberation from their own devices.

A workshop hangs off one what-if run. Every facilitator function here takes the caller
(:class:`~ifworld.access.Caller`) and refuses anyone but the facilitator (:func:`~ifworld.access.require_facilitator`),
so a participant's browser session, a forged widget press or a typed URL cannot act for the facilitator.
Participants join without an account (a join token of 128 random bits in the link, or a short code typed on the
phone page — rate-limited per client) with a display name; their identity is their *device key* (the app server's
per-browser cookie, stored hashed), so a reload, a second tab or an app restart is the same person with the same
one vote per contribution, and joining again from the same device returns that person. A *roster room*
(:mod:`ifworld.whatif.workshop_roster`) takes personal codes from the facilitator's class list instead of names.

What happens, in session states (:mod:`ifworld.whatif.session`):

- before round 1 (refining, review): each participant pre-registers a probability per scenario branch (summing
  to 100) and optionally each indicator's direction; predictions lock when round 1 starts;
- any time the workshop is open: contributions (claim, concern, evidence or question; optional domain tag)
  and +1 votes (one per participant per contribution); the facilitator accepts, edits, merges, rejects or
  hides each one;
- between rounds: :func:`continue_workshop` continues the run with every accepted contribution not yet sent,
  through the run's own between-rounds pause (``review.participant_contributions``), each with its author's
  name — the next round's experts see them with the shared frame and the resolver weighs them;
- after the report: :func:`reveal_workshop` shows each participant's prediction beside the panel's final branch
  probabilities (a discussion starter — a counterfactual has no ground truth).

Storage: one append-only event log per run in the run store (``ifw_workshop_events``), folded into a
:class:`Workshop` on every read (:mod:`ifworld.whatif.workshop_models`), so any number of app processes on the
same store file see the same room. Checks that depend on earlier events (one vote per contribution, a person's
bounds, a closed workshop) run inside the store's write lock through indexed look-ups, so a write costs the
same however long the log is.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.config import Settings
from ifworld.errors import IFWorldError, WorkshopError
from ifworld.runs import Event, RunStore, get_store, start_background
from ifworld.runs.workshop_tables import EventLog
from ifworld.whatif.room import MAX_ROOM_CONTRIBUTIONS, MAX_ROOM_TEXT_CHARS, RoomContribution, parse_room
from ifworld.whatif.schemas import Scenario
from ifworld.whatif.session import Action, SessionError, State, drive_session, load_session, paused_state
from ifworld.whatif.workshop_models import (
    DECISIONS,
    DIRECTIONS,
    KINDS,
    MAX_CONTRIBUTION_CHARS,
    MAX_TAG_CHARS,
    Contribution,
    Participant,
    Prediction,
    RoomFold,
    StoreLog,
    Workshop,
    bound,
    visible_text,
)
from ifworld.whatif.workshop_names import clean_name

MAX_CONTRIBUTIONS_PER_ROUND = 20
"""Per participant and round."""
MAX_CONTRIBUTIONS_PER_PERSON = 60
"""Per participant over the whole workshop."""
MAX_PARTICIPANTS = 300
MAX_JOINS_PER_CLIENT = 12
"""New participants one client (an IP address) may add to a workshop per :data:`JOIN_WINDOW_S` (a shared
classroom connection still lets a class in; a script minting identities is stopped)."""
JOIN_WINDOW_S = 600.0
FREE_JOINS_PER_ADDRESS = 3
"""New people one address may bring per :data:`FREE_JOIN_WINDOW_S` whose +1s count at once; beyond it they join
*held* — their votes wait for the facilitator ("5 new people joined from one device in a minute — allow?"), so
fresh cookies from one laptop cannot put "+12" on a contribution."""
FREE_JOIN_WINDOW_S = 60.0
TOKEN_BYTES = 16
"""Join tokens: 16 random bytes = 128 bits (``secrets.token_urlsafe``)."""
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed on a phone
CODE_LENGTH = 6
CODE_FAILURES = 8
"""Wrong codes a client may type per :data:`CODE_WINDOW_S` (per browser session and per IP address)."""
CODE_WINDOW_S = 60.0
_BEFORE_ROUND_1 = frozenset({State.DRAFT, State.REFINING, State.REVIEW})


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _matches(secret: str | None, digest: str) -> bool:
    return bool(secret) and hmac.compare_digest(_hash(str(secret)), digest)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: str) -> str:
    """A typed code as stored: upper case, spaces and dashes dropped (phones add them)."""
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


# -- opening and finding ----------------------------------------------------------------------------------
def open_workshop(run_id: str, *, caller: Caller = OPERATOR, store: RunStore | None = None) -> Workshop:
    """Open the workshop of ``run_id`` (the facilitator's alone)."""
    require_facilitator(caller, "open a workshop")
    store = store or get_store()
    info = store.get_run(run_id)
    if info.kind != "whatif":
        raise WorkshopError(f"run {run_id} is not a what-if run; a workshop hangs off a what-if run")
    if store.workshop_row(run_id=run_id) is not None:
        raise WorkshopError(f"run {run_id} already has a workshop")
    for _ in range(20):  # a clash of short codes is rare (31^6 ≈ 887 million); draw again when it happens
        code = _new_code()
        if store.workshop_row(code=code) is None:
            break
    store.add_workshop(run_id, token=secrets.token_urlsafe(TOKEN_BYTES), code=code)
    return load_workshop(run_id, store=store)


def has_workshop(run_id: str, *, store: RunStore | None = None) -> bool:
    return (store or get_store()).workshop_row(run_id=run_id) is not None


_FOLDS: dict[tuple[str, str, str], RoomFold] = {}
_FOLDS_LOCK = threading.Lock()
MAX_FOLDS = 64


def load_workshop(run_id: str, *, store: RunStore | None = None) -> Workshop:
    """The workshop of ``run_id`` as its event log says now (raises WorkshopError when there is none). The fold
    is kept per process and carried on from the last event it saw (:class:`RoomFold`): every session's redraw
    reads only the events that are new since any session's last one."""
    store = store or get_store()
    row = store.workshop_row(run_id=run_id)
    if row is None:
        raise WorkshopError(f"run {run_id} has no workshop")
    key = (str(store.path), run_id, str(row["token"]))  # a workshop deleted and opened again is a new fold
    with _FOLDS_LOCK:
        room = _FOLDS.get(key)
        if room is None:
            if len(_FOLDS) >= MAX_FOLDS:
                _FOLDS.pop(next(iter(_FOLDS)))
            room = _FOLDS[key] = RoomFold()
    # Read outside every lock: thirty sessions redrawing at once would otherwise queue behind one another's
    # store reads (seen with py-spy in the 30-participant benchmark: the lock line was the top Python frame).
    new = store.workshop_events(run_id, after=room.seq)
    with room.lock:
        room.apply(new)
        return room.workshop(row)


def find_by_token(token: str, *, store: RunStore | None = None) -> Workshop:
    """The workshop a join link points at."""
    store = store or get_store()
    row = store.workshop_row(token=str(token)[:100]) if token else None
    if row is None:
        raise WorkshopError("this join link is not valid (mistyped or from another app); ask for the code")
    return load_workshop(str(row["run_id"]), store=store)


def find_by_code(code: str, clients: list[str], *, store: RunStore | None = None) -> Workshop:
    """The workshop with this short code. Wrong codes are counted per client key (``clients``: the browser
    session's and the IP address's); past :data:`CODE_FAILURES` in :data:`CODE_WINDOW_S` every try is refused
    for the rest of the window, right code or not."""
    store = store or get_store()
    keys = [f"workshop-code:{c}" for c in clients if c]
    if any(not store.hit_rate(k, limit=CODE_FAILURES, window_s=CODE_WINDOW_S, add=False) for k in keys):
        raise WorkshopError(f"too many wrong codes from this device; wait a minute and try again "
                            f"(at most {CODE_FAILURES} a minute)")
    row = store.workshop_row(code=normalise_code(code)) if normalise_code(code) else None
    if row is None:
        for k in keys:
            store.hit_rate(k, limit=CODE_FAILURES, window_s=CODE_WINDOW_S)
        raise WorkshopError("no workshop has this code; check the code on the projected screen")
    return load_workshop(str(row["run_id"]), store=store)


# -- checks inside the write lock (indexed look-ups: see ifworld.runs.workshop_tables) --------------------
def _facilitator(run_id: str, caller: Caller | None, store: RunStore, action: str) -> None:
    require_facilitator(caller, action)
    if store.workshop_row(run_id=run_id) is None:
        raise WorkshopError(f"run {run_id} has no workshop")


def _joined(log: EventLog, participant_id: str) -> dict[str, Any] | None:
    rows = log.find("join", actor=participant_id)  # a roster code's device binding may be renewed: the last one
    return rows[-1]["data"] if rows and bound(log, rows[-1]) else None


def _participant_check(participant_id: str, key: str | None, log: EventLog) -> dict[str, Any]:
    joined = _joined(log, participant_id)
    if joined is None or not _matches(key, joined["key_hash"]):
        raise WorkshopError("you are not a participant of this workshop (join again with the link or code)")
    return joined


def _open_check(log: EventLog) -> None:
    if log.count("close"):
        raise WorkshopError("the workshop is closed; it accepts nothing more")


def _text(value: Any, what: str, limit: int, *, required: bool = True) -> str:
    if not isinstance(value, str):
        raise WorkshopError(f"the {what} must be text")
    text = visible_text(value)
    if required and not text:
        raise WorkshopError(f"the {what} is empty")
    if len(text) > limit:
        raise WorkshopError(f"the {what} is {len(text):,} characters; at most {limit:,}")
    return text


# -- participants -------------------------------------------------------------------------------------------
def join_workshop(token: str, name: str, *, device_key: str, clients: list[str] | None = None,
                  store: RunStore | None = None) -> tuple[Participant, str]:
    """Join the workshop of a join token as ``name`` from the device holding ``device_key``; returns the
    participant and their key (the device key). The same device joining again is the same participant (its
    first name stays). New participants are bounded per client (:data:`MAX_JOINS_PER_CLIENT`) and per room."""
    store = store or get_store()
    row = store.workshop_row(token=str(token)[:100]) if token else None  # not the folded room: O(1) as it grows
    if row is None:
        raise WorkshopError("this join link is not valid (mistyped or from another app); ask for the code")
    run_id = str(row["run_id"])
    name = clean_name(name)
    if not isinstance(device_key, str) or len(device_key) < 16:
        raise WorkshopError("this browser has no device key; reload the page and join again")
    key_hash = _hash(device_key)
    known = participant_for(run_id, device_key, store=store)
    if known is not None:
        return known, device_key
    limits = [f"workshop-join:{run_id}:{c}" for c in clients or [] if c.startswith("ip:")]
    if any(not store.hit_rate(k, limit=MAX_JOINS_PER_CLIENT, window_s=JOIN_WINDOW_S) for k in limits):
        raise WorkshopError(f"too many people joined from this connection just now (at most "
                            f"{MAX_JOINS_PER_CLIENT} in {JOIN_WINDOW_S / 60:.0f} minutes); ask the facilitator")
    pid = secrets.token_hex(6)
    address = next((c for c in clients or [] if c.startswith("ip:")), "")
    held = bool(address) and not store.hit_rate(f"workshop-free-join:{run_id}:{address}",
                                                limit=FREE_JOINS_PER_ADDRESS, window_s=FREE_JOIN_WINDOW_S)
    group = _hash(f"{run_id}:{address}")[:8] if address else ""

    def check(log: EventLog) -> None:
        _open_check(log)
        if log.count("roster"):  # engine-checked: a roster room takes personal codes only (workshop_roster)
            raise WorkshopError("this workshop takes personal codes only; type the code on your card")
        if log.find("join", ref=key_hash):
            raise WorkshopError("this device has just joined; reload the page")
        if log.count("join") >= MAX_PARTICIPANTS:
            raise WorkshopError(f"the workshop is full ({MAX_PARTICIPANTS} participants)")
    store.add_workshop_event(run_id, "join", {"id": pid, "name": name, "key_hash": key_hash, "held": held,
                                              "group": group}, check, actor=pid, ref=key_hash)
    return Participant(id=pid, name=name, joined=time.time(), held=held, group=group), device_key


def allow_participants(run_id: str, caller: Caller, ids: list[str], *, store: RunStore | None = None) -> int:
    """Let held participants' +1s count (their waiting votes are counted at once); returns how many."""
    require_facilitator(caller, "allow held participants")
    store = store or get_store()
    _need_workshop(run_id, store)
    ws = load_workshop(run_id, store=store)
    chosen = [p.id for p in ws.participants if p.held and p.id in set(ids)]
    if chosen:
        store.add_workshop_event(run_id, "allow", {"ids": chosen}, lambda log: None, actor="facilitator")
    return len(chosen)


def participant_for(run_id: str, device_key: str | None, *, store: RunStore | None = None) -> Participant | None:
    """The participant this device joined ``run_id``'s workshop as (None when it has not)."""
    if not device_key:
        return None
    store = store or get_store()
    for row in reversed(store.workshop_find(run_id, "join", ref=_hash(device_key))):
        if bound(StoreLog(store, run_id), row):  # a released roster device is nobody now
            return Participant(id=row["data"]["id"], name=row["data"]["name"], joined=row["at"])
    return None


def _need_workshop(run_id: str, store: RunStore) -> None:
    if store.workshop_row(run_id=run_id) is None:
        raise WorkshopError(f"run {run_id} has no workshop")


def predict(run_id: str, participant_id: str, key: str | None, probabilities: dict[str, float],
            directions: dict[str, str] | None = None, *, store: RunStore | None = None) -> Prediction:
    """Pre-register (or replace) a participant's prediction; refused once round 1 has started."""
    store = store or get_store()
    _need_workshop(run_id, store)
    session = load_session(run_id, store)
    if session.state not in _BEFORE_ROUND_1 or any(t.to_state == State.ROUND for t in session.transitions):
        raise WorkshopError("predictions are locked: round 1 has started")
    try:
        probs = {str(b)[:200]: float(p) for b, p in probabilities.items()}
    except (TypeError, ValueError, AttributeError):
        raise WorkshopError("each branch needs a number between 0 and 100") from None
    if not probs or any(not 0 <= p <= 100 for p in probs.values()):
        raise WorkshopError("each branch needs a probability between 0 and 100")
    if abs(sum(probs.values()) - 100) > 0.5:
        raise WorkshopError(f"the probabilities add up to {sum(probs.values()):g}; they must sum to 100 "
                            "(use 'even split' to start from equal shares)")
    dirs = {str(k)[:200]: str(v) for k, v in (directions or {}).items() if v}
    if any(v not in DIRECTIONS for v in dirs.values()):
        raise WorkshopError(f"an indicator's direction is one of {', '.join(DIRECTIONS)}")

    def check(log: EventLog) -> None:
        _open_check(log)
        _participant_check(participant_id, key, log)
    made = Prediction(participant_id=participant_id, probabilities=probs, directions=dirs, at=time.time())
    store.add_workshop_event(run_id, "predict", made.model_dump(exclude={"at"}), check, actor=participant_id)
    return made


def _after_round(run_id: str, store: RunStore) -> int:
    """The round a contribution follows: the last finished round (0 before round 1)."""
    session = load_session(run_id, store)
    if session.state == State.ROUND:
        return max(0, (session.round or 1) - 1)
    return session.round or 0 if session.state == State.BETWEEN_ROUNDS else max(
        [t.round or 0 for t in session.transitions if t.to_state == State.BETWEEN_ROUNDS] or [0])


def contribute(run_id: str, participant_id: str, key: str | None, text: str, kind: str = "claim", tag: str = "",
               *, store: RunStore | None = None) -> Contribution:
    """Add a contribution (bounded: :data:`MAX_CONTRIBUTION_CHARS`; per person :data:`MAX_CONTRIBUTIONS_PER_ROUND`
    a round and :data:`MAX_CONTRIBUTIONS_PER_PERSON` in all). The same person sending the same text (kind and tag
    too) twice in one round gets the first one back: a phone that did not redraw in time invites a second tap."""
    store = store or get_store()
    _need_workshop(run_id, store)
    text = _text(text, "contribution", MAX_CONTRIBUTION_CHARS)
    tag = _text(tag or "", "domain tag", MAX_TAG_CHARS, required=False)
    if kind not in KINDS:
        raise WorkshopError(f"a contribution is one of {', '.join(KINDS)} (got {str(kind)[:20]!r})")
    after = _after_round(run_id, store)
    data: dict[str, Any] = {"id": secrets.token_hex(6), "participant_id": participant_id, "after_round": after,
                            "kind": kind, "text": text, "tag": tag}

    def check(log: EventLog) -> None:
        _open_check(log)
        data["name"] = _participant_check(participant_id, key, log)["name"]
        mine = log.find("contribute", actor=participant_id)
        same = [e for e in mine if e["data"]["after_round"] == after and
                (e["data"]["kind"], e["data"]["text"], e["data"].get("tag", "")) == (kind, text, tag)]
        if same:  # a second press of Send (a slow page, a double tap): the room gets it once
            raise _AlreadySaid(same[0])
        if len(mine) >= MAX_CONTRIBUTIONS_PER_PERSON:
            raise WorkshopError(f"at most {MAX_CONTRIBUTIONS_PER_PERSON} contributions per person in a workshop")
        if sum(e["data"]["after_round"] == after for e in mine) >= MAX_CONTRIBUTIONS_PER_ROUND:
            raise WorkshopError(f"at most {MAX_CONTRIBUTIONS_PER_ROUND} contributions per person per round")

    try:
        store.add_workshop_event(run_id, "contribute", data, check, actor=participant_id, ref=data["id"])
    except _AlreadySaid as said:
        return Contribution(**said.event["data"], at=said.event["at"])
    return Contribution(**data, at=time.time())


class _AlreadySaid(IFWorldError):
    """Raised inside the write's check (so the look and the write are one transaction) when this person already
    said exactly this in this round; :func:`contribute` returns the stored contribution instead of a twin."""

    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__("already said")
        self.event = event


def vote(run_id: str, participant_id: str, key: str | None, contribution_id: str, *,
         store: RunStore | None = None) -> None:
    """+1 someone else's contribution (one vote per participant per contribution; a second is refused, and so
    is a +1 for one's own — the page greys that button, and a forged press must not get round it)."""
    store = store or get_store()
    _need_workshop(run_id, store)
    cid = str(contribution_id)[:64]

    def check(log: EventLog) -> None:
        _open_check(log)
        _participant_check(participant_id, key, log)
        said = log.find("contribute", ref=cid)
        if not said:
            raise WorkshopError("there is no such contribution")
        if said[0]["data"]["participant_id"] == participant_id:
            raise WorkshopError("you cannot +1 your own contribution")
        if log.count("vote", actor=participant_id, ref=cid):
            raise WorkshopError("you have already voted for this contribution")
    store.add_workshop_event(run_id, "vote", {"participant_id": participant_id, "contribution_id": cid}, check,
                             actor=participant_id, ref=cid)


# -- the facilitator ----------------------------------------------------------------------------------------
def decide(run_id: str, caller: Caller, contribution_id: str, decision: str, *, text: str = "",
           merge_with: list[str] | None = None, store: RunStore | None = None) -> None:
    """Accept, edit (with ``text``), merge (``merge_with`` others into this one, with ``text``) or reject a
    contribution. Everything stays in the record; merged ones point at the one they joined. The limits of what
    a round can take (:data:`~ifworld.whatif.room.MAX_ROOM_TEXT_CHARS` per text,
    :data:`~ifworld.whatif.room.MAX_ROOM_CONTRIBUTIONS` per round) are checked here, before anything is
    recorded, so nothing accepted is dropped at *continue*."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "decide on contributions")
    if decision not in DECISIONS:
        raise WorkshopError(f"a decision is one of {', '.join(DECISIONS)}")
    if decision in ("edit", "merge"):
        text = _text(text, "edited text", MAX_ROOM_TEXT_CHARS)
    ws = load_workshop(run_id, store=store)
    known = {c.id: c for c in ws.contributions}
    others = [c for c in merge_with or [] if c != contribution_id]
    if contribution_id not in known or any(c not in known for c in others):
        raise WorkshopError("there is no such contribution")
    pending = {c.id for c in ws.pending()} - {contribution_id, *others}
    if decision != "reject" and len(pending) >= MAX_ROOM_CONTRIBUTIONS:
        raise WorkshopError(f"{MAX_ROOM_CONTRIBUTIONS} accepted contributions are already waiting for the next "
                            "round, the most one round takes; continue first, or merge or reject some")
    store.add_workshop_event(run_id, "decide", {"contribution_id": contribution_id, "decision": decision,
                                                "text": text if decision in ("edit", "merge") else ""}, _open_check,
                             ref=contribution_id)
    for other in others:
        store.add_workshop_event(run_id, "decide", {"contribution_id": other, "decision": "merge",
                                                    "merged_into": contribution_id}, _open_check, ref=other)


def hide_contribution(run_id: str, caller: Caller, contribution_id: str, hidden: bool = True, *,
                      store: RunStore | None = None) -> None:
    """Hide (or show again) a contribution from the room; it stays in the record, marked hidden."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "hide contributions")
    store.add_workshop_event(run_id, "hide", {"contribution_id": contribution_id, "hidden": hidden},
                             ref=contribution_id)


def close_workshop(run_id: str, caller: Caller, *, store: RunStore | None = None) -> None:
    """Close the workshop: it accepts nothing more (joins, predictions, contributions, votes, decisions)."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "close the workshop")
    store.add_workshop_event(run_id, "close", {})


def reveal_workshop(run_id: str, caller: Caller, *, store: RunStore | None = None) -> None:
    """Show the participants their predictions beside the panel's (only once the report is written)."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "reveal the comparison")
    if load_session(run_id, store).state != State.COMPLETED:
        raise WorkshopError("reveal after the report: the run has not completed yet")
    store.add_workshop_event(run_id, "reveal", {})


def continue_workshop(run_id: str, caller: Caller, *, store: RunStore | None = None,
                      settings: Settings | None = None, background: bool = True) -> Iterator[Event] | None:
    """Continue a run paused between rounds with every accepted contribution not sent yet, each a typed
    :class:`~ifworld.whatif.room.RoomContribution` (author, kind, tag, votes, edited, text) that the next
    round's prompts fence as data. Checked whole before anything is recorded; then the run is driven in the
    background here (``background=False`` returns its events instead, for the CLI and tests)."""
    store = store or get_store()
    _facilitator(run_id, caller, store, "continue the run")
    session = load_session(run_id, store)
    if session.state != State.BETWEEN_ROUNDS:
        raise SessionError(f"run {run_id} is {session.state.value.replace('_', ' ')}; contributions enter a run "
                           "that is paused between rounds")
    ws = load_workshop(run_id, store=store)
    pending = ws.pending()
    names = ws.display_names()
    items = [as_frame_item(c, names.get(c.participant_id, c.name)) for c in pending]
    parse_room(items, session.round or 0)  # the run's own check, before anything is recorded as sent
    answer = {"action": "continue", "contributions": items}
    events = drive_session(run_id, source="workshop", caller=caller, action=Action.CONTINUE, answer=answer,
                           store=store, settings=settings)
    store.add_workshop_event(run_id, "sent", {"round": (session.round or 0) + 1, "ids": [c.id for c in pending]})
    if not background:
        return events
    start_background(run_id, lambda: events)
    return None


def as_frame_item(c: Contribution, author: str | None = None) -> dict[str, Any]:
    """A contribution as the run's between-rounds answer carries it (a typed room contribution's fields)."""
    edited = bool(c.decision and c.decision.decision in ("edit", "merge"))
    return RoomContribution.model_validate({
        "author": author or c.name, "kind": c.kind if c.kind in KINDS else "note", "tag": c.tag, "votes": c.votes,
        "edited": edited, "text": c.final_text}).model_dump(exclude={"after_round"})


def scenario_of(run_id: str, *, store: RunStore | None = None, settings: Settings | None = None) -> Scenario:
    """The run's refined scenario as it stands (the checkpoint's; empty before the refiner has run)."""
    store = store or get_store()
    info = store.get_run(run_id)
    if info.record and info.record.get("scenario"):
        return Scenario.model_validate(info.record["scenario"])
    try:
        _, values = paused_state(run_id, settings, store)
    except Exception:  # noqa: BLE001 — an unreadable checkpoint shows no scenario card, never a crash
        return Scenario()
    return Scenario.model_validate(values.get("scenario") or {})
