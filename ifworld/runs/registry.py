"""The workflow registry: each engine registers its named recipes (graph, initial state, record, exports).

The run machinery needs no engine imports: a workflow named ``"<kind>.<name>"`` is looked up here, and the
engine module that registers it is imported on first use (engines sit above ``ifworld.runs``, so they cannot
be imported from here by name at module load without a cycle).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ifworld.config import Settings
from ifworld.errors import WorkflowError
from ifworld.runs.steps import StepNamer

# Engines register their workflows on import; names are "<module key>.<workflow>".
WORKFLOW_MODULES = {
    "whatif": "ifworld.whatif.workflows",
    "rws": "ifworld.rws.workflows",
    "beliefs": "ifworld.beliefs.workflows",
    "demo": "ifworld.runs.demo",
}


class UnknownWorkflow(WorkflowError, KeyError):
    """No workflow is registered under this name (a run of a newer version, or a typo)."""


@dataclass(frozen=True)
class Workflow:
    """How to run, finish and render one kind of run.

    ``build(params, settings)`` returns an uncompiled ``StateGraph``; ``initial(params)`` its input;
    ``finalize(state, params, calls)`` the final record; ``markdown(record)`` a human export.
    """

    name: str
    kind: str
    build: Callable[[dict[str, Any], Settings], Any]
    initial: Callable[[dict[str, Any]], dict[str, Any]]
    finalize: Callable[[dict[str, Any], dict[str, Any], list[dict[str, Any]]], dict[str, Any]]
    markdown: Callable[[dict[str, Any]], str] | None = None
    title: Callable[[dict[str, Any]], str] = lambda p: ""
    cache: bool = False
    # the Markdown export opens with the workflow's own text (e.g. proposition and verdict), metadata last
    metadata_last: bool = False
    max_steps: Callable[[dict[str, Any]], int] | None = None
    """Optional exact bound on supersteps for ``params``; otherwise :func:`recursion_limit` derives one."""
    html: Callable[[dict[str, Any]], str] | None = None
    """Optional self-contained HTML export of a record (model text inert, no network); else a generic page."""
    estimate_calls: Callable[[dict[str, Any]], int] | None = None
    """Optional estimate of model calls for ``params``: above ``limits.CONFIRM_CALLS`` a resume needs --yes."""
    step_label: StepNamer | None = None
    """Optional namer of replay steps in the user's words (see :mod:`ifworld.runs.steps`); else node names."""
    loop_params: tuple[str, ...] = ()
    """Params that bound how often the graph goes round its loop (``"rounds"``; a dotted path reaches into a nested
    config: ``"config.rounds"``): :func:`recursion_limit` grows with their values. Declared, never guessed."""
    resume: Callable[[str], dict[str, Any] | None] | None = None
    """Optional ``resume(run_id)`` for runs that do not continue by replaying their graph (e.g. sweeps): it
    returns the final record, or None to fall back to the generic graph resume."""


_REGISTRY: dict[str, Workflow] = {}


def register(workflow: Workflow) -> Workflow:
    _REGISTRY[workflow.name] = workflow
    return workflow


def get_workflow(name: str) -> Workflow:
    if name not in _REGISTRY:
        module = WORKFLOW_MODULES.get(name.split(".")[0])
        if module:
            late = getattr(importlib.import_module(module), "late_workflow", None)
            if name not in _REGISTRY and late is not None:  # an entry registered after the module was imported
                late(name)
    if name not in _REGISTRY:
        raise UnknownWorkflow(f"unknown workflow {name!r}; registered: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]
