"""Pure helpers for looking at saved run records side by side (the record-based replay is in
:mod:`ifworld.whatif.steps`).

Used by the Runs page (compare two what-if runs, e.g. IF-World vs debate on one proposition). No streamlit.
Every function takes a typed :class:`~ifworld.whatif.records.WhatIfRecord`; a stored dict is validated on the
way in (:func:`~ifworld.whatif.records.load_record`). A missing section is skipped, never an error; a
malformed record raises :class:`~ifworld.whatif.records.RecordError` naming the field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import plotly.graph_objects as go

from ifworld.figstyle import styled, wrap_label
from ifworld.runs.steps import changed_keys as _changed_keys
from ifworld.safe_text import demote_headings
from ifworld.whatif.budget import unbudgeted_status
from ifworld.whatif.frame import clip
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.numbers import pct
from ifworld.whatif.records import JudgeResult, WhatIfRecord, load_record
from ifworld.whatif.rubric import JUDGE_LABELS, JUDGE_MAXIMA

RecordLike = WhatIfRecord | dict[str, Any] | None

SECTION_HEADING_FLOOR = 5
"""Sections are shown under level-4 titles; a model's own headings in them start one level lower."""
RUN_LABEL_CHARS = 24
"""A compared run's proposition is clipped to this in its label: the label names trace legends and table columns."""
USAGE_KEYS = ("calls", "prompt_tokens", "completion_tokens", "retries", "failures", "latency_s")


def judge_scores(record: RecordLike) -> dict[str, float] | None:
    """The five judge dimensions plus ``overall`` from a record's ``judge`` (None when not judged)."""
    judge = JudgeResult.of(load_record(record).judge)
    if judge is None:
        return None
    out = {k: getattr(judge, k) for k in (*JUDGE_MAXIMA, "overall") if getattr(judge, k) is not None}
    return out or None


def run_label(side: str, record: RecordLike, method: str, started: float, *, short: bool = False) -> str:
    """How the comparison names a run: its side, proposition (clipped), method and start time in the server's
    local time ("A: What if the Moon vanish… · ifworld · 28 Nov 14:05"); two runs of one method on one
    proposition differ by their time, and always by their side. ``short``: a chart's legend in a half-width
    column ("A · ifworld · 14:05"; the whole label would be cut at the chart's edge), the caption above it
    giving the whole one."""
    when = datetime.fromtimestamp(started)
    if short:
        return f"{side} · {method} · {when:%H:%M}"
    return (f"{side}: {clip(load_record(record).proposition, RUN_LABEL_CHARS) or 'untitled'} · {method} · "
            f"{when.day} {when:%b %H:%M}")


def tokens_text(record: RecordLike, fallback: dict[str, Any] | None = None) -> str:
    """A run's tokens in words, for beside its scores: "9,594 tokens", plus its budget when it had one
    ("· matched: ×0.96 of 10,000" / "· below budget: ×0.40 of 70,000")."""
    rec = load_record(record)
    usage = usage_of(rec, fallback)
    tokens = int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    if rec.budget is not None and rec.budget.tokens:
        tokens = rec.budget.tokens  # the run's own calls (a judge call logged with the run is not counted)
    text = f"{tokens:,} tokens"
    budget = rec.budget
    if budget is not None and budget.target and budget.ratio is not None:
        word = {"matched": "matched", "below": "below budget", "above": "above budget"}.get(budget.status, "budget")
        text += f" · {word}: ×{budget.ratio:.2f} of {budget.target:,.0f}"
    elif rec.method in METHOD_REGISTRY and unbudgeted_status(rec.method) == "unmatched":
        text += " · fixed size, budget unmatched"
    return text


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def judge_radar(scored: dict[str, dict[str, float]]) -> go.Figure:
    """Radar of judge dimensions as % of each dimension's maximum, one trace per run label."""
    fig = go.Figure()
    theta = [wrap_label(JUDGE_LABELS[k], 11) for k in JUDGE_MAXIMA]
    for label, scores in scored.items():
        r = [100 * scores.get(k, 0) / m for k, m in JUDGE_MAXIMA.items()]
        fig.add_trace(go.Scatterpolar(r=r + r[:1], theta=theta + theta[:1], fill="toself", name=label))
    fig.update_layout(polar=dict(radialaxis=dict(range=[0, 100], ticksuffix=" %", angle=90, tickangle=90,
                                                 tickvals=[25, 50, 75])),  # 100 % would sit on a spoke's label
                      height=440, margin=dict(l=120, r=120, t=70, b=50),  # polar labels do not push margins
                      legend=dict(orientation="h", x=0, y=0, yanchor="top"))
    return styled(fig)


def judge_bars(scored: dict[str, dict[str, float]]) -> go.Figure:
    """Grouped bars of raw judge points per dimension (and overall /100)."""
    keys = [*JUDGE_MAXIMA, "overall"]
    labels = [f"{JUDGE_LABELS.get(k, 'Overall')} (/{JUDGE_MAXIMA.get(k, 100)})" for k in keys]
    fig = go.Figure([go.Bar(name=label, y=labels, x=[s.get(k, 0) for k in keys], orientation="h")
                     for label, s in scored.items()])
    fig.update_layout(barmode="group", height=440, xaxis_title="judge points", yaxis=dict(autorange="reversed"),
                      legend=dict(orientation="h", x=0, y=1, yanchor="bottom"))
    return styled(fig)


def usage_of(record: RecordLike, fallback: dict[str, Any] | None = None) -> dict[str, Any]:
    """Usage counters of a record (its ``usage``, else the store's totals, else counted from ``calls``)."""
    rec = load_record(record)
    usage = dict(fallback or {})
    usage.update({k: v for k, v in rec.usage.items() if v is not None})
    if "calls" not in usage and "calls" in rec.model_fields_set:
        usage["calls"] = len(rec.calls)
    if isinstance(usage.get("calls"), list):
        usage["calls"] = len(usage["calls"])
    return usage


def usage_table(runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows ``{metric, <label>: value, …}`` comparing usage counters of several runs."""
    keys = [k for k in USAGE_KEYS if any(k in u for u in runs.values())]
    keys += sorted({k for u in runs.values() for k in u if k not in keys and _is_number(u.get(k))})
    return [{"metric": k, **{label: usage.get(k) for label, usage in runs.items()}} for k in keys]


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {text}" for text in items if text)


def report_sections(record: RecordLike) -> dict[str, str]:
    """The report as ordered ``{section title: markdown}`` for side-by-side reading (empty ones left out);
    a baseline's natural output is one "Answer" section. Headings a model wrote into a section are demoted
    below the section's own title (:data:`SECTION_HEADING_FLOOR`)."""
    report = load_record(record).report
    if report is None:
        return {}
    if report.natural:
        return {"Answer": demote_headings(report.markdown, SECTION_HEADING_FLOOR)}
    names = {s.id.lower(): f"{s.id} {s.name}" for s in report.scenarios}
    verdict = report.executive_verdict
    sections = {
        "Summary": _bullets(report.summary_bullets),
        "Executive verdict": "\n\n".join(f"**{label}:** {text}" for label, text in (
            ("Verdict", verdict.verdict), ("Feasibility", verdict.feasibility),
            ("Minimal change", verdict.minimal_change)) if text),
        "Core conclusions": _bullets(report.core_conclusions),
        "Uncertainty": _bullets(report.uncertainty_analysis),
        "Scenarios": _bullets([f"**{s.id} {s.name}** — {pct(s.probability_pct)}" for s in report.scenarios]),
        "Decision rules": _bullets([f"{d.indicator} {d.threshold} → {names.get(d.branch_id.lower(), d.branch_id)}"
                                    for d in report.decision_table]),
        "Timeline": _bullets([f"*{t.horizon}* {t.event}" for t in report.timeline]),
        "Residual disagreements": _bullets(report.consistency_checks.residual_disagreements),
    }
    return {k: demote_headings(v, SECTION_HEADING_FLOOR) for k, v in sections.items() if v and v.strip()}


def changed_keys(previous: dict[str, Any] | None, current: dict[str, Any]) -> list[str]:
    """State keys whose value differs from the previous replay step (what this step wrote)."""
    return _changed_keys(previous, current)
