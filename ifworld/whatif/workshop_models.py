"""The workshop's typed records and how its event log folds into them (part of :mod:`ifworld.whatif.workshop`).

Kept apart so each module stays readable end to end: here what a room *is* (participants, predictions,
contributions, votes, decisions), there what people may *do* to it.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ifworld.names import name_key
from ifworld.whatif.schemas import Scenario, numbered_variants

MAX_NAME_CHARS = 40
MAX_CONTRIBUTION_CHARS = 1_000
MAX_TAG_CHARS = 40
KINDS = ("claim", "concern", "evidence", "question")
DECISIONS = ("accept", "edit", "merge", "reject")
DIRECTIONS = ("up", "down", "flat")
NO_GROUND_TRUTH = ("This is a discussion starter, not a score: a counterfactual has no ground truth, so neither the "
                   "room nor the panel can be 'right'.")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Participant(_Frozen):
    id: str
    name: str
    joined: float = 0.0
    held: bool = False
    """Joined from an address that had already brought :data:`~ifworld.whatif.workshop.FREE_JOINS_PER_ADDRESS`
    people in a minute: their +1s do not count until the facilitator allows them (one voice per person)."""
    group: str = ""
    """Which address they came from, as a short digest (people held together are allowed together)."""


class Prediction(_Frozen):
    """A participant's pre-registered view: a probability (%) per branch and optional indicator directions."""
    participant_id: str
    probabilities: dict[str, float]
    directions: dict[str, str] = Field(default_factory=dict)
    at: float = 0.0

    @property
    def likely(self) -> str:
        """The branch given the most, or "" when several share the top (a 50/50 names no favourite)."""
        if not self.probabilities:
            return ""
        top = max(self.probabilities.values())
        leaders = [b for b, p in self.probabilities.items() if p == top]
        return leaders[0] if len(leaders) == 1 else ""


class RosterEntry(_Frozen):
    """One name of a roster room as the facilitator's page lists it (never its code nor the code's hash)."""
    id: str
    """The participant id this name joins as (kept when the same name is on a new roster)."""
    name: str
    joined: bool = False
    """A device holds this name's code now (released or re-rostered: False until a device uses the code)."""


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
    """One row of the reveal: a variant (by id) with the room's mean and the panel's probability, or a branch of
    the panel's own (``own``: nobody predicted on it). A figure nobody gave is None, shown as "—"."""
    branch: str
    room_pct: float | None = None
    panel_pct: float | None = None
    variant_id: str = ""
    own: bool = False

    @property
    def gap(self) -> float | None:
        if self.room_pct is None or self.panel_pct is None:
            return None
        return abs(self.room_pct - self.panel_pct)


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
    roster: list[RosterEntry] = Field(default_factory=list)
    """Set by the facilitator (:func:`~ifworld.whatif.workshop_roster.set_roster`): the room then takes personal
    codes only, and each name comes from this list."""
    events: int = 0

    @property
    def is_roster(self) -> bool:
        return bool(self.roster)

    def participant(self, participant_id: str) -> Participant | None:
        return next((p for p in self.participants if p.id == participant_id), None)

    def display_names(self) -> dict[str, str]:
        """Each participant's name as the facilitator sees it: a name taken by someone who joined earlier gets
        " (2)", " (3)" … in joining order (participants cannot type brackets, so nobody can fake the suffix).
        Names are the same when they look the same: their UTS #39 skeletons match (a Latin and a Cyrillic
        ``Anna``, a name with an invisible filler), see :func:`ifworld.names.name_key`."""
        used: set[str] = set()
        out = {}
        for p in self.participants:  # a roster's own "Sam (2)" is a name too: no label is given twice
            label, n = p.name, 1
            while name_key(label) in used:
                n += 1
                label = f"{p.name} ({n})"
            used.add(name_key(label))
            out[p.id] = label
        return out

    def held_groups(self) -> dict[str, list[Participant]]:
        """People whose +1s wait for the facilitator, by the address they came from (see :attr:`Participant.held`)."""
        out: dict[str, list[Participant]] = {}
        for p in self.participants:
            if p.held:
                out.setdefault(p.group, []).append(p)
        return out

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


# -- the event log folded ------------------------------------------------------------------------
class RoomFold:
    """The event log folded so far. Events are only ever appended, so a fold carries on from the last event it
    saw (:meth:`apply`): a redraw of a quiet room reads nothing, a busy one reads only what is new — the whole
    log was parsed on every redraw before (100 ms at 10,000 events, on every participant's 1.5-s refresh)."""

    def __init__(self) -> None:
        self.seq = 0
        self.count = 0
        self.people: dict[str, Participant] = {}
        self.predictions: dict[str, Prediction] = {}
        self.contributions: dict[str, dict[str, Any]] = {}
        self.votes: list[Vote] = []
        self.pending: dict[str, list[Vote]] = {}  # votes of held participants, counted once they are allowed
        self.status: Literal["open", "closed"] = "open"
        self.revealed = False
        self.roster: list[dict[str, str]] = []
        self.bound: set[str] = set()  # roster entries a device holds now
        self._built: Workshop | None = None
        self.lock = threading.Lock()  # sessions read the store outside it, then apply and build under it

    def apply(self, events: list[dict[str, Any]]) -> None:
        """Fold in ``events``; one the fold already holds (seq at or below :attr:`seq`: two sessions read the
        same new events at once) is skipped, so applying is idempotent."""
        for e in events:
            if self.count and int(e.get("seq") or 0) <= self.seq:
                continue
            self._one(e)
            self.seq, self.count = max(self.seq, int(e.get("seq") or 0)), self.count + 1
            self._built = None

    def _one(self, e: dict[str, Any]) -> None:
        d, kind, said = e["data"], e["kind"], self.contributions
        if kind == "join":
            self.people.setdefault(d["id"], Participant(id=d["id"], name=d["name"], joined=e["at"],
                                                        held=bool(d.get("held")), group=str(d.get("group", ""))))
            if d.get("roster"):
                self.bound.add(d["id"])
        elif kind == "roster":  # a new roster: new codes, so no device holds one yet
            self.roster = [{"id": x["id"], "name": x["name"]} for x in d["entries"]]
            self.bound.clear()
        elif kind == "release":
            self.bound.discard(d["id"])
        elif kind == "allow":
            for pid in d["ids"]:
                if pid in self.people and self.people[pid].held:
                    self.people[pid] = self.people[pid].model_copy(update={"held": False})
                    for v in self.pending.pop(pid, []):
                        self._count(v)
        elif kind == "vote" and d["contribution_id"] in said and self.people.get(d["participant_id"]) is not None \
                and self.people[d["participant_id"]].held:
            self.pending.setdefault(d["participant_id"], []).append(Vote(**d))
        elif kind == "predict":
            self.predictions[d["participant_id"]] = Prediction(**d, at=e["at"])
        elif kind == "contribute":
            said[d["id"]] = {**d, "at": e["at"]}
        elif kind == "vote" and d["contribution_id"] in said:
            self._count(Vote(**d))
        elif kind == "decide" and d["contribution_id"] in said:
            said[d["contribution_id"]]["decision"] = Decision(**d, at=e["at"])
        elif kind == "hide" and d["contribution_id"] in said:
            said[d["contribution_id"]]["hidden"] = bool(d.get("hidden", True))
        elif kind == "sent":
            for cid in d["ids"]:
                if cid in said:
                    said[cid]["sent_round"] = int(d["round"])
        elif kind == "close":
            self.status = "closed"
        elif kind == "reveal":
            self.revealed = True

    def _count(self, vote: Vote) -> None:
        if vote.contribution_id in self.contributions:
            self.votes.append(vote)
            said = self.contributions[vote.contribution_id]
            said["votes"] = said.get("votes", 0) + 1

    def workshop(self, row: dict[str, Any]) -> Workshop:
        """The room as folded so far (built once per change, shared by every redraw until the next event)."""
        if self._built is None or self._built.run_id != row["run_id"]:
            self._built = Workshop(
                run_id=row["run_id"], code=row["code"], token=row["token"], status=self.status,
                revealed=self.revealed, participants=list(self.people.values()),
                predictions=list(self.predictions.values()),
                contributions=[Contribution(**c) for c in self.contributions.values()], votes=list(self.votes),
                roster=[RosterEntry(**x, joined=x["id"] in self.bound) for x in self.roster], events=self.count)
        return self._built


def fold(row: dict[str, Any], events: list[dict[str, Any]]) -> Workshop:
    """The whole log folded at once."""
    room = RoomFold()
    room.apply(events)
    return room.workshop(row)


# -- whose device a join event still is ---------------------------------------------------------
class _Finder(Protocol):
    def count(self, kind: str, *, actor: str | None = None, ref: str | None = None) -> int: ...


class StoreLog:
    """The store's indexed look-ups outside a write, shaped like the write lock's event log (for :func:`bound`)."""

    def __init__(self, store: Any, run_id: str) -> None:
        self._store, self._run_id = store, run_id

    def count(self, kind: str, *, actor: str | None = None, ref: str | None = None) -> int:
        return len(self._store.workshop_find(self._run_id, kind, actor=actor, ref=ref))


def bound(log: _Finder, join: dict[str, Any]) -> bool:
    """Whether the device of ``join`` (a join event) is still its participant. An open join always is; a roster
    code's join records how many rosters and releases of its name there were, and stops counting once either
    grows (the facilitator released the code, or made new codes) — two counts, never a read of the log."""
    d = join["data"]
    if not d.get("roster"):
        return True
    return log.count("roster") == d.get("rosters") and log.count("release", actor=d["id"]) == d.get("releases")


_INVISIBLE = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp"})


def visible_text(value: str) -> str:
    """Text without bidi controls, zero-width characters and other invisible code points (categories Cf, Cc,
    Cs, Co, Cn, Zl, Zp), single-spaced: what a reader sees is what is stored."""
    return " ".join("".join(ch for ch in value if unicodedata.category(ch) not in _INVISIBLE).split())


# -- the branches a prediction is about ---------------------------------------------------------
def unique_names(names: Iterable[Any]) -> list[str]:
    """Names made fit to label one widget each: spaces folded, empty ones dropped, and a name used again (case
    ignored) gets " (2)", " (3)" … — a model may name two branches or two indicators alike, and two widgets with
    one key stop the page (``StreamlitDuplicateElementKey``) before anything is drawn."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in names:
        name = " ".join(str(raw or "").split())
        if not name:
            continue
        label, n = name, 1
        while label.casefold() in seen:
            n += 1
            label = f"{name} ({n})"
        seen.add(label.casefold())
        out.append(label)
    return out


def variant_labels(scenario: Scenario | dict | None) -> dict[str, str]:
    """The variants a prediction is about, id → the label a participant sees (and a prediction is keyed by):
    :func:`unique_names` of their names, so every branch has its own field and its own probability."""
    raw = scenario.variants if isinstance(scenario, Scenario) else (scenario or {}).get("variants")
    named = [v for v in numbered_variants(raw) if v.name.strip()]
    return dict(zip((v.id for v in named), unique_names(v.name for v in named), strict=True))


def branches(scenario: Scenario | dict | None) -> list[str]:
    """The branches a prediction is about: the refined scenario's variants, by label (:func:`variant_labels`)."""
    return list(variant_labels(scenario).values())


def indicator_names(scenario: Scenario | dict | None) -> list[str]:
    """The scenario's indicators by name, each once (:func:`unique_names`)."""
    return unique_names(i.name for i in Scenario.model_validate(scenario or {}).indicators)


def even_split(names: list[str]) -> dict[str, float]:
    """Probabilities that share 100 evenly (whole numbers; the first branches take the remainder)."""
    if not names:
        return {}
    base, extra = divmod(100, len(names))
    return {b: float(base + (1 if i < extra else 0)) for i, b in enumerate(names)}
