"""RWS page furniture: item rendering with LaTeX, verdict display, benchmark charts and role traces.

Figures are built from saved benchmark records only (plotly), so earlier runs open without a model. A stored
record is validated once (:func:`ifworld.rws.records.load_benchmark_record`) by :func:`show_results`; every
helper below it reads the typed :class:`~ifworld.rws.records.BenchmarkRecord`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from ifworld import rws
from ifworld.runs import Event
from ifworld.rws import (
    BenchmarkRecord,
    Grade,
    LoadResult,
    RecordError,
    RWSItem,
    TraceEntry,
    answer_latex,
    load_benchmark_record,
    load_items,
    plain_text,
)
from ifworld.toolkit import TEMPLATE
from ui.charts import show_chart
from ui.common import safe_md, show_error
from ui.runs_view import register_renderer, render_generic

VERDICT_ORDER = ("incorrect", "not_sure", "correct")
VERDICT_NAME = {"incorrect": "incorrect", "not_sure": "not sure", "correct": "correct"}
VERDICT_COLOUR = {"incorrect": "#D55E00", "not_sure": "#E69F00", "correct": "#0072B2"}  # Okabe & Ito: not red/green
VERDICT_MARK = {"incorrect": "✗", "not_sure": "?", "correct": "✓"}  # in each cell: never told by colour alone
OTHER_ROWS = {"verifier": "LLM verifier (grading)"}
"""Cost rows that are no pattern (the patterns' labels come from ``rws.PATTERN_REGISTRY``)."""
BASE_COLUMN_NAME = {"model": "Model", "pattern": "Pattern", "overall": "Overall", "numeric": "Numeric",
                    "symbolic": "Symbolic", "textual": "Textual", "calls": "Model calls",
                    "prompt_tok": "Prompt tokens", "completion_tok": "Completion tokens", "total_tok": "Total tokens",
                    "failed": "Failed calls", "items": "Items", "calls_per_item": "Calls per item",
                    "accuracy": "Accuracy"}
"""Human names for the RWS tables' columns and index levels (the frames keep their machine names)."""


def pattern_names() -> dict[str, str]:
    """Pattern name → label, read from the registry when drawn (a pattern registered later is named too)."""
    return {**rws.PATTERN_REGISTRY.labels(), **OTHER_ROWS}


def column_names() -> dict[str, str]:
    return {**BASE_COLUMN_NAME, **pattern_names()}


def accuracy_columns() -> tuple[str, ...]:
    return ("Accuracy", "Overall", "Numeric", "Symbolic", "Textual", *pattern_names().values())


VERDICT_ICON = {"correct": "✅", "not_sure": "❔", "incorrect": "❌"}
MAX_LISTED_ERRORS = 50


@st.cache_data(max_entries=8, ttl=3600, show_spinner="Checking the gold answers…")
def _load_checked(data: bytes) -> LoadResult:
    """Load and check every gold answer once per upload (the check grades each gold against itself)."""
    return load_items(data, check_gold=True)


def load_upload(data: bytes | str, label: str) -> LoadResult | None:
    """Load an uploaded/pasted JSONL; list bad lines and ungradable gold answers by number."""
    try:
        loaded = _load_checked(data.encode("utf-8") if isinstance(data, str) else data)
    except ValueError as exc:
        show_error(f"{label}: {exc}")
        return None
    if loaded.errors:
        lines = "\n".join(f"- line {e.line}: {e.reason}" for e in loaded.errors[:MAX_LISTED_ERRORS])
        more = len(loaded.errors) - MAX_LISTED_ERRORS
        st.warning(f"{label}: {len(loaded.errors)} line(s) skipped, {len(loaded.items)} item(s) kept.\n\n{lines}"
                   + (f"\n- … and {more} more" if more > 0 else ""))
    elif loaded.items:
        st.success(f"{label}: {len(loaded.items)} items loaded.")
    if loaded.gold_problems:
        lines = "\n".join(f"- line {e.line}: {e.reason}" for e in loaded.gold_problems[:MAX_LISTED_ERRORS])
        st.warning(f"{label}: {len(loaded.gold_problems)} gold answer(s) cannot be graded for their type "
                   f"(kept; they grade not_sure).\n\n{lines}")
    return loaded


def render_item(item: RWSItem, show_answer: bool) -> None:
    """Preamble, question, hint, reference steps and (optionally) the reference answer; LaTeX rendered.
    An uploaded item is untrusted text: rendered inert (no images, links or HTML; math kept)."""
    meta = item.meta or {}
    safe_md(f"`{item.id}` · {item.type} · topic: {meta.get('topic', '—')} · source: {meta.get('source', '—')}",
            st.caption)
    if item.preamble:
        with st.container(border=True):
            st.markdown("**Earlier parts**")
            for line in item.preamble:
                safe_md(line)
    safe_md(f"**Question.** {item.question}")
    if item.hint:
        safe_md(f"*Answer format:* {item.hint}")
    if show_answer:
        with st.expander("Reference steps", expanded=True):
            for i, step in enumerate(item.step, 1):
                safe_md(f"{i}. {step}")
        answer_box(item)


def answer_box(item: RWSItem) -> None:
    """The reference answer: maths (numbers with upright units, equations) through KaTeX, prose as text."""
    latex = answer_latex(item.final, item.type)
    if latex is None:
        safe_md(f"**Reference answer:** {plain_text(item.final)}")
    else:
        st.markdown("**Reference answer:**")
        st.latex(latex)


def show_grade(grade: Grade) -> None:
    """Verdict, the step that decided (in a student's words, first in the reason), the reason and annotations."""
    verdict = grade.verdict
    step, detail = rws.CheckResult.split_reason(grade.reason)  # a saved grade keeps only its reason
    text = f"{VERDICT_ICON.get(verdict, '')} **{verdict}** (decided by: {step or grade.stage or '?'}) — {detail}"
    safe_md(text, {"correct": st.success, "incorrect": st.error}.get(verdict, st.warning))
    cols = st.columns(2)
    cols[0].markdown(f"Your answer, normalised: `{grade.pred_norm}`")
    cols[1].markdown(f"Reference, normalised: `{grade.gt_norm}`")
    if grade.annotations:
        st.caption("Annotations: " + ", ".join(grade.annotations))
    if len(grade.candidates) > 1:
        with st.expander(f"Extraction: answer taken from the {grade.how or '?'}; all candidates"):
            for candidate in grade.candidates:
                st.code(candidate, language=None, wrap_lines=True)
    if grade.verifier_trace:
        show_trace(grade.verifier_trace, title="Verifier trace")


def show_trace(trace: list[TraceEntry], title: str = "Role trace") -> None:
    """Each role's input and output, in order."""
    st.markdown(f"**{title}**")
    for i, entry in enumerate(trace, 1):
        flag = "" if entry.status.startswith("ok") else f" — ⚠️ {entry.status}"
        with st.expander(f"{i}. {entry.role} · {entry.step}{flag}"):
            st.markdown("*Input*")
            st.code(entry.input, language=None, wrap_lines=True)
            st.markdown("*Output*")
            st.code(entry.output, language=None, wrap_lines=True)
            if entry.error:
                show_error(entry.error, st.caption)


# -- benchmark figures --------------------------------------------------------------------------------
Record = dict[str, Any] | BenchmarkRecord  # as stored, or already validated


def accuracy_chart(record: Record) -> go.Figure:
    """Grouped bars: accuracy by pattern, one bar per answer type (and overall)."""
    rec = load_benchmark_record(record)
    rows = []
    for p, by_type in rec.summary.by_pattern_type.items():
        rows += [{"pattern": p, "type": t, "accuracy": a} for t, a in by_type.items()]
    for p, a in rec.summary.by_pattern.items():
        rows.append({"pattern": p, "type": "overall", "accuracy": a})
    df = pd.DataFrame(rows, columns=["pattern", "type", "accuracy"])
    names = pattern_names()
    df["pattern"] = df["pattern"].map(lambda p: names.get(p, p))
    fig = px.bar(df, x="pattern", y="accuracy", color="type", barmode="group", range_y=[0, 1],
                 category_orders={"pattern": [names.get(p, p) for p in rec.patterns]},
                 labels={"pattern": "Pattern", "accuracy": "Accuracy", "type": "Answer type"},
                 title="Accuracy by pattern × answer type",
                 template=TEMPLATE)  # px takes its colours from the template when it builds
    fig.update_yaxes(tickformat=".0%")
    return fig


def _stepped_colours() -> list[list]:
    """A colour scale of one flat band per verdict (so the colour bar reads as a legend, not a gradient)."""
    n, scale = len(VERDICT_ORDER), []
    for i, verdict in enumerate(VERDICT_ORDER):
        scale += [[i / n, VERDICT_COLOUR[verdict]], [(i + 1) / n, VERDICT_COLOUR[verdict]]]
    return scale


def verdict_matrix(record: Record) -> go.Figure:
    """Items × patterns (× models) heatmap coloured by verdict, with a colour bar naming the verdicts."""
    df = rws.results_frame(record)
    if df.empty:
        return go.Figure()
    multi = df["model"].nunique() > 1
    names = pattern_names()
    df["column"] = df["pattern"].map(lambda p: names.get(p, p)) + (" · " + df["model"] if multi else "")
    df["score"] = df["verdict"].map({v: i for i, v in enumerate(VERDICT_ORDER)})
    z = df.pivot_table(index="item", columns="column", values="score", aggfunc="first")
    z = z.reindex(index=list(dict.fromkeys(df["item"])), columns=list(dict.fromkeys(df["column"])))
    text = z.map(lambda v: VERDICT_NAME[VERDICT_ORDER[int(v)]] if v == v else "no result")
    marks = z.map(lambda v: VERDICT_MARK[VERDICT_ORDER[int(v)]] if v == v else "")
    ticks = list(range(len(VERDICT_ORDER)))
    fig = go.Figure(go.Heatmap(
        z=z.values, x=list(z.columns), y=list(z.index), customdata=text.values, text=marks.values, xgap=1, ygap=1,
        texttemplate="%{text}", textfont={"color": "#111318"},  # >= 3:1 on all three colours (a graphic)
        hovertemplate="%{y} · %{x}: %{customdata}<extra></extra>", zmin=-0.5, zmax=len(VERDICT_ORDER) - 0.5,
        colorscale=_stepped_colours(), showscale=True,
        colorbar={"title": {"text": "Verdict"}, "tickvals": ticks,
                  "ticktext": [f"{VERDICT_MARK[v]} {VERDICT_NAME[v]}" for v in VERDICT_ORDER],
                  "lenmode": "pixels", "len": 120, "thickness": 14, "yanchor": "top", "y": 1}))
    fig.update_layout(title="Verdict per item and pattern", height=max(300, 22 * len(z.index) + 140),
                      xaxis={"title": {"text": "Pattern"}, "automargin": True, "side": "top"},
                      yaxis={"title": {"text": "Item"}, "autorange": "reversed", "automargin": True},
                      margin={"t": 110})
    return fig


def cost_scatter(record: Record) -> go.Figure:
    """Tokens per item against accuracy, one point per pattern (and model): the cost of complexity."""
    df = rws.cost_frame(record)
    if df.empty or "items" not in df:
        return go.Figure()
    df = df[df["items"] > 0].copy()
    df["tokens per item"] = df["total_tok"] / df["items"]
    names = pattern_names()
    df["pattern"] = df["pattern"].map(lambda p: names.get(p, p))
    fig = px.scatter(df, x="tokens per item", y="accuracy", color="pattern", symbol="model", size="calls_per_item",
                     hover_data=["calls", "calls_per_item", "prompt_tok", "completion_tok"], range_y=[-0.05, 1.05],
                     labels={**column_names(), "tokens per item": "Tokens per item"}, title="Token cost vs accuracy",
                     template=TEMPLATE)
    fig.update_yaxes(tickformat=".0%")
    return fig


def human_table(df: pd.DataFrame) -> pd.DataFrame:
    """A results table with human column and index names (the engine's frames keep their machine names)."""
    columns = column_names()
    out = df.rename(columns=lambda c: columns.get(str(c), c))
    out.index = out.index.set_names([columns.get(str(n), n) if n else n for n in out.index.names])
    out.columns.name = None
    return out


def show_table(df: pd.DataFrame, hide_index: bool = False) -> None:
    """A table with human names; accuracy columns as percentages."""
    table = human_table(df)
    config = {c: st.column_config.NumberColumn(c, format="percent") for c in table.columns
              if c in accuracy_columns()}
    st.dataframe(table, hide_index=hide_index, width="stretch", column_config=config)


def render_rws_record(record: dict[str, Any], key: str) -> None:
    """Runs-page view of an ``rws`` record: a benchmark run gets the benchmark page's results view (validated
    first, so a malformed one raises :class:`RecordError` for the Runs page to name with the run); other RWS
    records keep the generic view."""
    if record.get("workflow") != rws.WORKFLOW:  # which kind of RWS record, before any validation
        render_generic("rws", record)
        return
    load_benchmark_record(record)  # raises before anything is drawn; the results view keeps the stored dict
    show_results(record, None, key)  # (for its JSON download)


def show_results(record: dict[str, Any] | BenchmarkRecord, run_id: str | None, key: str) -> None:
    """The whole results view of one benchmark record (a stored one is validated here, once; a malformed one
    is named — run and field — and shown raw instead)."""
    try:
        rec = load_benchmark_record(record, run_id)
    except RecordError as exc:
        show_error(f"This record does not have the RWS benchmark shape: {exc}.")
        st.json(record if isinstance(record, dict) else {}, expanded=False)
        return
    s = rec.summary
    cols = st.columns(4)
    cols[0].metric("Accuracy", f"{(s.accuracy or 0):.0%}")
    cols[1].metric("Tasks", s.n)
    cols[2].metric("Model calls", sum(c.calls for c in rec.cost))
    cols[3].metric("Degraded tasks", s.degraded)
    st.markdown("**Accuracy by model × pattern** (Table 1 shape)")
    show_table(rws.table1(rec))
    st.markdown("**Accuracy by pattern × answer type** (Table 2 shape)")
    t2 = rws.table2(rec)
    show_table(t2.rename(index=pattern_names(), level=0) if not t2.empty else t2)
    show_chart(accuracy_chart(rec), key=f"{key}_acc")
    show_chart(verdict_matrix(rec), key=f"{key}_matrix")
    show_chart(cost_scatter(rec), key=f"{key}_cost")
    show_table(rws.cost_frame(rec).replace({"pattern": pattern_names()}), hide_index=True)
    trace_picker(rec, key)
    d1, d2 = st.columns(2)
    name = run_id or "rws-benchmark"
    d1.download_button("Download CSV", rws.to_csv(rec), f"{name}.csv", "text/csv", key=f"{key}_csv")
    d2.download_button("Download JSON", rws.to_json(record), f"{name}.json", "application/json",
                       key=f"{key}_json")  # a stored record as stored, keys this version does not model included


def trace_picker(rec: BenchmarkRecord, key: str) -> None:
    """Pick an item and a pattern (and model) to open every role's input and output."""
    results = rec.results
    if not results:
        return
    st.subheader("Trace of one task")
    c1, c2, c3 = st.columns(3)
    item = c1.selectbox("Item", list(dict.fromkeys(r.item_id for r in results)), key=f"{key}_item")
    pattern = c2.selectbox("Pattern", list(dict.fromkeys(r.pattern for r in results)), key=f"{key}_pattern")
    model = c3.selectbox("Model", list(dict.fromkeys(r.model for r in results)), key=f"{key}_model")
    chosen = next((r for r in results if (r.item_id, r.pattern, r.model) == (item, pattern, model)), None)
    if chosen is None:
        st.info("No result for this combination.")
        return
    safe_md(f"**Final output** — answer `{chosen.answer}`, gold `{chosen.gold}`")
    show_grade(chosen.grade)
    if chosen.annotations:
        safe_md("Pattern annotations: " + "; ".join(chosen.annotations), st.caption)
    show_trace(chosen.trace)


class BenchmarkProgress:
    """A benchmark run's live view (for ``ui.live_view.follow_run``): a task bar and one line per finished
    (item, pattern, model) task with its verdict."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.total, self.done = max(1, rws.total_tasks(params)), 0
        self.bar = st.progress(0.0, text="Starting…")
        self.box = st.status("Running the benchmark", expanded=True)

    def handle(self, event: Event) -> None:
        for task in rws.progress_of(event):
            self.done += 1
            self.bar.progress(min(1.0, self.done / self.total), text=f"{self.done}/{self.total} tasks")
            self.box.write(f"{task.pattern} · {task.item_id} · {task.model}: **{task.grade.verdict}** "
                           f"({task.calls} calls)")
        if event.type == "run_finished":
            self.box.update(label="Finished", state="complete", expanded=False)
        elif event.type in ("run_failed", "run_cancelled"):
            self.box.update(label="Run interrupted" if event.type == "run_failed" else "Cancelled", state="error")


register_renderer("rws", render_rws_record)
