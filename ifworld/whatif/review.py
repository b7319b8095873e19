"""Human in the loop: what a paused run asks, and how a person's answer is checked and applied.

Two pauses (LangGraph ``interrupt`` — the run's state waits in the SQLite checkpoint, so a pause survives
closing the browser or the CLI):

- ``review`` after the refiner, before any expert runs: the person may edit every part of the refined
  scenario (premises, constraints held constant, timescales, key uncertainties, variants, indicators, plan)
  and the expert panel; what changed is recorded field by field (before → after), nothing else;
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
from ifworld.whatif.room import (
    FACILITATOR_AUTHOR,
    MAX_AUTHOR_CHARS,
    MAX_ROOM_TEXT_CHARS,
    RoomContribution,
    parse_room,
)
from ifworld.whatif.schemas import IndicatorSpec, Scenario, Variant, _Base

EDITABLE = ("premises", "constants", "timescales", "key_uncertainties", "variants", "indicators", "expert_plan")
FIELD_LABELS = {"premises": "Premises", "constants": "Constraints held constant", "timescales": "Timescales",
                "key_uncertainties": "Key uncertainties", "variants": "Variants", "indicators": "Indicators",
                "expert_plan": "Plan (domains to involve)", "panel": "Expert panel"}
HORIZONS = ("short", "medium", "long")
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
    suggested_experts: list[str] = Field(default_factory=list)  # the refiner's plan beyond the panel: offered only
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


def _piped(value: Any, field: str, keys: tuple[str, ...]) -> list[dict[str, str]]:
    """Items given as dicts, or as lines ``a | b | c`` read into ``keys`` in order."""
    items = value if isinstance(value, list) and value and not isinstance(value[0], str) else _lines(value, field)
    out = []
    for item in items:
        if isinstance(item, str):
            parts = [p.strip() for p in item.split("|")] + [""] * len(keys)
            item = dict(zip(keys, parts, strict=False))
        if not isinstance(item, dict):
            raise ReviewError(f"'{field}' entries must be objects or lines like '{' | '.join(keys)}'")
        out.append(item)
    return out


def _timescales(value: Any) -> dict[str, str]:
    """Timescales as ``{short, medium, long}`` or lines ``short: …``."""
    if isinstance(value, dict):
        return {h: " ".join(str(value.get(h) or "").split()) for h in HORIZONS}
    out = dict.fromkeys(HORIZONS, "")
    for line in _lines(value, "timescales"):
        horizon, _, text = line.partition(":")
        if horizon.strip().lower() not in HORIZONS:
            raise ReviewError(f"timescales: start each line with short:, medium: or long: (got {line[:40]!r})")
        out[horizon.strip().lower()] = text.strip()
    return out


def _field_value(field: str, value: Any) -> Any:
    """A person's edit of one scenario field, checked and in the scenario's own shape."""
    if field == "indicators":
        return [IndicatorSpec.model_validate(i).model_dump(mode="json")
                for i in _piped(value, field, ("name", "unit", "threshold"))]
    if field == "variants":
        return [Variant.model_validate(v).model_dump(mode="json")
                for v in _piped(value, field, ("name", "description"))]
    if field == "timescales":
        return _timescales(value)
    return _lines(value, field)


def field_lines(field: str, value: Any) -> list[str]:
    """A scenario field as the lines a person reads and edits (the review form and the change record)."""
    if field == "timescales":
        value = value or {}
        return [f"{h}: {value.get(h, '')}" for h in HORIZONS if value.get(h)]
    if field == "indicators":
        return [" | ".join(str(i.get(k, "")) for k in ("name", "unit", "threshold")).rstrip(" |")
                for i in value or []]
    if field == "variants":
        return [f"{v.get('name', '')} | {v.get('description', '')}" for v in value or []]
    return [str(v) for v in value or []]


def apply_review(scenario: dict | None, panel: list[str], answer: Any) -> tuple[dict, list[str], list[dict]]:
    """(scenario, panel, edits) after the person's answer at the ``review`` pause. ``edits`` lists only the
    fields whose value really changed, each as ``{field, label, before, after}`` (lines of text)."""
    if _action(answer) == "continue":
        return dict(scenario or {}), list(panel), []
    edits_in = answer.get("scenario", answer)
    before = Scenario.model_validate(scenario or {}).model_dump(mode="json")
    scen = dict(before)
    for field in EDITABLE:
        if field in edits_in:
            scen[field] = _field_value(field, edits_in[field])
    _keep_variant_ids(before["variants"], scen["variants"])
    after = Scenario.model_validate(scen).model_dump(mode="json")
    edits = [{"field": f, "label": FIELD_LABELS[f], "before": field_lines(f, before[f]),
              "after": field_lines(f, after[f])} for f in EDITABLE if before[f] != after[f]]
    new_panel = list(panel)
    if "panel" in answer:
        try:
            new_panel = normalize_experts(answer["panel"])
        except ValueError as exc:
            raise ReviewError(str(exc)) from exc
        if len(new_panel) > MAX_EXPERTS:
            raise ReviewError(f"at most {MAX_EXPERTS} experts")
        if new_panel != list(panel):
            edits.append({"field": "panel", "label": FIELD_LABELS["panel"], "before": list(panel),
                          "after": new_panel})
    return after, new_panel, edits


def _keep_variant_ids(before: list[dict], after: list[dict]) -> None:
    """An edited variant list keeps the ids of the variants it still names (the form edits names, not ids)."""
    ids = {" ".join(str(v.get("name", "")).casefold().split()): v.get("id", "") for v in before}
    for v in after:
        v["id"] = v.get("id") or ids.get(" ".join(str(v.get("name", "")).casefold().split()), "")


def edit_notes(edits: list[dict]) -> list[str]:
    """One line per changed field, for the report writers and older readers of ``review_notes``."""
    notes = []
    for e in edits:
        removed = [x for x in e["before"] if x not in e["after"]]
        added = [x for x in e["after"] if x not in e["before"]]
        parts = ([f"added {'; '.join(added)}"] if added else []) + ([f"removed {'; '.join(removed)}"] if removed
                                                                    else [])
        notes.append(f"{e['label']} changed by the user: {', '.join(parts) or 'reordered'}")
    return notes


def participant_contribution(round_no: int, answer: Any) -> dict[str, Any] | None:
    """The facilitator's own contribution typed at the ``between_rounds`` pause after ``round_no`` (None when
    there is none), as a :class:`~ifworld.whatif.room.RoomContribution` the next round receives."""
    if _action(answer) == "continue" and not answer.get("contribution"):
        return None
    text = answer.get("contribution", "")
    if not isinstance(text, str):
        raise ReviewError("'contribution' must be text")
    text = " ".join(text.split())
    if len(text) > MAX_ROOM_TEXT_CHARS:
        raise ReviewError(f"the contribution is {len(text):,} characters; at most {MAX_ROOM_TEXT_CHARS:,}")
    if not text:
        return None
    author = " ".join(str(answer.get("name") or FACILITATOR_AUTHOR).split())[:MAX_AUTHOR_CHARS]
    item = RoomContribution(author=author, text=text, after_round=round_no)
    return {**item.model_dump(), "round": item.round}


def participant_contributions(round_no: int, answer: Any) -> list[dict[str, Any]]:
    """Every contribution given at the ``between_rounds`` pause after ``round_no``: the facilitator's own
    (``contribution``) and a workshop's accepted ones (``contributions``: typed
    :class:`~ifworld.whatif.room.RoomContribution` objects), all checked before the run takes any."""
    single = participant_contribution(round_no, {k: v for k, v in answer.items() if k != "contributions"}
                                      if isinstance(answer, dict) else answer)
    try:
        items = parse_room(answer.get("contributions") or [], round_no)
    except InputError as exc:
        raise ReviewError(str(exc)) from None
    return ([single] if single else []) + [{**c.model_dump(), "round": c.round} for c in items]


def check_answer(ask: dict[str, Any], answer: Any) -> None:
    """Raise :class:`ReviewError` if ``answer`` cannot be applied to ``ask`` (pages and the CLI check
    before resuming, so the person sees the problem at once)."""
    if ask.get("kind") == "review":
        apply_review(ask.get("scenario"), ask.get("panel") or [], answer)
    else:
        participant_contributions(int(ask.get("round") or 0), answer)


def ask_until_valid(ask: dict[str, Any], apply: Any, interrupt: Any) -> Any:
    """Pause with ``ask`` until the answer applies (a bad answer is asked again, with the error)."""
    for _ in range(MAX_ATTEMPTS):
        try:
            return apply(interrupt(ask))
        except ReviewError as exc:
            ask = {**ask, "error": str(exc)}
    raise ReviewError(f"no usable answer after {MAX_ATTEMPTS} attempts")
