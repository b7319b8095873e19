"""Registers the IF-World workflows with :mod:`ifworld.runs` (imported by name: ``whatif.*``)."""

from __future__ import annotations

from typing import Any

from ifworld.runs import RunStore, Workflow, add_export_extra, register
from ifworld.whatif import baselines, export, graph as pipeline, steps
from ifworld.whatif.frame import clip
from ifworld.whatif.workshop_export import workshop_record


def _title(params: dict[str, Any]) -> str:
    return f"What-if ({params.get('method', 'ifworld')}): {clip(params.get('proposition', ''), 120)}"


def record_markdown(record: dict[str, Any]) -> str:
    """Markdown export of a run record (proposition and verdict first, see :mod:`ifworld.whatif.export`)."""
    return export.record_markdown(record, metadata=False)


for _name, _build, _initial, _finalize, _steps in (
    ("ifworld", pipeline.build, pipeline.initial, pipeline.finalize, None),
    ("single", baselines.build_single, baselines.initial, baselines.finalize_single, None),
    ("tree", baselines.build_tree, baselines.initial, baselines.finalize_tree, baselines.max_steps),
    ("debate", baselines.build_debate, baselines.initial, baselines.finalize_debate, baselines.max_steps),
):
    register(Workflow(name=f"whatif.{_name}", kind="whatif", build=_build, initial=_initial, finalize=_finalize,
                      markdown=record_markdown, title=_title, html=export.record_html, metadata_last=True,
                      step_label=steps.namer(_name), max_steps=_steps))


def workshop_extra(run_id: str, store: RunStore, anonymise: bool) -> dict[str, Any]:
    """The run's workshop (if it had one) as part of its exported record."""
    rec = workshop_record(run_id, store=store, anonymise=anonymise)
    return {"workshop": rec.model_dump(mode="json")} if rec is not None else {}


add_export_extra(workshop_extra)
