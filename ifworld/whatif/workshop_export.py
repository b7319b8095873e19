"""The workshop's record: the room against the panel after the report, and the section of the run's exports.

Part of :mod:`ifworld.whatif.workshop` (kept apart so each module stays readable end to end).
"""

from __future__ import annotations

from ifworld.runs import RunStore, get_store
from ifworld.safe_text import typed_text
from ifworld.whatif.schemas import Scenario
from ifworld.whatif.workshop import load_workshop
from ifworld.whatif.workshop_models import (
    NO_GROUND_TRUTH,
    BranchComparison,
    Workshop,
    WorkshopRecord,
    variant_labels,
)

OWN_BRANCH = "the panel's own branch"
NO_VALUE = "—"


def panel_branches(report: dict | None) -> dict[str, float]:
    """The panel's probability (%) per variant id, from the report's ``variant_probabilities``."""
    out: dict[str, float] = {}
    for v in (report or {}).get("variant_probabilities") or []:
        if isinstance(v, dict) and v.get("variant_id"):
            out.setdefault(str(v["variant_id"]).strip().upper(), float(v.get("probability_pct") or 0.0))
    return out


def _key(text: str) -> str:
    return " ".join(str(text).casefold().split())


def compare_room(ws: Workshop, report: dict | None, scenario: Scenario | dict | None) -> list[BranchComparison]:
    """The room's mean probability per variant against the panel's, joined on the variant ids fixed at the review
    (a prediction names a variant by the label it was shown; the report gives the panel's figure by id), largest
    gap first; then the branches the panel added of its own (no room figure). A figure nobody gave is None."""
    labels = variant_labels(scenario)
    panel = panel_branches(report)
    n = len(ws.predictions)
    keyed = [*labels.values(), *(b for p in ws.predictions for b in p.probabilities if b not in labels.values())]
    ids = {label: vid for vid, label in labels.items()}
    rows = []
    for label in dict.fromkeys(keyed):
        vid = ids.get(label, "")
        room = sum(p.probabilities.get(label, p.probabilities.get(vid, 0.0)) for p in ws.predictions) / n if n else None
        rows.append(BranchComparison(branch=label, variant_id=vid, room_pct=None if room is None else round(room, 1),
                                     panel_pct=panel.get(vid) if vid else None))
    if not any(r.room_pct is not None or r.panel_pct is not None for r in rows):
        rows = []
    rows.sort(key=lambda r: (r.gap is None, -(r.gap or 0.0)))
    named = {_key(label) for label in labels.values()}
    for s in (report or {}).get("scenarios") or []:
        if isinstance(s, dict) and s.get("name") and _key(s["name"]) not in named:
            rows.append(BranchComparison(branch=str(s["name"]), panel_pct=float(s.get("probability_pct") or 0.0),
                                         own=True))
    return rows


def cell(value: float | None) -> str:
    """A reveal figure as shown: the number, or "—" when nobody gave one (never "None")."""
    return NO_VALUE if value is None else f"{value:g}"


def reveal_table(rows: list[BranchComparison], room: str = "Room (mean %)") -> list[dict[str, str]]:
    """The reveal's rows as the table shows them (projector, phone, export): every cell text, "—" for none."""
    return [{"Id": r.variant_id or NO_VALUE, "Branch": r.branch + (f" ({OWN_BRANCH})" if r.own else ""),
             room: cell(r.room_pct), "Panel (%)": cell(r.panel_pct),
             "Gap (points)": cell(None if r.gap is None else round(r.gap, 1))} for r in rows]


def workshop_record(run_id: str, *, store: RunStore | None = None, anonymise: bool = False) -> WorkshopRecord | None:
    """The workshop's record (None when the run has none); ``anonymise`` names participants P1, P2, …"""
    store = store or get_store()
    if store.workshop_row(run_id=run_id) is None:
        return None
    ws = load_workshop(run_id, store=store)
    info = store.get_run(run_id)
    record = info.record or {}
    comparison = compare_room(ws, record.get("report"), record.get("scenario"))
    people, contributions = ws.participants, ws.contributions
    if anonymise:
        alias = {p.id: f"P{i}" for i, p in enumerate(ws.participants, start=1)}
        people = [p.model_copy(update={"name": alias[p.id]}) for p in people]
        contributions = [c.model_copy(update={"name": alias.get(c.participant_id, "P?")}) for c in contributions]
    return WorkshopRecord(code=ws.code, status=ws.status, revealed=ws.revealed, anonymised=anonymise,
                          participants=people, predictions=ws.predictions, contributions=contributions,
                          votes=ws.votes, comparison=comparison)


def workshop_markdown(rec: WorkshopRecord) -> str:
    """The workshop section of the Markdown export: participants' names and words as literal text
    (:func:`~ifworld.safe_text.typed_text`), so a viewer shows exactly what was typed."""
    names = {p.id: p.name for p in rec.participants}
    lines = ["## Workshop", "", f"{len(rec.participants)} participant(s), {len(rec.predictions)} prediction(s), "
             f"{len(rec.contributions)} contribution(s), {len(rec.votes)} vote(s); workshop {rec.status}"
             + (" (names anonymised)" if rec.anonymised else "") + ".", ""]
    if rec.predictions:
        lines += ["### Pre-registered predictions", "", "| Participant | Most likely | Probabilities (%) |",
                  "|---|---|---|"]
        lines += [f"| {_cell(typed_text(names.get(p.participant_id, '?')))} | {_cell(p.likely)} | "
                  + _cell(", ".join(f"{b}: {v:g}" for b, v in p.probabilities.items())) + " |"
                  for p in rec.predictions]
        lines.append("")
    if rec.comparison:
        table = reveal_table(rec.comparison)
        lines += ["### The room against the panel", "", NO_GROUND_TRUTH, "", "| " + " | ".join(table[0]) + " |",
                  "|" + "---|" * len(table[0])]
        lines += ["| " + " | ".join(_cell(v) for v in row.values()) + " |" for row in table]
        lines.append("")
    if rec.contributions:
        lines += ["### Contributions", "", "| After round | Who | Kind | Text | Votes | Decision |",
                  "|---|---|---|---|---|---|"]
        for c in sorted(rec.contributions, key=lambda c: (c.after_round, -c.votes, c.at)):
            decision: str = c.decision.decision if c.decision else "undecided"
            if c.decision and c.decision.merged_into:
                decision = f"merged into {c.decision.merged_into}"
            if c.hidden:
                decision += " (hidden)"
            if c.sent_round:
                decision += f"; in round {c.sent_round}'s frame"
            lines.append(f"| {c.after_round} | {_cell(typed_text(c.name))} | {c.kind}"
                         f"{_cell(', ' + typed_text(c.tag)) if c.tag else ''} | "
                         f"{_cell(typed_text(c.final_text))} | {c.votes} | {decision} |")
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
