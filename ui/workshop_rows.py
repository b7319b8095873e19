"""The rows the room lists draw (:mod:`ui.room_list`): what a participant and what the facilitator see of each
contribution, which buttons it offers, and whether a pressed button is already done (a list re-sends a press
until its effect shows, so a handler must skip what is already so)."""

from __future__ import annotations

from ifworld import whatif
from ifworld.whatif import State, Workshop
from ui.room_list import RoomRow, RowAction

ENDED = frozenset({State.COMPLETED, State.CANCELLED, State.FAILED})  # no later round can take a contribution
KIND_ICONS = {"claim": "💬", "concern": "⚠️", "evidence": "📎", "question": "❓"}
KIND_PLURALS = {"claim": "Claims", "concern": "Concerns", "evidence": "Evidence", "question": "Questions"}


def kind_heading(kind: str, count: int) -> str:
    """A kind's heading over its contributions: "📎 Evidence (2)" (never "Evidences")."""
    return f"{KIND_ICONS.get(kind, '')} {KIND_PLURALS.get(kind, kind.capitalize())} ({count})".strip()
DECISION_WORDS = {"accept": "accepted", "edit": "edited and accepted", "merge": "merged and accepted",
                  "reject": "rejected"}
VOTED = "you have +1'd it"
FACILITATOR_ACTIONS = ("accept", "reject", "hide", "show", "edit")  # the names facilitator_rows gives buttons
AFTER_REPORT_ACTIONS = ("hide", "show")  # what is left once no round can take a contribution
PARTICIPANT_ROWS = 100
"""Rows a participant's list draws at most (the latest, plus their own): a flooded room stays a phone's page."""


def _byline(c: whatif.Contribution, name: str | None = None) -> str:
    return f"{KIND_ICONS.get(c.kind, '')} {name or c.name}{' · ' + c.tag if c.tag else ''}"


# -- participant ---------------------------------------------------------------------------------------------
def participant_rows(ws: Workshop, participant_id: str, *, ended: bool = False) -> list[RoomRow]:
    """The room's contributions as ``participant_id`` sees them, in the order they were said (not by votes: a row
    that moved while someone aimed at its +1 would take the vote), each +1 greyed with why. Hidden ones are left
    out — except the participant's own, which they see with what the facilitator decided (:func:`fate_of`;
    ``ended``: no later round can take one)."""
    voted = {v.contribution_id for v in ws.votes if v.participant_id == participant_id}
    rows = []
    shown = [c for c in sorted(ws.contributions, key=lambda c: c.at) if not c.hidden or c.participant_id ==
             participant_id]
    latest = {c.id for c in shown[-PARTICIPANT_ROWS:]}  # a phone gets the latest rows, and always its own
    for c in shown:
        own = c.participant_id == participant_id
        if c.id not in latest and not own:
            continue
        why = _why_not(c, participant_id, voted, ws)
        who = f"{KIND_ICONS.get(c.kind, '')} you · {fate_of(c, ended)}" if own else _byline(c)
        rows.append(RoomRow(id=c.id, who=who, text=c.final_text, muted=c.hidden,
                            actions=[RowAction(name="vote", label=f"+1 ({c.votes})", enabled=not why, title=why)]))
    return rows


def fate_of(c: whatif.Contribution, ended: bool = False) -> str:
    """What became of a contribution, told to its author: waiting (or, once the run has ended, not taken up),
    accepted (and into which round), edited, merged, rejected, hidden."""
    if c.hidden:
        return "hidden by the facilitator"
    if c.decision is None:
        return "not taken up: the run ended first" if ended else "waiting for the facilitator"
    if c.decision.merged_into:
        return "merged into another contribution"
    if c.decision.decision == "reject":
        return "not taken this time"
    fate = {"accept": "accepted", "edit": "accepted, edited by the facilitator",
            "merge": "accepted, merged with others by the facilitator"}[c.decision.decision]
    later = " · no round was left to take it" if ended else " · for the next round"
    return fate + (f" · went into round {c.sent_round}" if c.sent_round else later)


def _why_not(c: whatif.Contribution, participant_id: str, voted: set[str], ws: Workshop) -> str:
    """Why this participant cannot +1 ``c`` (empty when they can)."""
    if ws.status != "open":
        return "the workshop is closed"
    if c.participant_id == participant_id:
        return "your own contribution"
    return VOTED if c.id in voted else ""


# -- facilitator ---------------------------------------------------------------------------------------------
def status_of(c: whatif.Contribution) -> str:
    """A contribution's standing in words: its decision (or none yet), hidden, the round that carried it."""
    status = DECISION_WORDS[c.decision.decision] if c.decision else "undecided"
    if c.decision and c.decision.merged_into:
        status = "merged into another"
    return status + (" · hidden" if c.hidden else "") + (f" · in round {c.sent_round}" if c.sent_round else "")


def _decided(c: whatif.Contribution) -> str:
    """The decision that stands on ``c`` itself ("" when none, or when it was merged into another)."""
    return c.decision.decision if c.decision and not c.decision.merged_into else ""


def facilitator_rows(contributions: list[whatif.Contribution], ws: Workshop, editing: str | None, *,
                     rounds_left: bool) -> list[RoomRow]:
    """``contributions`` (one kind, by votes) as the facilitator sees them: votes, author, round and standing above
    the text, then the buttons that can still do something — accept, reject and edit while a later round can take
    it (``rounds_left``), hide or show while the workshop is open; none once it went into a round. Hidden,
    rejected and merged ones are drawn faded."""
    rows = []
    names = ws.display_names()  # two people called Sam are told apart: "Sam", "Sam (2)"
    for c in contributions:
        decided = _decided(c)
        actions = []
        if ws.status == "open" and not c.sent_round:
            if rounds_left:
                actions += [
                    RowAction(name="accept", label="✅ Accept", enabled=decided != "accept",
                              title="accepted" if decided == "accept" else "into the next round's frame, named"),
                    RowAction(name="reject", label="❌ Reject", enabled=decided != "reject",
                              title="rejected" if decided == "reject" else "kept in the record, not sent to the panel"),
                ]
            actions.append(RowAction(name="show", label="🙈 Show", title="show it to the room again") if c.hidden else
                           RowAction(name="hide", label="🙈 Hide", title="take it off the participants' screens"))
            if rounds_left:
                actions.append(RowAction(name="edit", label="✏️ Edit or merge", enabled=editing != c.id,
                                         title="being edited" if editing == c.id else "edit its text; merge others in"))
        rows.append(RoomRow(id=c.id, text=c.final_text, actions=actions,
                            who=f"+{c.votes} · {_byline(c, names.get(c.participant_id))} · "
                                f"after round {c.after_round} · {status_of(c)}",
                            muted=c.hidden or decided == "reject" or bool(c.decision and c.decision.merged_into)))
    return rows


def already_done(c: whatif.Contribution, action: str) -> bool:
    """True when pressing ``action`` on ``c`` would change nothing (the press was re-sent after it took effect)."""
    return {"accept": _decided(c) == "accept", "reject": _decided(c) == "reject", "hide": c.hidden,
            "show": not c.hidden}.get(action, False)
