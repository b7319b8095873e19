"""The deliberation view: detect → adjudicate → trace, one round at a time (What-if page, live and replay).

Per round it shows the shared frame as the paper defines it — consensus with confidence, conflicts by kind
with the experts on each side and the rule that adjudicated them, conditional branches with their
probability, the debate brief — what changed since the previous round (including each expert's own note on
how the frame changed their view) and the domain × domain causal integration heatmap of that round's edges.
It reads typed objects only (:mod:`ifworld.whatif.records`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ifworld.toolkit import redact
from ifworld.whatif import ADJUDICATION_RULES, Conflict, ExpertOutput, Frame, FrameDiff, confidence, domain_heatmap, pct
from ui.charts import inert_table, show_chart
from ui.common import inert

sst = inert()  # every text element here may carry model text: rendered inert

KIND_TITLES = {"hard": "🧱 Hard conflicts (incompatible mechanisms or numbers)",
               "soft": "🌿 Soft conflicts (different emphasis)",
               "granularity": "📏 Granularity conflicts (different scales or units)"}
CHANGE_LABELS = {"consensus_gained": "➕ Consensus gained", "conflicts_resolved": "✅ Conflicts resolved",
                 "conflicts_opened": "⚡ Conflicts opened", "branches_added": "🌱 Branches added",
                 "branches_dropped": "✂️ Branches dropped", "branches_reweighted": "⚖️ Branches re-weighted"}


def _table(rows: list[dict[str, str]]) -> None:
    """A table whose cells wrap: the whole text of every cell is shown at any width (a data grid cut long
    points, conditions and resolutions at a laptop's 1280 px); its Markdown cells hold model text made inert."""
    inert_table(pd.DataFrame([redact(r) for r in rows]), hide_index=True, border="horizontal")


def _conflict_rows(conflicts: list[Conflict]) -> list[dict[str, str]]:
    return [{
        "Conflict": c.topic,
        "Positions (experts)": " vs ".join(f"{s.position} ({', '.join(s.experts) or '?'})" for s in c.sides),
        "Rule applied": ADJUDICATION_RULES.get(c.rule, c.rule), "Treatment": c.treatment,
        "Resolution": c.resolution} for c in conflicts]


def render_changes(diff: FrameDiff | None) -> None:
    """What changed since the previous round, and each expert's note on how the frame changed their view."""
    if diff is None:
        return
    items = {k: getattr(diff, k) for k in CHANGE_LABELS}
    shown = {k: v for k, v in items.items() if v}
    if shown:
        cols = st.columns(len(shown))
        for col, (key, values) in zip(cols, shown.items(), strict=True):
            inert(col).markdown(f"**{CHANGE_LABELS[key]}** ({len(values)})")
            for value in values[:6]:
                inert(col).caption(f"• {value}")
    else:
        sst.caption("Nothing changed in the frame since the previous round.")
    if diff.expert_notes:
        sst.markdown("**How the frame changed each expert's view**")
        for domain, notes in diff.expert_notes.items():
            sst.markdown(f"- **{domain}**: " + "; ".join(notes))


def render_deliberation(frame: Frame, diff: FrameDiff | None, experts: dict[str, ExpertOutput] | None,
                        key: str) -> None:
    """One round's deliberation (see the module docstring)."""
    c1, c2 = st.columns([2, 3])
    with c1:
        sst.markdown("**Consensus**")
        if frame.consensus:
            _table([{"Point": c.point, "Confidence": confidence(c.confidence)} for c in frame.consensus])
        else:
            sst.caption("No consensus recorded (resolver off or failed).")
    with c2:
        sst.markdown("**Conditional branches**")
        if frame.branches:
            _table([{"Branch": f"{b.id} {b.name}".strip(), "If": b.condition, "Then": b.description,
                     "Probability": pct(b.probability_pct), "Domains": ", ".join(b.domains)} for b in frame.branches])
        else:
            sst.caption("No branches recorded.")
    for kind, title in KIND_TITLES.items():
        conflicts = [c for c in frame.conflicts if c.kind == kind]
        if conflicts:
            sst.markdown(f"**{title}**")
            _table(_conflict_rows(conflicts))
    if frame.debate_points or frame.debate_summary:
        sst.markdown("**Debate brief**")
        if frame.debate_points:
            _table([{"Issue": p.issue, "Crux (what would settle it)": p.crux} for p in frame.debate_points])
        if frame.debate_summary:
            sst.markdown(frame.debate_summary)
    if diff is not None and frame.round > 1:
        sst.markdown(f"**What changed since round {frame.round - 1}**")
    render_changes(diff)
    edges = [e for out in (experts or {}).values() for e in out.key_causal_edges]
    fig = domain_heatmap(edges)
    if fig is not None:
        sst.markdown("**Cross-domain causal integration (this round's expert edges)**")
        show_chart(fig, key=f"{key}_heat")
