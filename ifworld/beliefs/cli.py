"""``ifworld beliefs`` commands: run one condition, sweep a grid, reproduce the paper, trace the phase
transition, and run a population of LLM agents (mounted by :mod:`ifworld.cli` as ``beliefs``).

Options come from :class:`~ifworld.beliefs.config.BeliefConfig`'s fields: a command declares only its own
options and a ``config: BeliefConfig`` parameter; decorating it with :func:`config_options` adds one option
per config field (flag, default, help and range from the field) and hands the command a validated config.
An impossible value exits 2 with the config's own message, before the command body runs.

Only typer and the pydantic-only config are imported at load time; the engine (numpy), pandas, the run
store and the model layer load inside the commands that use them, so ``ifworld --help`` starts fast.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ifworld import safe_json
from ifworld.beliefs.config import (
    LLM_DEFAULTS,
    LLM_FIELDS,
    LLM_INITIAL_CONFIDENCE,
    LLM_NO_RULE,
    LLM_OPTION_HELP,
    MAX_RUNS,
    BeliefConfig,
    bounds_text,
    field_info,
    llm_calls,
    registry_point,
)
from ifworld.beliefs.paper_numbers import PAPER_BOTH, PAPER_RULES
from ifworld.files import output_option
from ifworld.limits import CONFIRM_CALLS, confirmation_message, needs_confirmation

if TYPE_CHECKING:
    from ifworld.runs.events import Event

app = typer.Typer(help="Belief exchange: collective truth reconstruction (heuristic agents).",
                  no_args_is_help=True)
BAD_USAGE = 2
FAILED = 1
DEFAULT_OUT = Path("results.csv")


# -- options generated from BeliefConfig ------------------------------------------------------------
def option_help(name: str) -> str:
    """The field's help with its range or choices, as shown by ``--help``."""
    info, allowed = field_info(name), bounds_text(name)
    return f"{info['help']} ({allowed})" if allowed else info["help"]  # not [..]: rich markup


def _registry_parameter(name: str, point: str, default: Any) -> inspect.Parameter:
    """An option whose value is a registered name (rule, topology): checked when the command line is parsed, so
    entries registered after import count, and a wrong name exits 2 listing the choices. The registry is not
    imported to build the option (the rules need numpy): the help points at the command that lists them."""
    from ifworld.registry import registry

    noun = point.rsplit(".", 1)[-1]
    description = BeliefConfig.model_fields[name].description or ""
    option = typer.Option(default, "--" + name.replace("_", "-"), show_default=True,
                          help=f"{description} Any registered name: `ifworld beliefs {noun}` lists them.",
                          parser=lambda value: registry(point).check(value))
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=str)


def _parameter(name: str, default: Any) -> inspect.Parameter:
    point = registry_point(name)
    if point:
        return _registry_parameter(name, point, default)
    info = field_info(name)
    if info["type"] is bool:
        flags = (f"{info['flag']}/--no-{info['flag'].removeprefix('--')}",)
    else:
        flags = (info["flag"],)
    option = typer.Option(default, *flags, help=option_help(name), show_default=True)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=info["type"])


def config_options(defaults: dict[str, Any] | None = None, include: Iterable[str] | None = None,
                   fixed: dict[str, Any] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the command gets one option per config field (``include`` limits them, ``defaults``
    overrides their defaults, ``fixed`` sets fields without an option) and a validated ``config``."""
    names = [n for n in BeliefConfig.model_fields if include is None or n in set(include)]
    base = BeliefConfig().to_dict() | (defaults or {})

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
               for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "config"]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            values = {n: kwargs.pop(n) for n in names}
            try:
                config = BeliefConfig(**{**(fixed or {}), **values})
            except ValueError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(BAD_USAGE) from None
            return command(config=config, **kwargs)

        run.__signature__ = inspect.Signature([_parameter(n, base[n]) for n in names] + own)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in own}
        del run.__wrapped__  # typer must read the generated signature, not the command's
        return run

    return wrap


# -- heuristic agents ----------------------------------------------------------------------------------
def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(BAD_USAGE)


@contextmanager
def _round_progress(show: bool, estimate: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar of rounds on stderr (only when ``show``); yields the engine's progress callback."""
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("rounds"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        bar.console.print(f"estimated {estimate}", highlight=False)
        task = bar.add_task("rounds", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


@app.command("run")
@config_options()
def run_cmd(
    config: BeliefConfig,
    runs: int = typer.Option(100, help=f"Independent runs [1 – {MAX_RUNS:,}]."),
    seed: int = typer.Option(0, help="Random seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Run even when the estimated time or memory exceeds "
                             "the confirmation thresholds."),
) -> None:
    """Simulate one condition and print its summary (its time and memory are estimated first: a long or large
    one needs --yes; one over a few seconds shows progress on stderr)."""
    from ifworld.beliefs.cost import estimate_cost
    from ifworld.beliefs.engine import check_size, simulate, summarise

    try:
        check_size(config, runs)  # the hard bounds first: nothing is allocated
    except ValueError as exc:
        raise _fail(str(exc)) from None
    cost = estimate_cost(config, runs)
    if cost.needs_confirmation and not yes:
        raise _fail(cost.confirmation_message())
    try:
        with _round_progress(cost.shows_progress, cost.text()) as progress:
            summary = summarise(simulate(config, seed=seed, runs=runs, progress=progress))
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(safe_json.dumps(summary))
        return
    for key, value in summary.items():
        typer.echo(f"{key:>15}: {value:.4f}" if isinstance(value, float) else f"{key:>15}: {value}")


def _list_entries(point: str, as_json: bool) -> None:
    from ifworld.registry import listing

    typer.echo(listing(point, as_json, lambda spec: {"options": list(getattr(spec, "options", ()))}
                       | ({"compiled_kernel": spec.kernel is not None} if hasattr(spec, "kernel") else {})))


@app.command("rules")
def rules_cmd(as_json: bool = typer.Option(False, "--json", help="Print the rules as JSON.")) -> None:
    """List the registered update rules (--rule): name, label, parameters, whether a compiled kernel runs them."""
    _list_entries("beliefs.rules", as_json)


@app.command("topologies")
def topologies_cmd(as_json: bool = typer.Option(False, "--json", help="Print the topologies as JSON.")) -> None:
    """List the registered topologies (--topology): name, label, who meets whom, graph parameters."""
    _list_entries("beliefs.topologies", as_json)


@app.command("sweep")
def sweep_cmd(
    grid: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="Grid YAML file.")],
    out: Annotated[Path, typer.Option(callback=output_option,
                                      help="Output .csv or .parquet (parts kept beside it).")] = DEFAULT_OUT,
    backend: str = typer.Option("local", help="local | dask (ray is not supported)."),
    workers: int = typer.Option(0, help="Worker processes (0 = all cores / 2 Dask workers)."),
    scheduler: str = typer.Option("", help="Dask scheduler address; empty starts a LocalCluster."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Run even when the estimated time or memory exceeds "
                             "the confirmation thresholds."),
) -> None:
    """Run a grid sweep to a tidy table, resuming finished chunks (estimated first: a long one needs --yes)."""
    if backend == "ray":
        raise _fail("backend ray is not supported; use --backend dask (or local)")
    from ifworld.beliefs.cost import sweep_cost
    from ifworld.beliefs.sweep import SweepSpec, parse_grid, read_grid

    try:
        data = parse_grid(read_grid(grid))
        spec = SweepSpec.from_dict(data)
        cost = sweep_cost((BeliefConfig(**c) for c in spec.configs()), len(spec.seeds), spec.runs,
                              workers or (os.cpu_count() or 1))
        if cost.needs_confirmation and not yes:
            raise _fail(cost.confirmation_message())
        from ifworld.beliefs.workflows import run_sweep_run, start_sweep  # the store loads only when sweeping

        run_id = start_sweep(data, out=out, backend=backend,
                             workers=workers or None, scheduler=scheduler or None)
    except (ValueError, OSError) as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"run id: {run_id}", err=True)

    def show(done: int, total: int) -> None:
        typer.echo(f"\rchunks {done}/{total}", err=True, nl=done == total)

    try:
        record = run_sweep_run(run_id, progress=show)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"{(record or {}).get('rows', 0)} rows -> {out} ({len(spec.chunks())} chunks)")


@app.command("paper")
def paper_cmd(
    rule: str = typer.Option(PAPER_BOTH, help=f"{' | '.join(PAPER_RULES)} | {PAPER_BOTH} (the paper's rules)."),
    seeds: int = typer.Option(5, help="Seeds per configuration [1 – 100]."),
    runs: int = typer.Option(200, help="Runs per seed [1 – 10,000]."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Also write the tables (CSV, Markdown), every "
                                             "run's row and Figures 1-2 (HTML; PNG with kaleido) to this directory.")
                   ] = None,
) -> None:
    """Reproduce the paper: its one-at-a-time sweep read three ways, Tables 1, 2, 4, 5, 6 beside its numbers."""
    from ifworld.beliefs import paper

    rules = PAPER_RULES if rule == PAPER_BOTH else (rule,)
    if any(r not in PAPER_RULES for r in rules):
        raise _fail(f"rule must be {', '.join(PAPER_RULES)} or {PAPER_BOTH} (the paper's rules); got {rule!r}")
    if not 1 <= seeds <= 100 or not 1 <= runs <= 10_000:
        raise _fail("seeds must be in 1 – 100 and runs in 1 – 10,000")
    reps = [paper.reproduce(r, seeds=seeds, runs=runs) for r in rules]
    if out:  # --out DIR: tables and figures (ifworld.beliefs.paper_output, the docs' source too)
        from ifworld.beliefs.paper_output import write_outputs

        write_outputs(reps, out)
    if as_json:
        typer.echo(safe_json.dumps([paper.summary(rep) for rep in reps]))
        return
    for rep in reps:
        typer.echo(f"\n=== rule {rep.rule}: {rep.configurations} configurations x {rep.seeds} seeds x {rep.runs} runs")
        for title, table in paper.printed_tables(rep):
            typer.echo(f"\n{title}\n{table.to_string(index=False)}")
        typer.echo("\nResidual differences:\n" + "\n".join(f"- {line}" for line in paper.residuals(rep)))


@app.command("phase")
def phase_cmd(
    true: int = typer.Option(5, "--true", help="True facts per agent (M_T), held fixed."),
    max_false: int = typer.Option(15, help="Largest M_F (ratio M_F/M_T from 0)."),
    runs: int = typer.Option(200, help="Runs per ratio."),
    seed: int = typer.Option(0, help="Random seed."),
    rule: str = typer.Option(PAPER_BOTH, help=f"A registered update rule, or {PAPER_BOTH}: the paper's rules "
                             f"({', '.join(PAPER_RULES)})."),
    out: Annotated[Path | None, typer.Option(callback=output_option, help="Write the curves as CSV.")] = None,
) -> None:
    """Trace F1, 'any false fact accepted' and 'falsehood majority' against misinformation load M_F/M_T."""
    from ifworld.beliefs.phase import crossing_table, phase_both_rules

    rules = PAPER_RULES if rule == PAPER_BOTH else (rule,)
    try:
        base = BeliefConfig(true_facts=true)
        curves = phase_both_rules(base, range(0, max_false + 1), runs=runs, seed=seed, rules=rules)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if out:
        from ifworld.safe_csv import write_csv  # pandas: loaded by the command that writes, not at start

        write_csv(curves, out)
    typer.echo(curves[["rule", "ratio", "f1", "lock_share", "false_majority"]].to_string(index=False))
    typer.echo("\n" + crossing_table(curves).to_string(index=False))


# -- LLM agents --------------------------------------------------------------------------------------
def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def summary_of(record: dict[str, Any], run_id: str) -> dict[str, Any]:
    """The command's JSON: final metrics, per-round metrics, counts, per-agent models, run id."""
    return {"run_id": run_id, **record.get("final", {}), "condition": record.get("condition"),
            "rounds": record.get("rounds", []), "counts": record.get("counts", {}),
            "agent_models": record.get("agent_models", []), "accepted": record.get("accepted", [])}


def _llm_progress(event: Event) -> None:
    data = event.data or {}
    if event.type == "run_started":
        typer.echo(f"run id: {event.run_id}", err=True)
    elif event.type == "progress" and data.get("kind") == "agent_done":
        typer.echo(f"  round {data['round']} agent {data['agent']} ({data['model']}): {data['vote']}", err=True)
    elif event.type == "progress" and data.get("kind") == "round_done":
        typer.echo(f"round {data['round']}: F1 {data['f1']:.3f} P {data['precision']:.3f} R {data['recall']:.3f} "
                   f"STOP {data['stop_share']:.0%}", err=True)


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
    negation_hint: bool = typer.Option(False, "--negation-hint", help=LLM_OPTION_HELP["negation_hint"]),
    initial_confidence: float = typer.Option(LLM_INITIAL_CONFIDENCE, "--initial-confidence",
                                             help=LLM_OPTION_HELP["initial_confidence"]),
    pair_negations: bool = typer.Option(False, "--pair-negations", help=LLM_OPTION_HELP["pair_negations"]),
) -> None:
    """Run the LLM population; its help text is the command's ``help`` above."""
    from ifworld.beliefs.llm_agents import make_params
    from ifworld.config import NO_MODEL_HELP, load_settings
    from ifworld.runs import RunFailed, execute

    settings = load_settings()
    if not settings.enabled:
        typer.echo(NO_MODEL_HELP, err=True)
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
        params = make_params(config, seed=seed, models=_split(models), shares=share_values or None,
                             negation_hint=negation_hint, initial_confidence=initial_confidence,
                             pair_negations=pair_negations)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_USAGE) from None
    from ifworld.llm import cli_preflight

    cli_preflight(settings, models=tuple(_split(models)) or None)  # seconds, naming cause and address
    holder: dict[str, str] = {}

    def on_event(event: Event) -> None:
        holder["run_id"] = event.run_id
        if event.type != "run_started":  # execute() already printed the run id
            _llm_progress(event)

    try:
        record = execute("beliefs.llm", params, settings=settings, on_event=on_event)
    except RunFailed as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(FAILED) from exc
    out = summary_of(record, holder.get("run_id", ""))
    if as_json:
        typer.echo(safe_json.dumps(out))
        return
    typer.echo(f"F1 {out['f1']:.3f}  precision {out['precision']:.3f}  recall {out['recall']:.3f}  "
               f"rounds {out['rounds_used']} ({'converged' if out['converged'] else 'round cap'})")
    typer.echo("counts: " + ", ".join(f"{k} {v}" for k, v in out["counts"].items()))
    for fact in out["accepted"]:
        typer.echo(f"  accepted: {fact}")
