"""Registers a workflow with :mod:`ifworld.runs` for every what-if method (imported by name: ``whatif.*``).

Each method of :data:`ifworld.whatif.methods.REGISTRY` runs as the workflow ``whatif.<name>``, built from its
spec's hooks; a method registered after this module was imported gets its workflow on first use
(:func:`late_workflow`, which ``ifworld.runs`` calls for a ``whatif.*`` name it does not know).
"""

from __future__ import annotations

from typing import Any

from ifworld.runs import RunStore, Workflow, add_export_extra, register
from ifworld.whatif import export
from ifworld.whatif.frame import clip
from ifworld.whatif.methods import REGISTRY, MethodSpec
from ifworld.whatif.workshop_export import workshop_record


def _title(params: dict[str, Any]) -> str:
    return f"What-if ({params.get('method', 'ifworld')}): {clip(params.get('proposition', ''), 120)}"


def record_markdown(record: dict[str, Any]) -> str:
    """Markdown export of a run record (proposition and verdict first, see :mod:`ifworld.whatif.export`)."""
    return export.record_markdown(record, metadata=False)


def _live(method: str, field: str) -> Any:
    """The hook ``field`` of the method registered as ``method`` when the run calls it (a method registered
    again, replaced or in a test, runs its current spec, not the one its workflow was first made from)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return REGISTRY.get(method).call(field, *args, **kwargs)

    return call


def method_workflow(spec: MethodSpec) -> Workflow:
    """The run workflow of one method: its graph, input and record from the registered spec's hooks."""
    build, initial, finalize = (_live(spec.name, f) for f in ("build", "initial", "finalize"))
    return Workflow(name=spec.workflow, kind="whatif", build=build, initial=initial, finalize=finalize,
                    markdown=record_markdown, title=_title, html=export.record_html, metadata_last=True,
                    step_label=spec.hook("step_namer"), max_steps=spec.hook("max_steps"),
                    loop_params=spec.loop_params)


def late_workflow(name: str) -> None:
    """Register the workflow of a method registered after this module was imported (``whatif.<method>``)."""
    method = name.removeprefix("whatif.")
    if method in REGISTRY:
        register(method_workflow(REGISTRY.get(method)))


for _spec in REGISTRY.loaded():  # the built-ins; a method registered later gets its workflow in late_workflow
    register(method_workflow(_spec))


def workshop_extra(run_id: str, store: RunStore, anonymise: bool) -> dict[str, Any]:
    """The run's workshop (if it had one) as part of its exported record."""
    rec = workshop_record(run_id, store=store, anonymise=anonymise)
    return {"workshop": rec.model_dump(mode="json")} if rec is not None else {}


add_export_extra(workshop_extra)
