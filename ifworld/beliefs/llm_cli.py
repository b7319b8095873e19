"""``ifworld beliefs llm``: one belief-exchange run with LLM agents (mounted by :mod:`ifworld.cli`)."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer

from ifworld import llm
from ifworld.beliefs.config import LLM_DEFAULTS, LLM_FIELDS, LLM_NO_RULE, BeliefConfig, llm_calls
from ifworld.beliefs.llm_agents import make_params
from ifworld.beliefs.params_cli import config_options
from ifworld.config import load_settings
from ifworld.limits import CONFIRM_CALLS, confirmation_message, needs_confirmation
from ifworld.runs import RunFailed, execute
from ifworld.runs.events import Event

BAD_USAGE = 2
FAILED = 1


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def summary_of(record: dict[str, Any], run_id: str) -> dict[str, Any]:
    """The command's JSON: final metrics, per-round metrics, counts, per-agent models, run id."""
    return {"run_id": run_id, **record.get("final", {}), "condition": record.get("condition"),
            "rounds": record.get("rounds", []), "counts": record.get("counts", {}),
            "agent_models": record.get("agent_models", []), "accepted": record.get("accepted", [])}


def _progress(event: Event) -> None:
    data = event.data or {}
    if event.type == "run_started":
        typer.echo(f"run id: {event.run_id}", err=True)
    elif event.type == "progress" and data.get("kind") == "agent_done":
        typer.echo(f"  round {data['round']} agent {data['agent']} ({data['model']}): {data['vote']}", err=True)
    elif event.type == "progress" and data.get("kind") == "round_done":
        typer.echo(f"round {data['round']}: F1 {data['f1']:.3f} P {data['precision']:.3f} R {data['recall']:.3f} "
                   f"STOP {data['stop_share']:.0%}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``llm`` command to the beliefs group."""

    @app.command("llm", help="Simulate belief exchange with LLM agents (progress and run id on stderr). "
                 "Who meets whom follows --topology as in `ifworld beliefs run`. " + LLM_NO_RULE)
    @config_options(defaults=LLM_DEFAULTS, include=LLM_FIELDS)
    def llm_cmd(
        config: BeliefConfig,
        models: str = typer.Option("", help="Comma-separated models (heterogeneous); empty = configured model."),
        shares: str = typer.Option("", help="Comma-separated shares for --models (default equal)."),
        seed: int = typer.Option(0, help="Random seed (initial facts, pairing); --graph-seed draws the graph."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        yes: bool = typer.Option(False, "--yes", help=f"Run without asking when agents x rounds model calls "
                                 f"exceed {CONFIRM_CALLS} (CONFIRM_CALLS)."),
    ) -> None:
        """Run the LLM population; its help text is the command's ``help`` above."""
        settings = load_settings()
        if not settings.enabled:
            typer.echo(llm.NO_MODEL_HELP, err=True)
            raise typer.Exit(BAD_USAGE)
        calls = llm_calls(config)
        if needs_confirmation(calls) and not yes:
            if not sys.stdin.isatty():
                typer.echo(f"error: {confirmation_message(calls)}", err=True)
                raise typer.Exit(BAD_USAGE)
            if not typer.confirm(f"Up to {calls:,} model calls (confirmation above {CONFIRM_CALLS}). Continue?",
                                 default=False, err=True):
                typer.echo("not started", err=True)
                raise typer.Exit(FAILED)
        try:
            share_values = [float(s) for s in _split(shares)]
            params = make_params(config, seed=seed, models=_split(models), shares=share_values or None)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(BAD_USAGE) from None
        holder: dict[str, str] = {}

        def on_event(event: Event) -> None:
            holder["run_id"] = event.run_id
            if event.type != "run_started":  # execute() already printed the run id
                _progress(event)

        try:
            record = execute("beliefs.llm", params, settings=settings, on_event=on_event)
        except RunFailed as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(FAILED) from exc
        out = summary_of(record, holder.get("run_id", ""))
        if as_json:
            typer.echo(json.dumps(out))
            return
        typer.echo(f"F1 {out['f1']:.3f}  precision {out['precision']:.3f}  recall {out['recall']:.3f}  "
                   f"rounds {out['rounds_used']} ({'converged' if out['converged'] else 'round cap'})")
        typer.echo("counts: " + ", ".join(f"{k} {v}" for k, v in out["counts"].items()))
        for fact in out["accepted"]:
            typer.echo(f"  accepted: {fact}")
