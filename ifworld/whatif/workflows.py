"""Registers the IF-World workflows with :mod:`ifworld.runs` (imported by name: ``whatif.*``)."""

from __future__ import annotations

from typing import Any

from ifworld.runs import Workflow, register
from ifworld.whatif import baselines, pipeline
from ifworld.whatif.frame import clip
from ifworld.whatif.report import render_report_markdown


def _title(params: dict[str, Any]) -> str:
    return f"What-if ({params.get('method', 'ifworld')}): {clip(params.get('proposition', ''), 120)}"


def record_markdown(record: dict[str, Any]) -> str:
    """Markdown export of a run record: proposition, report, judge scores if any."""
    lines = [f"## Proposition\n\n{record.get('proposition', '')}\n", f"Method: `{record.get('method', '')}`\n"]
    if record.get("degraded"):
        lines.append("**Degraded:** " + "; ".join(record["degraded"]) + "\n")
    report = record.get("report") or {}
    lines.append(report.get("markdown") or (render_report_markdown(report) if report else ""))
    if record.get("judge"):
        j = record["judge"]
        lines.append(f"\n## Judge\n\nOverall {j.get('overall')} / 100\n")
    return "\n".join(lines)


for _name, _build, _initial, _finalize in (
    ("ifworld", pipeline.build, pipeline.initial, pipeline.finalize),
    ("single", baselines.build_single, baselines.initial, baselines.finalize_single),
    ("tree", baselines.build_tree, baselines.initial, baselines.finalize_tree),
    ("debate", baselines.build_debate, baselines.initial, baselines.finalize_debate),
):
    register(Workflow(name=f"whatif.{_name}", kind="whatif", build=_build, initial=_initial, finalize=_finalize,
                      markdown=record_markdown, title=_title))
