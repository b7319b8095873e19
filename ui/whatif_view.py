"""Renderers for what-if run records, rounds, frames and reports (shared by the What-if and Runs pages).

Everything reads records defensively: a missing or oddly shaped section is skipped, never an error.
Figure builders are pure (plotly only) so they can be tested without a browser.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from ifworld.compare import JUDGE_LABELS, JUDGE_MAXIMA, judge_scores, report_sections, usage_of
from ifworld.safe_text import inert_markdown
from ifworld.whatif import causal
from ui.common import safe_md, show_error

CI_LEVELS = (("ci95", "95% CI", "#bbdefb"), ("ci80", "80% CI", "#64b5f6"), ("ci50", "50% CI", "#1565c0"))
DIFF_LABELS = {"consensus_gained": "➕ Consensus gained", "conflicts_resolved": "✅ Conflicts resolved",
               "branches_added": "🌿 Branches added", "branches_dropped": "✂️ Branches dropped"}


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _interval(value: Any) -> tuple[float, float] | None:
    try:
        low, high = float(value[0]), float(value[-1])
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return (min(low, high), max(low, high))


# -- pure figures -------------------------------------------------------------------------------------
def calibration_figure(ranges: list[dict[str, Any]]) -> go.Figure | None:
    """50/80/95 % interval bars per quantity (one row each, its own unit and x axis)."""
    rows = [r for r in _l(ranges)
            if isinstance(r, dict) and any(_interval(r.get(k)) for k, _, _ in CI_LEVELS)]
    if not rows:
        return None
    fig = make_subplots(rows=len(rows), cols=1, vertical_spacing=min(0.12, 0.5 / len(rows)),
                        subplot_titles=[f"{r.get('quantity', '?')} ({r.get('unit', '')})".replace(" ()", "")
                                        for r in rows])
    for i, row in enumerate(rows, start=1):
        for key, label, colour in CI_LEVELS:
            iv = _interval(row.get(key))
            if iv:
                fig.add_trace(go.Bar(x=[iv[1] - iv[0] or 1e-9], base=[iv[0]], y=[label], orientation="h",
                                     marker_color=colour, name=label, showlegend=i == 1, legendgroup=label,
                                     hovertemplate=f"{label}: {iv[0]:g} – {iv[1]:g} {row.get('unit', '')}"
                                                   "<extra></extra>"), row=i, col=1)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=[lab for _, lab, _ in CI_LEVELS])
    fig.update_layout(height=110 + 120 * len(rows), barmode="overlay", margin=dict(l=10, r=10, t=40, b=10))
    return fig


def scenario_figure(scenarios: list[dict[str, Any]]) -> go.Figure | None:
    """Probability per scenario branch (percent)."""
    rows = [s for s in _l(scenarios) if isinstance(s, dict) and s.get("name")]
    if not rows:
        return None
    probs = [float(s.get("probability_pct", s.get("probability", 0)) or 0) for s in rows]
    probs = [p * 100 if all(q <= 1 for q in probs) and sum(probs) <= 1.01 else p for p in probs]
    fig = go.Figure(go.Bar(x=probs, y=[s["name"] for s in rows], orientation="h",
                           text=[f"{p:.0f} %" for p in probs], marker_color="#6a1b9a"))
    fig.update_layout(height=80 + 45 * len(rows), xaxis=dict(range=[0, 100], ticksuffix="%"),
                      yaxis=dict(autorange="reversed"), margin=dict(l=10, r=10, t=10, b=10))
    return fig


# -- small pieces -------------------------------------------------------------------------------------
def render_usage(usage: dict[str, Any]) -> None:
    """Calls, tokens, retries, failures as metrics."""
    cols = st.columns(5)
    cols[0].metric("Model calls", usage.get("calls", 0))
    cols[1].metric("Prompt tokens", usage.get("prompt_tokens", 0))
    cols[2].metric("Completion tokens", usage.get("completion_tokens", 0))
    cols[3].metric("Retries", usage.get("retries", 0))
    cols[4].metric("Failures", usage.get("failures", usage.get("failed", 0)))


def key_numbers(output: dict[str, Any]) -> list[str]:
    numbers = [f"{r.get('quantity')}: {r.get('low')}–{r.get('high')} {r.get('unit', '')}".strip()
               for c in _l(output.get("conclusions")) for r in _l(_d(c).get("ranges")) if isinstance(r, dict)]
    numbers += [f"{s.get('name')}: {s.get('probability_pct')} %" for s in _l(output.get("scenarios"))
                if isinstance(s, dict) and s.get("name")]
    return numbers[:6]


def render_expert(domain: str, output: dict[str, Any]) -> None:
    """One expert's card: verdict, key numbers, minimal change; details in an expander."""
    output = _d(output)
    safe_md(f"**{domain}** — {output.get('verdict') or '_no verdict_'}")
    numbers = key_numbers(output)
    if numbers:
        safe_md(" · ".join(numbers), st.caption)
    for c in _l(output.get("conclusions"))[:3]:
        if _d(c).get("statement"):
            safe_md(f"- {c['statement']}")
    if output.get("minimal_change"):
        safe_md(f"Minimal change: {output['minimal_change']}", st.caption)
    with st.expander("Details", expanded=False):
        steps = [s for s in _l(output.get("reasoning_steps")) if isinstance(s, dict)]
        if steps:
            st.dataframe(pd.DataFrame(steps), hide_index=True, width="stretch")
        st.json(output, expanded=False)


def render_frame(frame: dict[str, Any] | None, diff: dict[str, Any] | None = None) -> None:
    """The shared frame text and what changed since the previous round."""
    frame, diff = _d(frame), _d(diff)
    if not frame and not diff:
        return
    cols = st.columns(len(DIFF_LABELS))
    for col, (key, label) in zip(cols, DIFF_LABELS.items(), strict=True):
        items = _l(diff.get(key))
        col.markdown(f"**{label}** ({len(items)})")
        for item in items[:6]:
            safe_md(f"• {item}", col.caption)
    if frame.get("text"):
        st.text(frame["text"])


def render_round(rnd: dict[str, Any], diff: dict[str, Any] | None = None) -> None:
    """A round: expert cards in tabs (failed ones flagged), then debate and shared frame."""
    rnd = _d(rnd)
    experts, failed = _d(rnd.get("experts")), _d(rnd.get("failed"))
    names = list(experts) + [d for d in failed if d not in experts]
    if names:
        labels = [inert_markdown(f"❌ {n}" if n in failed and n not in experts else n) for n in names]
        for tab, name in zip(st.tabs(labels), names, strict=True):
            with tab:
                if name in experts:
                    render_expert(name, experts[name])
                else:
                    show_error(f"{name} failed: {failed[name]}")
    debate = _d(rnd.get("debate"))
    if debate:
        st.markdown("**Debate**")
        pro_col, con_col = st.columns(2)
        for col, side, icon in ((pro_col, "pro", "🟢"), (con_col, "con", "🔴")):
            text = debate.get(side)
            safe_md(f"{icon} {side.capitalize()}: {text if isinstance(text, str) and text else '—'}", col.markdown)
        brief = debate.get("brief")
        points = [p for p in _l(_d(brief).get("points")) if isinstance(p, dict)]
        if points:
            st.dataframe(pd.DataFrame(points), hide_index=True, width="stretch")
        summary = _d(brief).get("summary") if isinstance(brief, dict) else brief
        if summary:
            safe_md(str(summary), st.caption)
    if rnd.get("frame") or diff:
        st.markdown("**Shared frame**")
        render_frame(rnd.get("frame"), diff)


def _table(rows: Any, caption: str | None = None) -> None:
    rows = [r for r in _l(rows) if isinstance(r, dict)]
    if rows:
        if caption:
            st.markdown(f"**{caption}**")
        frame = pd.DataFrame(rows)
        for col in frame.columns:
            if frame[col].map(lambda v: isinstance(v, list | dict)).any():
                frame[col] = frame[col].map(lambda v: json.dumps(v) if isinstance(v, dict) else
                                            ", ".join(map(str, v)) if isinstance(v, list) else v)
        st.dataframe(frame, hide_index=True, width="stretch")


def render_report(record: dict[str, Any], key: str) -> None:
    """The final report: sections, calibration chart, scenarios, decision table, timeline, causal map."""
    report = _d(record.get("report"))
    if not report:
        st.info("This run has no report (it may have stopped early).")
        return
    for title, text in report_sections(record).items():
        if title in ("Scenarios", "Decision rules", "Timeline"):
            continue
        safe_md(f"#### {title}")
        safe_md(text)
    fig = calibration_figure(report.get("calibration_ranges") or report.get("calibration"))
    if fig:
        st.markdown("#### Calibration ranges")
        st.plotly_chart(fig, key=f"{key}_calib", width="stretch")
    _table(report.get("decision_table"), "Decision table")
    fig = scenario_figure(report.get("scenarios"))
    if fig:
        st.markdown("#### Scenario probabilities")
        st.plotly_chart(fig, key=f"{key}_scen", width="stretch")
        _table(report.get("scenarios"))
    _table(report.get("timeline"), "Timeline")
    _table(report.get("feasibility_table"), "Feasibility")
    graph = causal.build_causal_graph(record)
    if graph.number_of_edges():
        st.markdown("#### Causal map")
        st.plotly_chart(causal.causal_figure(graph, highlight_cycles=True), key=f"{key}_causal",
                        width="stretch")
        st.caption("Open it on the Causal map page to filter by domain and list feedback loops.")
    with st.expander("Assumptions, claims and trace"):
        _table(report.get("assumptions"), "Assumptions")
        _table(report.get("claims"), "Claims")
        _table(report.get("trace_table"), "Trace")
    if report.get("markdown"):
        with st.expander("Report as Markdown"):
            safe_md(report["markdown"])


def render_judge(record: dict[str, Any]) -> None:
    scores = judge_scores(record)
    if not scores:
        return
    st.markdown(f"#### Judge: {scores.get('overall', '?'):g} / 100")
    cols = st.columns(len(JUDGE_MAXIMA))
    for col, (k, m) in zip(cols, JUDGE_MAXIMA.items(), strict=True):
        col.metric(JUDGE_LABELS[k], f"{scores.get(k, 0):g} / {m}")
    rationale = _d(record.get("judge")).get("rationale")
    if rationale:
        safe_md(rationale, st.caption)


def render_whatif_record(record: dict[str, Any], key: str, usage: dict[str, Any] | None = None) -> None:
    """A whole what-if record: proposition, usage, rounds (with frame diffs), report and judge."""
    record = _d(record)
    safe_md(f"### {record.get('proposition') or 'What-if run'}")
    st.caption(f"Method: {record.get('method', '?')}" + (" · degraded run" if record.get("degraded") else ""))
    render_usage(usage_of(record, usage))
    if record.get("scenario"):
        with st.expander("Refined scenario"):
            st.json(record["scenario"], expanded=False)
    rounds = [r for r in _l(record.get("rounds")) if isinstance(r, dict)]
    diffs = {(_d(d).get("round") or i + 1): d for i, d in enumerate(_l(record.get("frame_diffs")))}
    if rounds:
        with st.expander(f"Rounds ({len(rounds)})", expanded=False):
            for i, rnd in enumerate(rounds):
                number = rnd.get("round", i + 1)
                st.markdown(f"##### Round {number}")
                render_round(rnd, diffs.get(number))
    render_report(record, key)
    render_judge(record)


def _judge_fn() -> Any:
    for module in ("ifworld.whatif", "ifworld.whatif.judge", "ifworld.whatif.eval"):
        try:
            fn = getattr(__import__(module, fromlist=["judge_record"]), "judge_record", None)
        except ImportError:
            fn = None
        if fn:
            return fn
    return None


def judge_button(run_id: str, record: dict[str, Any], key: str, enabled: bool) -> None:
    """“Judge this run”: score the saved report with the judge model and store the scores in the record."""
    fn = _judge_fn()
    ready = bool(enabled and fn and record.get("report"))
    if not st.button("⚖️ Judge this run", key=f"{key}_judge", disabled=not ready,
                     help="Scores the report on the five rubric dimensions (needs a model)."):
        return
    from ui.common import current_settings, store

    with st.spinner("The judge is reading the report…"):
        try:
            scores = fn(record, current_settings(), run_id=run_id, store=store())
        except Exception as exc:  # noqa: BLE001 — show any judge failure, keep the run intact
            show_error(exc)
            return
    if (store().get_run(run_id).record or {}).get("judge") != scores:
        store().save_partial(run_id, {**record, "judge": scores})
    st.rerun()
