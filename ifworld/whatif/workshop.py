"""Workshop mode: the people in the room join a what-if run's deliberation from their own devices.

A workshop hangs off one what-if run. Its facilitator (whoever opened it) holds a secret; only the secret's
SHA-256 is stored, and every facilitator function here takes the secret and checks it, so a participant's
browser session or a forged URL cannot act for the facilitator. Participants join without an account (a join
token of 128 random bits in the link, or a short code typed on the Join page — rate-limited per client), give a
display name and get their own key (also stored hashed) that their actions carry.

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
:class:`Workshop` on every read, so any number of app processes on the same store file see the same room.
Checks that depend on earlier events (one vote per contribution, the per-round bound, a closed workshop) run
inside the store's write lock.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ifworld.config import Settings
from ifworld.errors import WorkshopError
from ifworld.runs import Event, RunStore, get_store
from ifworld.whatif.schemas import Scenario
from ifworld.whatif.session import Action, SessionError, State, drive_session, load_session, paused_state

MAX_NAME_CHARS = 40
MAX_CONTRIBUTION_CHARS = 1_000
MAX_TAG_CHARS = 40
MAX_CONTRIBUTIONS_PER_ROUND = 20
"""Per participant and round."""
MAX_PARTICIPANTS = 300
TOKEN_BYTES = 16
"""Join tokens and secrets: 16 random bytes = 128 bits (``secrets.token_urlsafe``)."""
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed on a phone
CODE_LENGTH = 6
CODE_FAILURES = 8
"""Wrong codes a client may type per :data:`CODE_WINDOW_S` (per browser session and per IP address)."""
CODE_WINDOW_S = 60.0
KINDS = ("claim", "concern", "evidence", "question")
DECISIONS = ("accept", "edit", "merge", "reject")
DIRECTIONS = ("up", "down", "flat")
NO_GROUND_TRUTH = ("This is a discussion starter, not a score: a counterfactual has no ground truth, so neither the "
                   "room nor the panel can be 'right'.")
_BEFORE_ROUND_1 = frozenset({State.DRAFT, State.REFINING, State.REVIEW})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Participant(_Frozen):
    id: str
    name: str
    joined: float = 0.0


class Prediction(_Frozen):
    """A participant's pre-registered view: a probability (%) per branch and optional indicator directions."""
    participant_id: str
    probabilities: dict[str, float]
    directions: dict[str, str] = Field(default_factory=dict)
    at: float = 0.0

    @property
    def likely(self) -> str:
        return max(self.probabilities, key=lambda b: self.probabilities[b]) if self.probabilities else ""


class Vote(_Frozen):
    participant_id: str
    contribution_id: str


class Decision(_Frozen):
    contribution_id: str
    decision: Literal["accept", "edit", "merge", "reject"]
    text: str = ""  # the edited text (edit), or the merged text (merge)
    merged_into: str = ""
    at: float = 0.0


class Contribution(_Frozen):
    id: str
    participant_id: str
    name: str
    after_round: int
    kind: str
    text: str
    tag: str = ""
    at: float = 0.0
    votes: int = 0
    hidden: bool = False
    decision: Decision | None = None
    sent_round: int | None = None  # the round whose frame carried it

    @property
    def final_text(self) -> str:
        return self.decision.text if self.decision and self.decision.text else self.text

    @property
    def accepted(self) -> bool:
        return bool(self.decision and self.decision.decision in ("accept", "edit", "merge")
                    and not self.decision.merged_into and not self.hidden)


class BranchComparison(_Frozen):
    branch: str
    room_pct: float
    panel_pct: float | None

    @property
    def gap(self) -> float:
        return abs(self.room_pct - self.panel_pct) if self.panel_pct is not None else 0.0


class Workshop(_Frozen):
    """The room as the event log says now (folded by :func:`load_workshop`)."""
    run_id: str
    code: str
    token: str
    status: Literal["open", "closed"] = "open"
    revealed: bool = False
    participants: list[Participant] = Field(default_factory=list)
    predictions: list[Prediction] = Field(default_factory=list)
    contributions: list[Contribution] = Field(default_factory=list)
    votes: list[Vote] = Field(default_factory=list)
    events: int = 0

    def participant(self, participant_id: str) -> Participant | None:
        return next((p for p in self.participants if p.id == participant_id), None)

    def prediction_of(self, participant_id: str) -> Prediction | None:
        return next((p for p in self.predictions if p.participant_id == participant_id), None)

    def by_votes(self, *, include_hidden: bool = False) -> list[Contribution]:
        """Contributions, most voted first (then oldest first)."""
        shown = [c for c in self.contributions if include_hidden or not c.hidden]
        return sorted(shown, key=lambda c: (-c.votes, c.at))

    def pending(self) -> list[Contribution]:
        """Accepted contributions no round has carried yet (what continuing sends)."""
        return [c for c in self.contributions if c.accepted and c.sent_round is None]


class WorkshopRecord(BaseModel):
    """The workshop as part of the run record and its exports (names replaced by P1, P2, … when anonymised)."""
    code: str = ""
    status: str = "open"
    revealed: bool = False
    anonymised: bool = False
    participants: list[Participant] = Field(default_factory=list)
    predictions: list[Prediction] = Field(default_factory=list)
    contributions: list[Contribution] = Field(default_factory=list)
    votes: list[Vote] = Field(default_factory=list)
    comparison: list[BranchComparison] = Field(default_factory=list)


# -- keys -----------------------------------------------------------------------------------------------
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
def open_workshop(run_id: str, *, store: RunStore | None = None) -> tuple[Workshop, str]:
    """Open the workshop of ``run_id``; returns it and the facilitator secret (shown once: keep it in the
    facilitator's session and as a recovery link; only its hash is stored)."""
    store = store or get_store()
    info = store.get_run(run_id)
    if info.kind != "whatif":
        raise WorkshopError(f"run {run_id} is not a what-if run; a workshop hangs off a what-if run")
    if store.workshop_row(run_id=run_id) is not None:
        raise WorkshopError(f"run {run_id} already has a workshop; open its facilitator view with the recovery "
                            "link shown when it was opened")
    secret = secrets.token_urlsafe(TOKEN_BYTES)
    for _ in range(20):  # a clash of short codes is rare (31^6 ≈ 887 million); draw again when it happens
        code = _new_code()
        if store.workshop_row(code=code) is None:
            break
    store.add_workshop(run_id, token=secrets.token_urlsafe(TOKEN_BYTES), code=code, secret_hash=_hash(secret))
    return load_workshop(run_id, store=store), secret


def has_workshop(run_id: str, *, store: RunStore | None = None) -> bool:
    return (store or get_store()).workshop_row(run_id=run_id) is not None


def load_workshop(run_id: str, *, store: RunStore | None = None) -> Workshop:
    """The workshop of ``run_id`` as its event log says now (raises WorkshopError when there is none)."""
    store = store or get_store()
    row = store.workshop_row(run_id=run_id)
    if row is None:
        raise WorkshopError(f"run {run_id} has no workshop")
    return _fold(row, store.workshop_events(run_id))


def find_by_token(token: str, *, store: RunStore | None = None) -> Workshop:
    """The workshop a join link points at."""
    store = store or get_store()
    row = store.workshop_row(token=str(token)[:100]) if token else None
    if row is None:
        raise WorkshopError("this join link is not valid (mistyped or from another app); ask for the code")
    return _fold(row, store.workshop_events(row["run_id"]))


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
    return _fold(row, store.workshop_events(row["run_id"]))


# -- the event log ------------------------------------------------------------------------------------------
def _fold(row: dict[str, Any], events: list[dict[str, Any]]) -> Workshop:
    people: dict[str, Participant] = {}
    predictions: dict[str, Prediction] = {}
    contributions: dict[str, dict[str, Any]] = {}
    votes: list[Vote] = []
    status: Literal["open", "closed"] = "open"
    revealed = False
    for e in events:
        d, kind = e["data"], e["kind"]
        if kind == "join":
            people[d["id"]] = Participant(id=d["id"], name=d["name"], joined=e["at"])
        elif kind == "predict":
            predictions[d["participant_id"]] = Prediction(**d, at=e["at"])
        elif kind == "contribute":
            contributions[d["id"]] = {**d, "at": e["at"]}
        elif kind == "vote" and d["contribution_id"] in contributions:
            votes.append(Vote(**d))
            contributions[d["contribution_id"]]["votes"] = contributions[d["contribution_id"]].get("votes", 0) + 1
        elif kind == "decide" and d["contribution_id"] in contributions:
            contributions[d["contribution_id"]]["decision"] = Decision(**d, at=e["at"])
        elif kind == "hide" and d["contribution_id"] in contributions:
            contributions[d["contribution_id"]]["hidden"] = bool(d.get("hidden", True))
        elif kind == "sent":
            for cid in d["ids"]:
                if cid in contributions:
                    contributions[cid]["sent_round"] = int(d["round"])
        elif kind == "close":
            status = "closed"
        elif kind == "reveal":
            revealed = True
    return Workshop(run_id=row["run_id"], code=row["code"], token=row["token"], status=status, revealed=revealed,
                    participants=list(people.values()), predictions=list(predictions.values()),
                    contributions=[Contribution(**c) for c in contributions.values()], votes=votes,
                    events=len(events))


def _facilitator(run_id: str, secret: str | None, store: RunStore) -> dict[str, Any]:
    row = store.workshop_row(run_id=run_id)
    if row is None:
        raise WorkshopError(f"run {run_id} has no workshop")
    if not _matches(secret, row["secret_hash"]):
        raise WorkshopError("only the workshop's facilitator can do this (the facilitator secret is missing or "
                            "wrong; use the recovery link)")
    return row


def is_facilitator(run_id: str, secret: str | None, *, store: RunStore | None = None) -> bool:
    """Whether ``secret`` is the facilitator secret of ``run_id``'s workshop."""
    row = (store or get_store()).workshop_row(run_id=run_id)
    return row is not None and _matches(secret, row["secret_hash"])


def _participant_check(participant_id: str, key: str | None, events: list[dict]) -> None:
    joined = next((e["data"] for e in events if e["kind"] == "join" and e["data"]["id"] == participant_id), None)
    if joined is None or not _matches(key, joined["key_hash"]):
        raise WorkshopError("you are not a participant of this workshop (join again with the link or code)")


def _open_check(events: list[dict]) -> None:
    if any(e["kind"] == "close" for e in events):
        raise WorkshopError("the workshop is closed; it accepts nothing more")


def _text(value: Any, what: str, limit: int, *, required: bool = True) -> str:
    if not isinstance(value, str):
        raise WorkshopError(f"the {what} must be text")
    text = " ".join(value.split())
    if required and not text:
        raise WorkshopError(f"the {what} is empty")
    if len(text) > limit:
        raise WorkshopError(f"the {what} is {len(text):,} characters; at most {limit:,}")
    return text


# -- participants -------------------------------------------------------------------------------------------
def join_workshop(token: str, name: str, *, store: RunStore | None = None) -> tuple[Participant, str]:
    """Join the workshop of a join token (the link, or what :func:`find_by_code` found) as ``name``; returns
    the participant and their key (kept in their browser session; stored hashed)."""
    store = store or get_store()
    ws = find_by_token(token, store=store)
    name = _text(name, "display name", MAX_NAME_CHARS)
    pid, key = secrets.token_hex(6), secrets.token_urlsafe(TOKEN_BYTES)

    def check(events: list[dict]) -> None:
        _open_check(events)
        if sum(e["kind"] == "join" for e in events) >= MAX_PARTICIPANTS:
            raise WorkshopError(f"the workshop is full ({MAX_PARTICIPANTS} participants)")
    store.add_workshop_event(ws.run_id, "join", {"id": pid, "name": name, "key_hash": _hash(key)}, check)
    return Participant(id=pid, name=name, joined=time.time()), key


def _need_workshop(run_id: str, store: RunStore) -> None:
    if store.workshop_row(run_id=run_id) is None:
        raise WorkshopError(f"run {run_id} has no workshop")


def branches(scenario: Scenario | dict | None) -> list[str]:
    """The branches a prediction is about: the refined scenario's variants, by name."""
    scen = Scenario.model_validate(scenario or {})
    return [v.name for v in scen.variants if v.name.strip()]


def even_split(names: list[str]) -> dict[str, float]:
    """Probabilities that share 100 evenly (whole numbers; the first branches take the remainder)."""
    if not names:
        return {}
    base, extra = divmod(100, len(names))
    return {b: float(base + (1 if i < extra else 0)) for i, b in enumerate(names)}


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

    def check(events: list[dict]) -> None:
        _open_check(events)
        _participant_check(participant_id, key, events)
    made = Prediction(participant_id=participant_id, probabilities=probs, directions=dirs, at=time.time())
    store.add_workshop_event(run_id, "predict", made.model_dump(exclude={"at"}), check)
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
    """Add a contribution (bounded: :data:`MAX_CONTRIBUTION_CHARS`, :data:`MAX_CONTRIBUTIONS_PER_ROUND`)."""
    store = store or get_store()
    _need_workshop(run_id, store)
    text = _text(text, "contribution", MAX_CONTRIBUTION_CHARS)
    tag = _text(tag or "", "domain tag", MAX_TAG_CHARS, required=False)
    if kind not in KINDS:
        raise WorkshopError(f"a contribution is one of {', '.join(KINDS)} (got {str(kind)[:20]!r})")
    after = _after_round(run_id, store)
    data: dict[str, Any] = {"id": secrets.token_hex(6), "participant_id": participant_id, "after_round": after,
                            "kind": kind, "text": text, "tag": tag}

    def check(events: list[dict]) -> None:
        _open_check(events)
        _participant_check(participant_id, key, events)
        data["name"] = next(e["data"]["name"] for e in events
                            if e["kind"] == "join" and e["data"]["id"] == participant_id)
        mine = sum(e["kind"] == "contribute" and e["data"]["participant_id"] == participant_id
                   and e["data"]["after_round"] == after for e in events)
        if mine >= MAX_CONTRIBUTIONS_PER_ROUND:
            raise WorkshopError(f"at most {MAX_CONTRIBUTIONS_PER_ROUND} contributions per person per round")

    store.add_workshop_event(run_id, "contribute", data, check)
    return Contribution(**data, at=time.time())


def vote(run_id: str, participant_id: str, key: str | None, contribution_id: str, *,
         store: RunStore | None = None) -> None:
    """+1 someone else's contribution (one vote per participant per contribution; a second is refused, and so
    is a +1 for one's own — the page greys that button, and a forged press must not get round it)."""
    store = store or get_store()
    _need_workshop(run_id, store)

    def check(events: list[dict]) -> None:
        _open_check(events)
        _participant_check(participant_id, key, events)
        author = next((e["data"]["participant_id"] for e in events
                       if e["kind"] == "contribute" and e["data"]["id"] == contribution_id), None)
        if author is None:
            raise WorkshopError("there is no such contribution")
        if author == participant_id:
            raise WorkshopError("you cannot +1 your own contribution")
        if any(e["kind"] == "vote" and e["data"] == {"participant_id": participant_id,
                                                     "contribution_id": contribution_id} for e in events):
            raise WorkshopError("you have already voted for this contribution")
    store.add_workshop_event(run_id, "vote", {"participant_id": participant_id, "contribution_id": contribution_id},
                             check)


# -- the facilitator ----------------------------------------------------------------------------------------
def decide(run_id: str, secret: str | None, contribution_id: str, decision: str, *, text: str = "",
           merge_with: list[str] | None = None, store: RunStore | None = None) -> None:
    """Accept, edit (with ``text``), merge (``merge_with`` others into this one, with ``text``) or reject a
    contribution. Everything stays in the record; merged ones point at the one they joined."""
    store = store or get_store()
    _facilitator(run_id, secret, store)
    if decision not in DECISIONS:
        raise WorkshopError(f"a decision is one of {', '.join(DECISIONS)}")
    if decision in ("edit", "merge"):
        text = _text(text, "edited text", MAX_CONTRIBUTION_CHARS * 3)
    known = {c.id for c in load_workshop(run_id, store=store).contributions}
    others = [c for c in merge_with or [] if c != contribution_id]
    if contribution_id not in known or any(c not in known for c in others):
        raise WorkshopError("there is no such contribution")
    store.add_workshop_event(run_id, "decide", {"contribution_id": contribution_id, "decision": decision,
                                                "text": text if decision in ("edit", "merge") else ""}, _open_check)
    for other in others:
        store.add_workshop_event(run_id, "decide", {"contribution_id": other, "decision": "merge",
                                                    "merged_into": contribution_id}, _open_check)


def hide_contribution(run_id: str, secret: str | None, contribution_id: str, hidden: bool = True, *,
         store: RunStore | None = None) -> None:
    """Hide (or show again) a contribution from the room; it stays in the record, marked hidden."""
    store = store or get_store()
    _facilitator(run_id, secret, store)
    store.add_workshop_event(run_id, "hide", {"contribution_id": contribution_id, "hidden": hidden})


def close_workshop(run_id: str, secret: str | None, *, store: RunStore | None = None) -> None:
    """Close the workshop: it accepts nothing more (joins, predictions, contributions, votes, decisions)."""
    store = store or get_store()
    _facilitator(run_id, secret, store)
    store.add_workshop_event(run_id, "close", {})


def reveal_workshop(run_id: str, secret: str | None, *, store: RunStore | None = None) -> None:
    """Show the participants their predictions beside the panel's (only once the report is written)."""
    store = store or get_store()
    _facilitator(run_id, secret, store)
    if load_session(run_id, store).state != State.COMPLETED:
        raise WorkshopError("reveal after the report: the run has not completed yet")
    store.add_workshop_event(run_id, "reveal", {})


def continue_workshop(run_id: str, secret: str | None, *, store: RunStore | None = None,
                      settings: Settings | None = None) -> Iterator[Event]:
    """Continue a run paused between rounds with every accepted contribution not sent yet; each enters the
    next round's shared frame as a workshop participant contribution with its author's name (the run's own
    between-rounds mechanism). Returns the run's events (hand them to a background driver)."""
    store = store or get_store()
    _facilitator(run_id, secret, store)
    session = load_session(run_id, store)
    if session.state != State.BETWEEN_ROUNDS:
        raise SessionError(f"run {run_id} is {session.state.value.replace('_', ' ')}; contributions enter a run "
                           "that is paused between rounds")
    pending = load_workshop(run_id, store=store).pending()
    answer = {"action": "continue", "contributions": [as_frame_item(c) for c in pending]}
    events = drive_session(run_id, source="workshop", action=Action.CONTINUE, answer=answer, store=store,
                           settings=settings)
    store.add_workshop_event(run_id, "sent", {"round": (session.round or 0) + 1, "ids": [c.id for c in pending]})
    return events


def as_frame_item(c: Contribution) -> dict[str, str]:
    """A contribution as the run's between-rounds answer carries it: attributed name and text."""
    label = c.kind + (f", {c.tag}" if c.tag else "") + (f", +{c.votes}" if c.votes else "")
    return {"name": f"{c.name} (workshop {label})", "text": c.final_text}


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
