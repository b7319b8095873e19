"""The workshop's record: the room against the panel after the report, and the section of the run's exports.

Part of :mod:`ifworld.whatif.workshop` (kept apart so each module stays readable end to end).
"""

from __future__ import annotations

from ifworld.runs import RunStore, get_store
from ifworld.safe_text import typed_text
from ifworld.whatif.workshop import load_workshop
from ifworld.whatif.workshop_models import NO_GROUND_TRUTH, BranchComparison, Workshop, WorkshopRecord


def panel_branches(report: dict | None) -> dict[str, float]:
    """The panel's final branch probabilities (%), by branch name, from the report's scenarios."""
    out: dict[str, float] = {}
    for s in (report or {}).get("scenarios") or []:
        if isinstance(s, dict) and s.get("name"):
            out[str(s["name"])] = float(s.get("probability_pct") or 0.0)
    return out


def compare_room(ws: Workshop, panel: dict[str, float]) -> list[BranchComparison]:
    """The room's mean probability per branch against the panel's, largest gap first. A room branch is matched
    to the panel's branch of the same name only (case and spacing ignored): a branch the panel did not name
    has no panel figure (shown as "—"), never a different branch's number taken by position."""
    names = list(dict.fromkeys(b for p in ws.predictions for b in p.probabilities))
    if not names:
        return []
    by_key = {" ".join(k.casefold().split()): v for k, v in panel.items()}
    rows = []
    for b in names:
        room = sum(p.probabilities.get(b, 0.0) for p in ws.predictions) / len(ws.predictions)
        matched = by_key.get(" ".join(b.casefold().split()))
        rows.append(BranchComparison(branch=b, room_pct=round(room, 1), panel_pct=matched))
    return sorted(rows, key=lambda r: -r.gap)


def workshop_record(run_id: str, *, store: RunStore | None = None, anonymise: bool = False) -> WorkshopRecord | None:
    """The workshop's record (None when the run has none); ``anonymise`` names participants P1, P2, …"""
    store = store or get_store()
    if store.workshop_row(run_id=run_id) is None:
        return None
    ws = load_workshop(run_id, store=store)
    info = store.get_run(run_id)
    comparison = compare_room(ws, panel_branches((info.record or {}).get("report")))
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
        lines += ["### The room against the panel", "", NO_GROUND_TRUTH, "", "| Branch | Room (mean %) | Panel (%) |",
                  "|---|---|---|"]
        lines += [f"| {_cell(c.branch)} | {c.room_pct:g} | "
                  f"{'—' if c.panel_pct is None else f'{c.panel_pct:g}'} |" for c in rec.comparison]
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
