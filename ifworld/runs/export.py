"""Exports of a saved run: JSON, Markdown and a self-contained HTML page (any registered workflow).

Never contains secrets (everything passes :func:`~ifworld.redact.redact`); Markdown has model text made inert
(:func:`~ifworld.safe_text.escape_export`); HTML loads nothing from the network.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ifworld import safe_json
from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.errors import InputError
from ifworld.llm.usage import usage_totals
from ifworld.redact import redact
from ifworld.runs.registry import get_workflow
from ifworld.runs.store import RunInfo, RunStore, get_store
from ifworld.safe_text import escape_export

EXPORT_FORMATS = ("md", "json", "html")
# The HTML export loads nothing: no scripts, styles from outside, images, fonts or frames.
HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'"
RecordExtra = Callable[[str, RunStore, bool], dict[str, Any]]
_EXTRAS: list[RecordExtra] = []


def add_export_extra(extra: RecordExtra) -> None:
    """Let an engine add parts kept outside the run's final record (a workshop, say) to its exports:
    ``extra(run_id, store, anonymise)`` returns keys merged into the exported record (empty: nothing)."""
    if extra not in _EXTRAS:
        _EXTRAS.append(extra)


def _with_extras(info: RunInfo, store: RunStore, anonymise: bool) -> RunInfo:
    added = {k: v for extra in _EXTRAS for k, v in extra(info.id, store, anonymise).items()}
    return dataclasses.replace(info, record={**(info.record or {}), **added}) if added else info


def export_run(run_id: str, fmt: str = "json", *, caller: Caller = OPERATOR, store: RunStore | None = None,
               anonymise: bool = False) -> str:
    """Markdown, JSON or HTML export of a run (params, status, record, calls); ``anonymise`` replaces
    workshop participants' names with P1, P2, ….

    Never contains secrets (everything passes :func:`redact`); Markdown has model text made inert
    (:func:`escape_export`: no raw HTML, images or live links); HTML is self-contained and fetches nothing.
    The facilitator's alone (``caller``): an export carries the whole room's names and text.
    """
    require_facilitator(caller, "export a run")
    store = store or get_store()
    info = store.get_run(run_id)
    calls = store.calls(run_id)
    try:
        wf = get_workflow(info.workflow)  # importing its engine registers the engine's export extras
    except KeyError:
        wf = None
    info = _with_extras(info, store, anonymise)
    if fmt == "json":
        return redact(safe_json.dumps(redact(export_payload(info, calls)), indent=2, default=str))
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}; use {', '.join(EXPORT_FORMATS)}")
    body = wf.markdown(info.record) if wf is not None and wf.markdown and info.record else ""
    if fmt == "html" and wf is not None and wf.html is not None and info.record:
        return redact(wf.html(info.record))
    text = redact(escape_export(_markdown(info, calls, body, metadata_last=bool(wf and wf.metadata_last))))
    return _html(info.title, text) if fmt == "html" else text


def _html(title: str, markdown: str) -> str:
    """A self-contained page showing the (already inert) Markdown as escaped, wrapped text."""
    from html import escape

    return (f'<!doctype html>\n<html><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">'
            f'<meta name="referrer" content="no-referrer"><title>{escape(title)}</title>'
            '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}'
            'pre{white-space:pre-wrap;word-wrap:break-word}</style></head>'
            f'<body><pre>{escape(markdown)}</pre></body></html>\n')


def export_payload(info: RunInfo, calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": info.id, "kind": info.kind, "workflow": info.workflow, "title": info.title,
            "status": info.status, "created": info.created_iso, "params": info.params, "error": info.error,
            "record": info.record, "usage": info.usage or usage_totals(calls),
            "calls": [{k: v for k, v in c.items() if k != "output"} for c in calls]}


def _markdown(info: RunInfo, calls: list[dict[str, Any]], body: str, *, metadata_last: bool = False) -> str:
    usage = info.usage or usage_totals(calls)
    if metadata_last and body:
        return "\n".join([body.rstrip(), "", "## Run", "", f"- Title: {info.title}",
                          *_metadata(info, usage)]) + "\n"
    lines = [f"# {info.title}", "", *_metadata(info, usage)]
    if info.error:
        lines += ["## Error", "", info.error, ""]
    if body:
        lines += [body]
    elif info.record:
        lines += ["## Record", "", "```json", json.dumps(info.record, indent=2, default=str)[:200_000], "```"]
    return "\n".join(lines) + "\n"


def _metadata(info: RunInfo, usage: dict[str, Any]) -> list[str]:
    return [f"- Run: `{info.id}` ({info.kind}, {info.workflow})",
             f"- Status: {info.status}", f"- Created: {info.created_iso}",
             f"- Model calls: {usage.get('calls', 0)}, tokens in/out: {usage.get('prompt_tokens', 0)}"
             f"/{usage.get('completion_tokens', 0)}", "", "## Parameters", "", "```json",
             json.dumps(info.params, indent=2, default=str), "```", ""]
