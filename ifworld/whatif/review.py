"""Human in the loop: what a paused run asks, and how a person's answer is checked and applied.

Two pauses (LangGraph ``interrupt`` — the run's state waits in the SQLite checkpoint, so a pause survives
closing the browser or the CLI):

- ``review`` after the refiner, before any expert runs: the person may edit the premises, the constraints
  held constant, the key uncertainties, the indicators and the expert panel;
- ``between_rounds`` after each non-final round's frame: a facilitator may add the room's own input, a
  *workshop participant* contribution that the next round's experts see with the frame, that the resolver
  weighs like an expert's output and that the report lists (and cites) under "Workshop contributions".

An answer is ``{"action": "continue"}`` or ``{"action": "edit", …fields}``; anything else is refused with a
message naming the problem (the run stays paused). Cancelling a paused run needs no answer: the run is
marked cancelled and can still be resumed later.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ifworld.errors import InputError
from ifworld.whatif.propositions import MAX_EXPERTS, normalize_experts
from ifworld.whatif.schemas import IndicatorSpec, Scenario, _Base

PARTICIPANT = "workshop participant"
PARTICIPANT_MAX_CHARS = 2_000
EDITABLE = ("premises", "constants", "key_uncertainties", "indicators")
ACTIONS = ("continue", "edit")
MAX_ITEMS = 12
MAX_ATTEMPTS = 5


class ReviewError(InputError):
    """The person's answer cannot be applied (the message says why)."""


class ReviewAsk(_Base):
    """What the ``review`` pause shows, typed for the form (the interrupt itself stays plain JSON)."""
    kind: str = "review"
    scenario: Scenario = Field(default_factory=Scenario)
    panel: list[str] = Field(default_factory=list)
    editable: list[str] = Field(default_factory=list)
    error: str = ""  # why the previous answer was not used


class BetweenRoundsAsk(_Base):
    """What the ``between_rounds`` pause shows: the frame the next round will see."""
    kind: str = "between_rounds"
    round: int = 0
    frame: str = ""
    error: str = ""


def parse_ask(ask: dict[str, Any]) -> ReviewAsk | BetweenRoundsAsk:
    """A pause's ask as its typed model (``review`` by its kind; anything else is a between-rounds pause)."""
    return (ReviewAsk if ask.get("kind") == "review" else BetweenRoundsAsk).model_validate(ask)


def review_ask(scenario: dict | None, panel: list[str]) -> dict[str, Any]:
    """What the ``review`` pause shows: the refined scenario's editable parts and the panel."""
    scen = Scenario.model_validate(scenario or {})
    return {"kind": "review", "scenario": scen.model_dump(mode="json"), "panel": list(panel),
            "editable": [*EDITABLE, "panel"]}


def between_rounds_ask(round_no: int, frame_text: str) -> dict[str, Any]:
    """What the ``between_rounds`` pause shows: the frame the next round will see."""
    return {"kind": "between_rounds", "round": round_no, "frame": frame_text}


def _action(answer: Any) -> str:
    if not isinstance(answer, dict):
        raise ReviewError(f"the answer must be a JSON object such as {{\"action\": \"continue\"}}, got "
                          f"{type(answer).__name__}")
    action = str(answer.get("action", "edit" if len(answer) else "continue"))
    if action not in ACTIONS:
        raise ReviewError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)} (cancel the run instead "
                          "of answering to stop it)")
    return action


def _lines(value: Any, field: str) -> list[str]:
    items = value.splitlines() if isinstance(value, str) else value
    if not isinstance(items, list):
        raise ReviewError(f"'{field}' must be a list of strings (or one per line)")
    out = [" ".join(str(i).split()) for i in items if str(i).strip()]
    if len(out) > MAX_ITEMS:
        raise ReviewError(f"'{field}' has {len(out)} entries; at most {MAX_ITEMS}")
    return out


def _indicators(value: Any) -> list[dict[str, str]]:
    """Indicators as dicts, or as lines ``name | unit | threshold``."""
    out = []
    for item in _lines(value, "indicators") if not isinstance(value, list) or not value or isinstance(
            value[0], str) else value:
        if isinstance(item, str):
            name, unit, threshold = ([*item.split("|"), "", ""])[:3]
            item = {"name": name.strip(), "unit": unit.strip(), "threshold": threshold.strip()}
        out.append(IndicatorSpec.model_validate(item).model_dump(mode="json"))
    return out


def apply_review(scenario: dict | None, panel: list[str], answer: Any) -> tuple[dict, list[str], list[str]]:
    """(scenario, panel, notes) after the person's answer at the ``review`` pause."""
    if _action(answer) == "continue":
        return dict(scenario or {}), list(panel), []
    edits = answer.get("scenario", answer)
    scen = dict(scenario or {})
    notes = []
    for field in EDITABLE:
        if field in edits:
            scen[field] = _indicators(edits[field]) if field == "indicators" else _lines(edits[field], field)
            notes.append(f"{field.replace('_', ' ')} edited by the user")
    new_panel = list(panel)
    if "panel" in answer:
        try:
            new_panel = normalize_experts(answer["panel"])
        except ValueError as exc:
            raise ReviewError(str(exc)) from exc
        if len(new_panel) > MAX_EXPERTS:
            raise ReviewError(f"at most {MAX_EXPERTS} experts")
        if new_panel != list(panel):
            notes.append(f"expert panel set by the user: {', '.join(new_panel)}")
    return Scenario.model_validate(scen).model_dump(mode="json"), new_panel, notes


def participant_contribution(round_no: int, answer: Any) -> dict[str, Any] | None:
    """The contribution given at the ``between_rounds`` pause after ``round_no`` (None when there is none)."""
    if _action(answer) == "continue" and not answer.get("contribution"):
        return None
    text = answer.get("contribution", "")
    if not isinstance(text, str):
        raise ReviewError("'contribution' must be text")
    text = " ".join(text.split())
    if len(text) > PARTICIPANT_MAX_CHARS:
        raise ReviewError(f"the contribution is {len(text):,} characters; at most {PARTICIPANT_MAX_CHARS:,}")
    if not text:
        return None
    name = " ".join(str(answer.get("name") or PARTICIPANT).split())[:60]
    return {"round": round_no + 1, "after_round": round_no, "name": name, "text": text}


def check_answer(ask: dict[str, Any], answer: Any) -> None:
    """Raise :class:`ReviewError` if ``answer`` cannot be applied to ``ask`` (pages and the CLI check
    before resuming, so the person sees the problem at once)."""
    if ask.get("kind") == "review":
        apply_review(ask.get("scenario"), ask.get("panel") or [], answer)
    else:
        participant_contribution(int(ask.get("round") or 0), answer)


def ask_until_valid(ask: dict[str, Any], apply: Any, interrupt: Any) -> Any:
    """Pause with ``ask`` until the answer applies (a bad answer is asked again, with the error)."""
    for _ in range(MAX_ATTEMPTS):
        try:
            return apply(interrupt(ask))
        except ReviewError as exc:
            ask = {**ask, "error": str(exc)}
    raise ReviewError(f"no usable answer after {MAX_ATTEMPTS} attempts")


def as_expert_output(contribution: dict[str, Any]) -> dict[str, Any]:
    """A contribution in the shape the resolver's digests read (it weighs it like an expert's output)."""
    return {"domain": contribution["name"], "verdict": contribution["text"]}
