"""What the room did, as Markdown: the refined scenario card, the review edits and the room's contributions.

One renderer for the page, the Markdown export and the HTML export (which renders this same Markdown), so
the three never disagree. Every value is escaped for Markdown tables and bullets (``report._cell``); the
page and the exports additionally make the text inert (no HTML, images or live links).
"""

from __future__ import annotations

from typing import Any

from ifworld.safe_text import typed_text
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.reading import reading_markdown
from ifworld.whatif.records import ReviewEdit, RoomEntry, WhatIfRecord, load_record
from ifworld.whatif.report import _bullets, _cell, _table
from ifworld.whatif.review import field_lines
from ifworld.whatif.schemas import Scenario

SCENARIO_FIELDS = (("premises", "Premises"), ("constants", "Constraints held constant"),
                   ("timescales", "Timescales"), ("key_uncertainties", "Key uncertainties"),
                   ("variants", "Variants"), ("indicators", "Indicators"), ("expert_plan", "Plan"))
NO_EDITS = "_The scenario was used as the refiner wrote it._"
NO_CONTRIBUTIONS = "_No contributions from the room._"


def scenario_markdown(scenario: Scenario | dict[str, Any] | None, *, heading: str = "## Refined scenario") -> str:
    """The refined scenario as a card: restated proposition, then each field as a short list."""
    scen = scenario if isinstance(scenario, Scenario) else Scenario.model_validate(scenario or {})
    data = scen.model_dump(mode="json")
    md = [heading, ""]
    if scen.restated:
        md += [f"**Restated.** {_cell(scen.restated)}", ""]
    for field, label in SCENARIO_FIELDS:
        lines = field_lines(field, data[field])
        md += [f"**{label}**", ""] + _bullets(lines)
    return "\n".join(md).rstrip() + "\n"


def review_markdown(edits: list[ReviewEdit], notes: list[str] | None = None) -> str:
    """The review edits as a field-level diff (before → after); older records list their notes."""
    md = ["## Review edits", ""]
    if edits:
        md += _table(["Field", "Before", "After"],
                     [[e.label or e.field, "; ".join(e.before) or "—", "; ".join(e.after) or "—"] for e in edits])
    elif notes:
        md += _bullets(notes)
    else:
        md += [NO_EDITS, ""]
    return "\n".join(md).rstrip() + "\n"


CONTRIBUTION_COLUMNS = ("Round", "Who", "Kind", "Contribution")


def contribution_rows(participants: list[RoomEntry]) -> list[dict[str, str]]:
    """The room's contributions as plain-text rows (exactly what was typed): the one source of the page's table
    and of the exports' (which escape each cell with :func:`~ifworld.safe_text.typed_text`)."""
    return [dict(zip(CONTRIBUTION_COLUMNS, (
        f"after round {p.after_round} → round {p.round}", p.author,
        p.kind + (f", {p.tag}" if p.tag else "") + (f", +{p.votes}" if p.votes else "")
        + (", edited by the facilitator" if p.edited else ""), p.text), strict=True)) for p in participants]


def contributions_markdown(participants: list[RoomEntry], legacy: list[str] | None = None) -> str:
    """The room's contributions, each with who said it, its kind and votes, and which round it went into; the
    participants' words are literal text, never Markdown."""
    md = ["## The room's contributions", ""]
    if participants:
        md += ["The experts, the resolver and the report writers received each one as the room's data.", ""]
        md += _table(list(CONTRIBUTION_COLUMNS),
                     [[typed_text(v) for v in row.values()] for row in contribution_rows(participants)])
    elif legacy:
        md += _bullets(legacy)
    else:
        md += [NO_CONTRIBUTIONS, ""]
    return "\n".join(md).rstrip() + "\n"


WRITTEN_BY = {"built-in": "built-in", "facilitator": "the facilitator", "generated": "written from its name"}


def panel_markdown(rec: WhatIfRecord) -> str:
    """The panel with the personas this run used (recorded in its params when it started, so a later change to
    an expert, or its deletion, never changes what a run shows); empty for records made before they were kept."""
    personas = rec.params.personas if rec.params is not None else None
    spec = METHOD_REGISTRY.get(rec.method) if rec.method in METHOD_REGISTRY else None
    if spec is None or "experts" not in spec.size_params or not isinstance(personas, dict) or not personas:
        return ""  # a method without an expert panel (the single, tree and debate baselines)
    panel = rec.panel or list((rec.params.experts if rec.params is not None else None) or [])
    rows = [[d, WRITTEN_BY.get(str(personas[d].get("by")), str(personas[d].get("by", ""))),
             personas[d].get("persona", "")] for d in panel if isinstance(personas.get(d), dict)]
    md = ["## Expert panel", "", "Each expert's persona as this run used it.", ""]
    md += _table(["Expert", "Persona by", "Persona"], rows)
    return "\n".join(md).rstrip() + "\n"


def session_markdown(record: WhatIfRecord | dict[str, Any], *, room: bool = True) -> str:
    """Scenario card, review edits, the room's contributions, the panel's personas and what each agent read
    (:func:`~ifworld.whatif.reading.reading_markdown`) of a run, in that order (``room=False``: without the
    contributions, which a page draws as a plain-text table)."""
    rec = load_record(record)
    parts = []
    if rec.scenario is not None:
        parts.append(scenario_markdown(rec.scenario))
    legacy_notes = rec.review_notes or (rec.report.review_notes if rec.report else [])
    parts.append(review_markdown(rec.review_edits, legacy_notes))
    if room:
        parts.append(contributions_markdown(rec.participants, rec.report.contributions if rec.report else []))
    if panel_markdown(rec):
        parts.append(panel_markdown(rec))
    reading = reading_markdown(rec.calls)
    if reading:
        parts.append(reading)
    return "\n".join(parts)
