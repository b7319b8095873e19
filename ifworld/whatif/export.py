"""Shareable exports of a what-if run: Markdown that opens with the proposition and verdict, and one
self-contained HTML file (charts inline with plotly.js embedded once, no CDN, no network at all).

Both are built from the stored record only. Model text is rendered with raw HTML escaped and images and
links left as text, and every chart's text is escaped (:func:`~ifworld.safe_figure.inert_figure`: no live
``<a xlink:href>``, no styles loading URLs); the export is opened later, anywhere, and nothing in it may call out.
"""

from __future__ import annotations

import html
from typing import Any

from markdown_it import MarkdownIt

from ifworld.figure_words import describe, edge_sentences, figure_tables
from ifworld.safe_figure import inert_figure
from ifworld.whatif.causal import build_causal_graph, causal_figure, domain_heatmap, edge_rows
from ifworld.whatif.figures import calibration_figure, scenario_figure
from ifworld.whatif.records import WhatIfRecord, load_record
from ifworld.whatif.report import render_report_markdown
from ifworld.whatif.sections import session_markdown

# No network at all: only the inline plotly.js and inline styles run; images only from data:/blob: URLs.
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:")
EXPORT_WIDTH = 960
"""Charts in the HTML export are drawn this wide (px): on screen they fit the page; printed, the print stylesheet
scales them to the A4 text width instead of cutting them (a chart does not redraw for the printer)."""
A4_CONTENT_PX = 700  # 210 mm − 2 × 12 mm margins = 186 mm ≈ 703 CSS px
STYLE = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2rem auto;
padding:0 1rem;line-height:1.5;color:#1f2933}table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}
th,td{border:1px solid #cbd2d9;padding:.3rem .5rem;vertical-align:top}th{background:#f0f4f8}
h1{font-size:1.6rem}h2{border-bottom:1px solid #e4e7eb;padding-bottom:.2rem;margin-top:2rem}
.meta{color:#52606d;font-size:.85rem}figure{margin:1rem 0;overflow-x:auto}figcaption{margin:.3rem 0}
@page{size:A4;margin:12mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:10.5pt;line-height:1.4}
figure{zoom:%(zoom)s;overflow:visible;break-inside:avoid;page-break-inside:avoid}
h2,h3{break-after:avoid;page-break-after:avoid}tr{break-inside:avoid}.modebar-container{display:none}}""" % {
    "zoom": f"{A4_CONTENT_PX / EXPORT_WIDTH:.3f}"}


def _renderer() -> MarkdownIt:
    # commonmark with tables; raw HTML is escaped, images and links are not rendered (kept as text)
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable(["image", "link", "autolink"])


def markdown_html(text: str) -> str:
    """Markdown → HTML with raw HTML escaped and no image or link elements."""
    return _renderer().render(text)


def _report_text(rec: WhatIfRecord) -> str:
    return (render_report_markdown(rec.report.model_dump(mode="json"), rec.proposition) if rec.report
            else f"# {rec.proposition}\n\n_No report (the run stopped early)._\n")


def _words(fig: Any, edges: list[dict[str, Any]] | None = None) -> str:
    """A chart's words under it (issue #35): its caption (what it shows, key numbers) and, folded, the data behind
    it as tables — and a causal map's edges as sentences. All text escaped."""
    parts = [f"<figcaption>{html.escape(describe(fig))}</figcaption>"]
    inner = ""
    if edges:
        inner += "<p><strong>Edges, in words</strong></p><ul>" + "".join(
            f"<li>{html.escape(line)}</li>" for line in edge_sentences(edges)) + "</ul>"
    for caption, table in figure_tables(fig):
        inner += f"<p><strong>{html.escape(caption)}</strong></p>" + table.to_html(index=False, escape=True,
                                                                                   border=0, na_rep="—")
    if inner:
        parts.append(f"<details><summary>Data behind this chart</summary>{inner}</details>")
    return "".join(parts)


def _figures(record: dict[str, Any]) -> list[tuple[str, Any]]:
    rec = load_record(record)
    figs: list[tuple[str, Any]] = []
    if rec.report is not None and not rec.report.natural:
        figs += [("Calibration ranges", calibration_figure(rec.report.calibration_ranges)),
                 ("Scenario probabilities", scenario_figure(rec.report.scenarios))]
    edges = [e for r in rec.rounds for o in r.experts.values() for e in o.key_causal_edges]
    figs.append(("Cross-domain causal integration (all rounds)", domain_heatmap(edges)))
    graph = build_causal_graph(rec)
    if graph.number_of_edges():
        figs.append(("Causal map", causal_figure(graph, highlight_cycles=True)))
    return [(title, inert_figure(fig)) for title, fig in figs if fig is not None]


def record_html(record: dict[str, Any], meta: dict[str, Any] | None = None) -> str:
    """One self-contained HTML page: the report (proposition and verdict first), the charts (plotly.js
    inline, once), then the run's metadata."""
    rec = load_record(record)
    body = markdown_html(_report_text(rec) + "\n" + session_markdown(rec) + workshop_section(record))
    charts = []
    for i, (title, fig) in enumerate(_figures(record)):
        fig.update_layout(width=EXPORT_WIDTH)
        edges = edge_rows(build_causal_graph(rec)) if title == "Causal map" else None
        charts.append(f"<figure><h3>{html.escape(title)}</h3>"
                      + fig.to_html(full_html=False, include_plotlyjs=i == 0, config={"displaylogo": False})
                      + _words(fig, edges) + "</figure>")
    info = {"Method": rec.method, "Model calls": rec.usage.get("calls", len(rec.calls)),
            "Prompt tokens": rec.usage.get("prompt_tokens"), "Completion tokens": rec.usage.get("completion_tokens"),
            **(meta or {})}
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                   for k, v in info.items() if v not in (None, ""))
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\"><meta name=\"referrer\" "
            f"content=\"no-referrer\"><title>{html.escape(rec.proposition)}"
            f"</title><style>{STYLE}</style></head><body>{body}<h2>Charts</h2>{''.join(charts) or '<p>None.</p>'}"
            f"<h2>Run metadata</h2><table class=\"meta\">{rows}</table></body></html>")


def workshop_section(record: dict[str, Any]) -> str:
    """The workshop's Markdown section (participants, predictions, contributions, votes, decisions), when the
    exported record carries one (``ifworld.runs.export_run`` adds it)."""
    if not record.get("workshop"):
        return ""
    from ifworld.whatif.workshop_export import workshop_markdown
    from ifworld.whatif.workshop_models import WorkshopRecord

    return "\n" + workshop_markdown(WorkshopRecord.model_validate(record["workshop"]))


def record_markdown(record: dict[str, Any], meta: dict[str, Any] | None = None, *, metadata: bool = True) -> str:
    """The Markdown export: proposition and verdict first, the whole report, judge scores, metadata last
    (``metadata=False`` when the run store appends its own run metadata)."""
    rec = load_record(record)
    text = _report_text(rec) + "\n" + session_markdown(rec) + workshop_section(record)
    if rec.judge:
        text += f"\n## Judge\n\nOverall {rec.judge.get('overall')} / 100\n"
    if not metadata:
        return text
    info = {"Method": rec.method, "Degraded": "; ".join(rec.degraded), **(meta or {})}
    text += "\n## Run metadata\n\n" + "\n".join(f"- {k}: {v}" for k, v in info.items() if v not in (None, ""))
    return text + "\n"
