"""Renderers for what-if run records, rounds and reports (shared by the What-if and Runs pages).

A record is validated once into :class:`ifworld.whatif.records.WhatIfRecord` (old records load with
defaults) and everything below reads typed fields. Numbers go through :mod:`ifworld.whatif.numbers`, the
formatter the Markdown and HTML exports use too. Figure builders are pure (plotly only).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ifworld import whatif
from ifworld.llm import Usage
from ifworld.toolkit import demote_headings, inert_markdown
from ifworld.whatif import (
    CHECKS,
    JUDGE_LABELS,
    JUDGE_MAXIMA,
    ExpertOutput,
    FrameDiff,
    JudgeResult,
    RecordError,
    Report,
    RoundRecord,
    WhatIfRecord,
    calibration_figure,
    interval,
    judge_scores,
    load_record,
    num,
    pct,
    report_sections,
    scenario_figure,
    usage_of,
)
from ui.charts import show_chart
from ui.common import inert, show_error
from ui.connection_view import reachable_now
from ui.deliberation_view import render_deliberation
from ui.identity import caller

sst = inert()  # every text element here may carry model text: rendered inert


# -- small pieces -------------------------------------------------------------------------------------
def render_usage(usage: dict[str, Any]) -> None:
    """Calls, tokens, retries, failures as metrics."""
    cols = st.columns(5)
    counts = Usage.of(usage)
    cols[0].metric("Model calls", counts.calls)
    cols[1].metric("Prompt tokens", counts.prompt_tokens)
    cols[2].metric("Completion tokens", counts.completion_tokens)
    cols[3].metric("Retries", counts.retries)
    cols[4].metric("Failures", counts.failed)


def key_numbers(output: ExpertOutput) -> list[str]:
    numbers = [f"{r.quantity}: {interval([r.low, r.high], r.unit)}" for c in output.conclusions for r in c.ranges]
    numbers += [f"{s.name}: {pct(s.probability_pct)}" for s in output.scenarios if s.name]
    return numbers[:6]


def render_expert(domain: str, output: ExpertOutput) -> None:
    """One expert's card: verdict, key numbers, minimal change, how the frame changed the view."""
    sst.markdown(f"**{domain}** — {output.verdict or '_no verdict_'}")
    numbers = key_numbers(output)
    if numbers:
        sst.caption(" · ".join(numbers))
    for c in output.conclusions[:3]:
        sst.markdown(f"- {c.statement}")
    if output.minimal_change:
        sst.caption(f"Minimal change: {output.minimal_change}")
    if output.alignment_notes:
        sst.caption("How the frame changed this view: " + "; ".join(output.alignment_notes))
    with st.expander("Details", expanded=False):
        if output.reasoning_steps:
            st.dataframe(pd.DataFrame([{"Cause": s.cause, "Effect": s.effect, "Mechanism": s.mechanism,
                                        "Domains": ", ".join(s.domains)} for s in output.reasoning_steps]),
                         hide_index=True, width="stretch")
        st.json(output.model_dump(mode="json"), expanded=False)


def render_round(rnd: RoundRecord, diff: FrameDiff | None, key: str) -> None:
    """A round: expert cards in tabs (failed ones flagged), debate sides, then the deliberation view."""
    names = list(rnd.experts) + [d for d in rnd.failed if d not in rnd.experts]
    if names:
        labels = [f"❌ {n}" if n not in rnd.experts else n for n in names]
        for tab, name in zip(st.tabs([inert_markdown(lab) for lab in labels]), names, strict=True):
            with tab:
                if name in rnd.experts:
                    render_expert(name, rnd.experts[name])
                else:
                    sst.error(f"{name} failed: {rnd.failed[name]}")
    if rnd.debate and (rnd.debate.pro or rnd.debate.con):
        with st.expander("Debate (Pro / Con)"):
            pro_col, con_col = st.columns(2)
            inert(pro_col).markdown(f"🟢 **Pro**\n\n{demote_headings(rnd.debate.pro or '—', floor=5)}")
            inert(con_col).markdown(f"🔴 **Con**\n\n{demote_headings(rnd.debate.con or '—', floor=5)}")
    if rnd.frame:
        sst.markdown(f"**🧭 Deliberation after round {rnd.round}**")
        render_deliberation(rnd.frame, diff, rnd.experts, f"{key}_r{rnd.round}")


def render_consistency(report: Report) -> None:
    """The consistency checks: one line per check (passed / failed with details), repairs, normalisations."""
    cc = report.consistency_checks
    if not cc.checks:
        return
    sst.markdown("#### Consistency checks")
    for check in cc.checks:
        label = CHECKS.get(check.name, check.name)
        if check.passed:
            sst.markdown(f"✅ {label}")
        else:
            sst.markdown(f"⚠️ **{label}** — " + "; ".join(check.details))
    if cc.repaired:
        sst.caption("Fixed by the repair turn: " + "; ".join(cc.repaired))
    if cc.normalised:
        sst.caption("Normalised without a model: " + "; ".join(cc.normalised))


def _scenario_table(report: Report) -> pd.DataFrame:
    flagged = {c.name for c in report.consistency_checks.checks if not c.passed}
    mark = " ⚠️" if "probabilities_sum" in flagged else ""
    return pd.DataFrame([{"Branch": s.id, "Scenario": s.name, "Condition": s.condition,
                          "Probability": pct(s.probability_pct) + mark, "Drivers": ", ".join(s.drivers),
                          "Indicators": ", ".join(s.indicators)} for s in report.scenarios])


def _branch_name(names: dict[str, str], branch_id: str) -> str:
    """A branch reference as "B1 name"; an unknown id is marked (the consistency check lists it too)."""
    if not branch_id:
        return "all branches"
    return names.get(branch_id.lower(), f"⚠️ unknown branch {branch_id}")


def _report_tables(report: Report, key: str) -> None:
    names = {s.id.lower(): f"{s.id} {s.name}" for s in report.scenarios}
    fig = calibration_figure(report.calibration_ranges)
    if fig:
        sst.markdown("#### Calibration ranges")
        show_chart(fig, key=f"{key}_calib")
    if report.scenarios:
        sst.markdown("#### Scenarios")
        fig = scenario_figure(report.scenarios)
        if fig:
            show_chart(fig, key=f"{key}_scen")
        st.dataframe(_scenario_table(report), hide_index=True, width="stretch")
    if report.decision_table:
        sst.markdown("#### Decision table")
        st.dataframe(pd.DataFrame([{
            "Indicator": d.indicator, "Threshold": d.threshold,
            "Branch": _branch_name(names, d.branch_id), "Action": d.action,
            "Who acts": d.actor, "Lead time": d.lead_time} for d in report.decision_table]),
            hide_index=True, width="stretch")
    if report.timeline:
        sst.markdown("#### Timeline")
        st.dataframe(pd.DataFrame([{
            "Horizon": t.horizon, "Event": t.event, "Branch": _branch_name(names, t.branch_id)}
            for t in report.timeline]),
            hide_index=True, width="stretch")
    if report.feasibility_table:
        sst.markdown("#### Feasibility")
        st.dataframe(pd.DataFrame([{"Constraint": f.constraint, "Estimate": num(f.estimate), "Unit": f.unit,
                                    "Bottleneck": f.bottleneck, "Mitigation": f.mitigation}
                                   for f in report.feasibility_table]), hide_index=True, width="stretch")


def render_report(rec: WhatIfRecord, key: str) -> None:
    """The final report: sections, consistency checks, charts and tables, causal map, trace."""
    report = rec.report
    if report is None:
        st.info("This run has no report (it may have stopped early).")
        return
    for title, text in report_sections(rec).items():
        if title not in ("Scenarios", "Decision rules", "Timeline"):
            sst.markdown(f"#### {title}")
            sst.markdown(text)
    render_consistency(report)
    _report_tables(report, key)
    graph = whatif.build_causal_graph(rec)
    if graph.number_of_edges():
        sst.markdown("#### Causal map")
        show_chart(whatif.causal_figure(graph, highlight_cycles=True), key=f"{key}_causal",
                   edges=whatif.edge_rows(graph))
        sst.caption("Open it on the Causal map page to filter by domain and list feedback loops.")
    with st.expander("Assumptions, claims and trace"):
        for title, rows in (("Assumptions", [{"Id": a.id, "Assumption": a.text} for a in report.assumptions]),
                            ("Claims", [{"Id": c.id, "Claim": c.text, "Relies on": ", ".join(c.assumptions)}
                                        for c in report.claims]),
                            ("Trace", [{"Assumption": t.assumption_id, "Claim": t.claim_id, "Note": t.note}
                                       for t in report.trace_table])):
            if rows:
                sst.markdown(f"**{title}**")
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    if report.markdown:
        with st.expander("Report as Markdown"):
            sst.markdown(demote_headings(report.markdown, floor=4))


def render_judge(record: WhatIfRecord) -> None:
    judge = JudgeResult.of(record.judge)
    if judge is None or not judge_scores(record):
        return
    sst.markdown(f"#### Judge: {num(judge.overall or 0)} / 100")
    sst.caption(f"Spent: {whatif.tokens_text(record)}")  # the tokens beside the score (§3 compares at matched budgets)
    cols = st.columns(len(JUDGE_MAXIMA))
    for col, (k, m) in zip(cols, JUDGE_MAXIMA.items(), strict=True):
        col.metric(JUDGE_LABELS[k], f"{num(getattr(judge, k) or 0)} / {m}")
    if judge.rationale:
        sst.caption(judge.rationale)


def render_rounds(rec: WhatIfRecord, key: str, expanded: bool = True) -> None:
    """Every round with its deliberation view and what each agent of the round read, newest last."""
    read: dict[int | None, list[Any]] = {}
    for reading in whatif.readings(rec.calls):
        read.setdefault(reading.round, []).append(reading)
    for rnd in rec.rounds:
        with st.expander(f"Round {rnd.round}: experts and deliberation", expanded=expanded):
            whole = [r.sentence() for r in read.get(rnd.round, []) if r.whole]
            if whole:
                sst.caption("What each agent read: " + " ".join(whole))
            for short in (r for r in read.get(rnd.round, []) if not r.whole):
                sst.warning(short.sentence(), icon="✂️")
            render_round(rnd, rec.diff_of(rnd.round), f"{key}_round")


def render_whatif_record(record: dict[str, Any] | WhatIfRecord, key: str, usage: dict[str, Any] | None = None,
                         *, heading: bool = True) -> None:
    """A whole what-if record: proposition, usage, report, what the room did (scenario card, review edits,
    contributions — the same Markdown the exports carry), rounds (deliberation view per round). The judge's
    scores are drawn beside the judge button (:func:`judge_panel`)."""
    try:
        rec = load_record(record)
    except RecordError as exc:  # a malformed stored record: say what is wrong, show it raw
        sst.error(f"This record does not have the what-if shape: {exc}.")
        st.json(record if isinstance(record, dict) else {}, expanded=False)
        return
    if heading:
        sst.markdown(f"### {rec.proposition or 'What-if run'}")
    methods = whatif.METHOD_REGISTRY
    method = methods.get(rec.method).label if rec.method in methods else rec.method  # a method no longer installed
    sst.caption(f"Method: {method}" + (" · degraded run" if rec.degraded else ""))
    render_usage(usage_of(rec, usage))
    roles = whatif.tokens_by_role(rec.calls)
    if roles:
        with st.expander("Where the tokens went (by role)"):
            st.dataframe(pd.DataFrame([{"Role": r.role, "Calls": r.calls, "Prompt tokens": r.prompt_tokens,
                                        "Completion tokens": r.completion_tokens} for r in roles]),
                         hide_index=True, width="stretch")
    short = whatif.short_reads(rec.calls)
    if short:  # the deliberation ran on shortened inputs: say so before the report is read
        sst.warning("Some agents read less than all of their input — the model's context window was too small: "
                    + " ".join(r.sentence() for r in short))
    render_report(rec, key)
    sst.markdown(demoted(whatif.session_markdown(rec, room=False)))
    render_room(rec)
    render_rounds(rec, key, expanded=len(rec.rounds) <= 2)


def render_room(rec: WhatIfRecord) -> None:
    """The room's contributions as plain text (``st.text``), one per contribution with who, what kind and which
    round: a participant's words are never Markdown on a page, and unlike a data grid (drawn on a canvas) the
    words are in the page, where a screen reader, a search and a projector's zoom reach them."""
    st.markdown("#### The room's contributions")
    rows = whatif.contribution_rows(rec.participants)
    legacy = rec.report.contributions if rec.report else []
    if rows:
        st.caption("The experts, the resolver and the report writers received each one as the room's data.")
        for row in rows:
            when, author, kind, text = row.values()
            st.text(f"{author} ({kind}; {when}): {text}")
    elif legacy:
        for text in legacy:
            st.text(str(text))
    else:
        st.caption("No contributions from the room.")


def demoted(markdown: str) -> str:
    """Section headings of a Markdown block shown under the page's own headings (## → ####)."""
    return demote_headings(markdown, floor=4)


def _judge_fn() -> Any:
    from ifworld.whatif import judge_record

    return judge_record


def judge_panel(run_id: str, record: dict[str, Any], key: str, enabled: bool) -> None:
    """“Judge this run” with its result right below it: scores the saved report with the judge model and
    stores them in the record (the raw stored record is written back, so keys this version does not model
    are kept)."""
    try:
        rec = load_record(record, run_id)
        ready = enabled and rec.report is not None
    except RecordError:  # the record view above names the problem; nothing to judge
        return
    clicked = st.button("⚖️ Judge this run" if not rec.judge else "⚖️ Judge again", key=f"{key}_judge",
                        disabled=not ready, help="Scores the report on the five rubric dimensions (needs a model).")
    if clicked and not reachable_now():  # a dead endpoint: cause and address in seconds, nothing sent
        clicked = False
    if clicked:
        from ui.common import current_settings, store

        with st.spinner("The judge is reading the report…"):
            try:
                scores = _judge_fn()(record, current_settings(), run_id=run_id, store=store(), caller=caller())
            except Exception as exc:  # noqa: BLE001 — show any judge failure, keep the run intact
                show_error(exc)
                return
        store().save_partial(run_id, {**record, "judge": scores})
        st.rerun()  # redraw from the stored record: the scores under the button, which now says "again"
    render_judge(rec)
