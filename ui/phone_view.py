"""What a participant's phone shows, as one typed object (:class:`PhoneView`), built from the store.

The phone page (:mod:`ui.phone_server`) sends this object as JSON and its script (``ifworld/web/phone.js``) draws
it with ``textContent`` only: whatever a participant or a model wrote reaches the phone as data, never as
markup. The same engine functions as the facilitator's room build it (``whatif.load_session``,
``whatif.load_workshop``, :mod:`ui.workshop_rows`, ``whatif.compare_room``), so the two views cannot disagree
about the room. No Streamlit call is made here: this runs in the server's thread pool.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Literal

from pydantic import BaseModel

from ifworld import whatif
from ifworld.runs import RunStore
from ifworld.toolkit import Settings
from ifworld.whatif import NO_GROUND_TRUTH, State, Workshop
from ui.phone_doc import Block, doc_blocks
from ui.room_list import RoomRow
from ui.workshop_rows import ENDED, KIND_ICONS, participant_rows

Form = Literal["predict", "scenario_pending", "contribute", "closed", "none"]


class PredictionView(BaseModel):
    probabilities: dict[str, float] = {}
    directions: dict[str, str] = {}
    likely: str = ""


class RevealView(BaseModel):
    revealed: bool = False
    columns: list[str] = []
    rows: list[list[str]] = []
    predicted: bool = False
    note: str = NO_GROUND_TRUTH


class PhoneView(BaseModel):
    """Everything one participant's page draws; ``form`` names the one form it offers in this state."""
    run_id: str
    token: str
    proposition: str
    me: str
    status_line: str
    held: bool = False
    form: Form
    branches: list[str] = []
    indicators: list[str] = []
    directions: list[str] = list(whatif.DIRECTIONS)
    kinds: list[tuple[str, str]] = [(k, f"{KIND_ICONS[k]} {k}") for k in whatif.KINDS]
    max_text: int = whatif.MAX_CONTRIBUTION_CHARS
    max_tag: int = whatif.MAX_TAG_CHARS
    prediction: PredictionView | None = None
    scenario: list[Block] = []
    scenario_open: bool = False
    frame: list[Block] = []
    frame_round: int = 0
    report: list[Block] = []
    reveal: RevealView | None = None
    room_heading: str
    rows: list[RoomRow] = []


class RunSnapshot(BaseModel):
    """The run and its room as read once for every phone of a run (each phone's view is then cut from it)."""
    session: whatif.Session
    workshop: Workshop
    scenario: whatif.Scenario
    scenario_doc: list[Block] = []
    frame: list[Block] = []  # the documents are parsed once per read, not once per phone
    report: list[Block] = []
    record: dict | None = None
    read_at: float = 0.0

    def stamp(self) -> str:
        """Changes whenever anything a phone shows may have changed."""
        ws = self.workshop.model_dump_json()
        head = json.dumps([self.session.state.value, self.session.round, self.session.label])
        return hashlib.blake2b((head + ws).encode(), digest_size=12).hexdigest()


_scenarios: dict[tuple[str, str, int | None], whatif.Scenario] = {}
_frames: dict[tuple[str, int | None], str] = {}


def read_run(run_id: str, store: RunStore, settings: Settings) -> RunSnapshot:
    """Read the run's state and room once; the scenario and the between-rounds frame are read once per state
    of the run (they come from its checkpoint, which is slower to read than the room)."""
    session = whatif.load_session(run_id, store)
    ws = whatif.load_workshop(run_id, store=store)
    key = (run_id, session.state.value, session.round)
    if key not in _scenarios:
        if len(_scenarios) > 256:
            _scenarios.clear()
        _scenarios[key] = whatif.scenario_of(run_id, store=store, settings=settings)
    frame = ""
    if session.state == State.BETWEEN_ROUNDS:
        frame = _frames.get((run_id, session.round), "")
        if not frame:  # read until there is one: the pause's state can be written a moment before its frame
            if len(_frames) > 256:
                _frames.clear()
            asks, _ = whatif.paused_state(run_id, settings, store)
            ask = whatif.parse_ask(asks[0]) if asks else None
            frame = ask.frame if isinstance(ask, whatif.BetweenRoundsAsk) else ""
            if frame:
                _frames[(run_id, session.round)] = frame
    record, report = None, ""
    if session.state == State.COMPLETED:
        record = store.get_run(run_id).record or {}
        report = whatif.report_markdown(record) if record.get("report") else ""
    scenario = _scenarios[key]
    shown = scenario.variants or scenario.restated
    return RunSnapshot(session=session, workshop=ws, scenario=scenario, frame=doc_blocks(frame),
                       scenario_doc=doc_blocks(whatif.scenario_markdown(scenario, heading="")) if shown else [],
                       report=doc_blocks(report), record=record, read_at=time.time())


def _form(snap: RunSnapshot) -> Form:
    """The one form of this state; "closed" keeps the box (with Send off) while a closed workshop's run goes on,
    and the page keeps whatever was typed whenever the form goes away (ifworld/web/phone.js)."""
    state, open_ = snap.session.state, snap.workshop.status == "open"
    if open_ and state in (State.REFINING, State.REVIEW):
        return "predict" if whatif.branches(snap.scenario) else "scenario_pending"
    if open_ and state not in ENDED:
        return "contribute"
    if state not in ENDED:
        return "closed"
    return "none"


def _reveal(snap: RunSnapshot, participant_id: str) -> RevealView | None:
    if snap.session.state != State.COMPLETED:
        return None
    ws = snap.workshop
    if not ws.revealed:
        return RevealView(revealed=False)
    mine = ws.prediction_of(participant_id)
    record = snap.record or {}
    mine_only = ws.model_copy(update={"predictions": [mine] if mine else []})
    table = whatif.reveal_table(whatif.compare_room(mine_only, record.get("report"), record.get("scenario")),
                                room="You (%)")
    columns = list(table[0]) if table else []
    return RevealView(revealed=True, columns=columns, rows=[[row[c] for c in columns] for row in table],
                      predicted=mine is not None)


def _digest(value: object) -> str:
    return hashlib.blake2b(json.dumps(value, sort_keys=True).encode(), digest_size=12).hexdigest()


class Patcher:
    """What one phone still needs of each new view: the whole view first, then only the fields that changed, and
    of the room only the rows that changed (by id) with the order when it moved. A class of 30 sending at once
    changes the room a few times a second; resending every phone its whole room and report each time would be
    megabytes a second over the school's Wi-Fi (``benchmarks/bench_workshop.py``: bytes per phone)."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.rows: dict[str, str] = {}
        self.order: list[str] | None = None  # none sent yet: the first patch carries the rows, even none

    def patch(self, view: PhoneView) -> dict | None:
        """The JSON to send (``rows`` as ``{"order": ids, "changed": rows}``), or None when nothing changed."""
        data = view.model_dump(mode="json")
        rows = data.pop("rows")
        out = {}
        for key, value in data.items():
            digest = _digest(value)
            if self.fields.get(key) != digest:
                out[key], self.fields[key] = value, digest
        digests = {r["id"]: _digest(r) for r in rows}
        order = [r["id"] for r in rows]
        changed = [r for r in rows if self.rows.get(r["id"]) != digests[r["id"]]]
        if changed or order != self.order:
            out["rows"] = {"order": order, "changed": changed}
        self.rows, self.order = digests, order
        return out or None


def phone_view(snap: RunSnapshot, participant_id: str) -> PhoneView:
    """One participant's view of ``snap``."""
    session, ws = snap.session, snap.workshop
    person = ws.participant(participant_id)
    mine = ws.prediction_of(participant_id)
    rows = participant_rows(ws, participant_id, ended=session.state in ENDED)
    total = sum(not c.hidden for c in ws.contributions)
    heading = (f"🗣️ What the room has said ({len(rows)}, oldest first)" if len(rows) >= total else
               f"🗣️ What the room has said (the latest {len(rows)} of {total}, and yours; oldest first)")
    form = _form(snap)
    scenario = snap.scenario
    return PhoneView(
        run_id=session.run_id, token=ws.token, proposition=session.proposition,
        me=person.name if person else "", held=bool(person and person.held),
        status_line=f"You are {person.name if person else '?'} · {session.label}" +
                    (" · the workshop is closed" if ws.status != "open" else ""),
        form=form,
        branches=whatif.branches(scenario) if form == "predict" else [],
        indicators=whatif.indicator_names(scenario) if form == "predict" else [],
        prediction=PredictionView(probabilities=mine.probabilities, directions=mine.directions,
                                  likely=mine.likely) if mine else None,
        scenario=snap.scenario_doc, scenario_open=session.state == State.REVIEW,
        frame=snap.frame, frame_round=session.round or 0 if snap.frame else 0, report=snap.report,
        reveal=_reveal(snap, participant_id), room_heading=heading, rows=rows)
