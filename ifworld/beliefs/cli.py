"""``ifworld beliefs`` commands: run one condition, sweep a grid, trace the phase transition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import MAX_RUNS, simulate, summarise
from ifworld.beliefs.params_cli import config_options
from ifworld.beliefs.sweep import load_grid, parse_grid

app = typer.Typer(help="Belief exchange: collective truth reconstruction (heuristic agents).",
                  no_args_is_help=True)
BAD_USAGE = 2
DEFAULT_OUT = Path("results.csv")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(BAD_USAGE)


@app.command("run")
@config_options()
def run_cmd(
    config: BeliefConfig,
    runs: int = typer.Option(100, help=f"Independent runs [1 – {MAX_RUNS:,}]."),
    seed: int = typer.Option(0, help="Random seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Simulate one condition and print its summary."""
    try:
        summary = summarise(simulate(config, seed=seed, runs=runs))
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(summary))
        return
    for key, value in summary.items():
        typer.echo(f"{key:>15}: {value:.4f}" if isinstance(value, float) else f"{key:>15}: {value}")


@app.command("sweep")
def sweep_cmd(
    grid: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="Grid YAML file.")],
    out: Annotated[Path, typer.Option(help="Output .csv or .parquet (parts kept beside it).")] = DEFAULT_OUT,
    backend: str = typer.Option("local", help="local | dask (ray is not supported)."),
    workers: int = typer.Option(0, help="Worker processes (0 = all cores / 2 Dask workers)."),
    scheduler: str = typer.Option("", help="Dask scheduler address; empty starts a LocalCluster."),
) -> None:
    """Run a grid sweep to a tidy table, resuming finished chunks."""
    if backend == "ray":
        raise _fail("backend ray is not supported; use --backend dask (or local)")
    from ifworld.beliefs.workflows import run_sweep_run, start_sweep  # store imports only when sweeping

    try:
        spec = load_grid(grid)
        run_id = start_sweep(parse_grid(grid.read_bytes()), out=out, backend=backend,
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
    rule: str = typer.Option("both", help="additive | bounded | both."),
    seeds: int = typer.Option(5, help="Seeds per configuration [1 – 100]."),
    runs: int = typer.Option(200, help="Runs per seed [1 – 10,000]."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Also write the tables (CSV, Markdown), every "
                                             "run's row and Figures 1-2 (HTML; PNG with kaleido) to this directory.")
                   ] = None,
) -> None:
    """Reproduce the paper: its one-at-a-time sweep read three ways, Tables 1, 2, 4, 5, 6 beside its numbers."""
    from ifworld.beliefs import paper

    rules = ("additive", "bounded") if rule == "both" else (rule,)
    if any(r not in ("additive", "bounded") for r in rules):
        raise _fail(f"rule must be additive, bounded or both; got {rule!r}")
    if not 1 <= seeds <= 100 or not 1 <= runs <= 10_000:
        raise _fail("seeds must be in 1 – 100 and runs in 1 – 10,000")
    reps = [paper.reproduce(r, seeds=seeds, runs=runs) for r in rules]
    if out:  # --out DIR: tables and figures (ifworld.beliefs.paper_output, the docs' source too)
        from ifworld.beliefs.paper_output import write_outputs

        write_outputs(reps, out)
    if as_json:
        typer.echo(json.dumps([paper.summary(rep) for rep in reps]))
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
    rule: str = typer.Option("both", help="additive | bounded | both."),
    out: Annotated[Path | None, typer.Option(help="Write the curves as CSV.")] = None,
) -> None:
    """Trace F1, 'any false fact accepted' and 'falsehood majority' against misinformation load M_F/M_T."""
    from ifworld.beliefs.phase import crossing_table, phase_both_rules

    rules = ("additive", "bounded") if rule == "both" else (rule,)
    try:
        base = BeliefConfig(true_facts=true)
        curves = phase_both_rules(base, range(0, max_false + 1), runs=runs, seed=seed, rules=rules)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if out:
        curves.to_csv(out, index=False)
    typer.echo(curves[["rule", "ratio", "f1", "lock_share", "false_majority"]].to_string(index=False))
    typer.echo("\n" + crossing_table(curves).to_string(index=False))
