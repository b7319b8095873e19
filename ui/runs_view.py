"""Rendering for the Runs page: the run table, a per-kind record dispatch, replay steps, the judge (next to its
button, and for the runs being compared), comparison.

Other kinds plug in richer views with :func:`register_renderer` (e.g. ``ui/rws_view.py`` calling
``register_renderer("rws", render_rws_record)`` at import); until then they get the generic JSON view.
Modules listed in :data:`RENDERER_MODULES` are imported lazily, so a missing one is no error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from ifworld import whatif
from ifworld.llm import Usage
from ifworld.runs import ReplayStep, RunInfo, state_markdown
from ifworld.toolkit import column_label, human_columns, safe_error
from ifworld.whatif import RecordError, WhatIfRecord, load_record
from ui import whatif_view
from ui.charts import show_chart
from ui.common import current_settings, inert, safe_md, show_error, store
from ui.identity import caller

Renderer = Callable[[dict[str, Any], str], None]  # (record, widget key prefix)
_RENDERERS: dict[str, Renderer] = {}
RENDERER_MODULES = ("ui.rws_view", "ui.beliefs_view")
RUN_COLUMNS = ("id", "kind", "status", "created", "title", "workflow", "calls")
KIND_TITLES = {"whatif": "What-if run", "rws": "Reasoning With a Star run", "beliefs": "Belief-exchange run"}


def register_renderer(kind: str, renderer: Renderer) -> None:
    """Let a kind's own view module render its records on the Runs page."""
    _RENDERERS[kind] = renderer


def _load_plugins() -> None:
    for name in RENDERER_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def is_whatif_record(record: dict[str, Any]) -> bool:
    return isinstance(record, dict) and ("report" in record or "rounds" in record) and "proposition" in record


def render_record(kind: str, record: dict[str, Any] | None, key: str = "rec",
                  usage: dict[str, Any] | None = None, run_id: str | None = None) -> None:
    """Render a finished (or partial) record by run kind; unknown kinds get the generic view. A kind's
    renderer validates the record first; a malformed one (:class:`RecordError`) is named with the run."""
    if not record:
        st.info("No record saved for this run yet (it has not finished). Resume it to complete it.")
        return
    _load_plugins()
    if kind in _RENDERERS:
        try:
            _RENDERERS[kind](record, key)
        except RecordError as exc:
            where = f"run {run_id}: " if run_id and run_id not in str(exc) else ""
            show_error(f"This record cannot be shown: {where}{exc}.")
            st.json(record, expanded=False)
    elif kind == "whatif" and is_whatif_record(record):
        whatif_view.render_whatif_record(record, key, usage)
    else:
        render_generic(kind, record)


def render_generic(kind: str, record: dict[str, Any]) -> None:
    """Headline scalars as metrics, list-of-dict sections as tables, the rest as JSON."""
    st.markdown(f"#### {KIND_TITLES.get(kind, kind)} — record")
    scalars = {k: v for k, v in record.items() if isinstance(v, int | float | str) and len(str(v)) < 40}
    if scalars:
        cols = st.columns(min(4, len(scalars)))
        for i, (k, v) in enumerate(list(scalars.items())[:8]):
            cols[i % len(cols)].metric(k, v)
    for k, v in record.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v[:20]):
            with st.expander(f"{k} ({len(v)})"):
                st.dataframe(human_columns(v[:1000]), hide_index=True, width="stretch")
    with st.expander("Full record (JSON)"):
        st.json(record, expanded=False)


def runs_frame(infos: list[RunInfo]) -> pd.DataFrame:
    """The runs table (newest first as given)."""
    return pd.DataFrame([{"id": i.id, "kind": i.kind, "status": i.status, "created": i.created_iso,
                          "title": i.title, "workflow": i.workflow, "calls": Usage.of(i.usage).calls}
                         for i in infos], columns=list(RUN_COLUMNS))


def step_caption(step: ReplayStep, total: int) -> str:
    """"Step 3 of 12 · Round 1 — economics expert": the slider's own number and the step in the user's words."""
    return f"Step {step.number} of {total} · {step.label}"


def render_replay_state(kind: str, step: ReplayStep, total: int, key: str) -> None:
    """One replay step: what happened (in the user's words), what changed, and the state rendered like a
    live run."""
    values, changed = step.values, step.changed
    inert().caption(step_caption(step, total))
    rec = whatif_state_view(values) if kind == "whatif" else None
    if rec is not None and (rec.rounds or rec.report or rec.scenario):
        if changed:
            st.caption("Changed in this step: " + ", ".join(f"`{k}`" for k in changed))
        if rec.scenario and not rec.rounds:  # a card, as on the live run's review, not a JSON tree
            inert().markdown(whatif.scenario_markdown(rec.scenario, heading="##### Refined scenario"))
        for rnd in rec.rounds:
            st.markdown(f"##### Round {rnd.round}")
            whatif_view.render_round(rnd, rec.diff_of(rnd.round), f"{key}_replay")
        if rec.report:
            whatif_view.render_report(rec, f"{key}_report")
        return
    if step.number == 1:  # the run's input: read as a card of its parameters (model text kept inert)
        inert().markdown(state_markdown(values))
        return
    if changed:
        st.markdown("**Changed in this step:** " + ", ".join(f"`{k}`" for k in changed))
    st.json({k: values[k] for k in changed} or values, expanded=1)


def whatif_state_view(values: dict[str, Any]) -> WhatIfRecord | None:
    """A what-if graph state (or record) as a typed record: rounds, per-round frame diffs, report
    (``None`` for states of other methods that do not fit)."""
    if not isinstance(values.get("rounds"), list):
        rounds: list[dict[str, Any]] = []
        if values.get("outputs"):
            from ifworld.whatif import round_records

            rounds = round_records(values)
        diffs = [{**(f.get("diff") or {}), "round": f.get("round")} for f in values.get("frames") or []
                 if isinstance(f, dict)]
        values = {**values, "rounds": rounds, "frame_diffs": diffs}
    try:
        return load_record(values)
    except RecordError:  # a baseline's or an unexpected state: the caller falls back to the JSON view
        return None


def _method(rec: WhatIfRecord, info: RunInfo) -> str:
    # a record that never said its method (e.g. imported) is labelled by its workflow, not the default
    return (rec.method if "method" in rec.model_fields_set else "") or info.workflow


# -- the judge -------------------------------------------------------------------------------------------
JUDGE_NEEDS_MODEL = "Judging needs a model: connect one under “Model connection” in the sidebar."


def judge_runs(infos: list[RunInfo], key: str) -> None:
    """Score the reports of ``infos`` with the judge model (:func:`ifworld.whatif.judge_record`, which stores
    the scores with each run), then rerun the page so every view reads the stored scores. A failure is kept
    for :func:`judge_problems` to show where the button is."""
    problems = []
    with st.spinner("The judge is reading " + ("the report…" if len(infos) == 1 else "both reports…")):
        for info in infos:
            try:
                scores = whatif.judge_record(info.record or {}, current_settings(), run_id=info.id, store=store(),
                                              caller=caller())
            except Exception as exc:  # noqa: BLE001 — show any judge failure, keep the runs intact
                problems.append(f"{info.id}: {safe_error(exc)}")
                continue
            if (store().get_run(info.id).record or {}).get("judge") != scores:  # not stored by the engine
                store().save_partial(info.id, {**(info.record or {}), "judge": scores})
    st.session_state[f"{key}_problems"] = problems
    st.rerun()


def judge_problems(key: str) -> None:
    """Show (once) what went wrong in the last :func:`judge_runs` of this button."""
    for problem in st.session_state.pop(f"{key}_problems", None) or []:
        show_error(f"The judge failed for run {problem}")


def judgeable(info: RunInfo) -> bool:
    """A what-if run whose saved record has a report (what the judge reads)."""
    try:
        return bool(info.record) and load_record(info.record, info.id).report is not None
    except RecordError:  # the record view names the problem; nothing to judge
        return False


def judge_button(info: RunInfo, key: str) -> bool:
    """“Judge this run”; returns True when clicked (call :func:`judge_runs` then)."""
    ready = current_settings().enabled
    return st.button("⚖️ Judge this run", key=key, disabled=not (ready and judgeable(info)),
                     help="Scores the report on the five rubric dimensions." if ready else JUDGE_NEEDS_MODEL)


def render_judge(info: RunInfo, key: str) -> None:
    """The run's judge scores (placed by the page right under its “Judge this run” button)."""
    judge_problems(key)
    try:
        rec = load_record(info.record, info.id)
    except RecordError:  # the record view below names the problem
        return
    if whatif.judge_scores(rec):
        whatif_view.render_judge(rec)


def without_judge(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The record without its judge scores, for views below a page that already shows them by the button."""
    return {k: v for k, v in record.items() if k != "judge"} if isinstance(record, dict) else record


def compare_judge(pairs: list[tuple[str, RunInfo, dict[str, float] | None]], key: str) -> None:
    """Under the comparison's charts: which runs are not judged yet and a button that judges them (both, or
    the one missing), disabled with the reason when no model is connected."""
    missing = [(label, info) for label, info, scores in pairs if not scores]
    if not missing:
        return
    names = " and ".join(label.split(":", 1)[0] for label, _ in missing)
    st.caption(("Neither run is judged yet." if len(missing) == len(pairs) else f"Run {names} is not judged yet.")
               + " The judge scores each report on five rubric dimensions; the comparison charts follow.")
    ready = current_settings().enabled
    label = "⚖️ Judge both runs" if len(missing) == 2 else f"⚖️ Judge run {names}"
    if not ready:
        st.caption(JUDGE_NEEDS_MODEL)
    if st.button(label, key=f"{key}_judge", disabled=not ready or not all(judgeable(i) for _, i in missing),
                 help=JUDGE_NEEDS_MODEL if not ready else "Scores the reports with the judge model."):
        judge_runs([info for _, info in missing], f"{key}_judge")
    judge_problems(f"{key}_judge")


def render_compare(a: RunInfo, b: RunInfo, key: str = "cmp") -> None:
    """Two runs side by side: judge radar and bars (and a button that judges the runs not judged yet), report
    sections, usage. Both records are validated here, once; a malformed one is named (run and field) instead
    of comparing half of it."""
    try:
        rec_a, rec_b = load_record(a.record, a.id), load_record(b.record, b.id)
    except RecordError as exc:
        st.error(f"Cannot compare: {exc}.")
        return
    if rec_a.proposition != rec_b.proposition:
        st.caption("Note: the two runs answer different propositions.")
    label_a, label_b = (whatif.run_label(side, rec, _method(rec, info), info.created)
                        for side, rec, info in (("A", rec_a, a), ("B", rec_b, b)))
    st.caption(f"{label_a} — {whatif.tokens_text(rec_a, a.usage)}  \n{label_b} — {whatif.tokens_text(rec_b, b.usage)}")
    pairs = [(label_a, a, whatif.judge_scores(rec_a)), (label_b, b, whatif.judge_scores(rec_b))]
    legend = {label: whatif.run_label(side, rec, _method(rec, info), info.created, short=True)
              for label, side, rec, info in ((label_a, "A", rec_a, a), (label_b, "B", rec_b, b))}
    scored = {legend[lab]: s for lab, _, s in pairs if s}  # the charts' legends: short (half-width columns)
    if scored:
        left, right = st.columns(2)
        show_chart(whatif.judge_radar(scored), container=left, key=f"{key}_radar")
        show_chart(whatif.judge_bars(scored), container=right, key=f"{key}_bars")
    compare_judge(pairs, key)
    st.markdown("#### Usage")
    table = whatif.usage_table({label_a: whatif.usage_of(rec_a, a.usage),
                                 label_b: whatif.usage_of(rec_b, b.usage)})
    st.dataframe(human_columns([{**row, "metric": column_label(row["metric"])} for row in table]), hide_index=True,
                 width="stretch")
    sec_a, sec_b = whatif.report_sections(rec_a), whatif.report_sections(rec_b)
    for title in list(dict.fromkeys([*sec_a, *sec_b])):
        safe_md(f"#### {title}")
        left, right = st.columns(2)
        safe_md(sec_a.get(title, "_—_"), left.markdown)
        safe_md(sec_b.get(title, "_—_"), right.markdown)
    left, right = st.columns(2)
    for col, rec, tag in ((left, rec_a, "a"), (right, rec_b, "b")):
        report = rec.report
        fig = whatif_view.scenario_figure(report.scenarios) if report else None
        if fig:
            show_chart(fig, container=col, key=f"{key}_{tag}_scen")
