"""``ifworld whatif …``: run, judge and evaluate what-if analyses (contracts in DESIGN.md).

Progress goes to stderr (rich); results are JSON on stdout or in ``--out``. Bad input and a missing model
connection exit with code 2 and a specific message.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console

from ifworld import safe_json
from ifworld.errors import InputError
from ifworld.files import FileRefused, output_option, read_text_bounded
from ifworld.limits import MAX_UPLOAD_BYTES
from ifworld.whatif.methods import REGISTRY as METHODS, paper_methods, reference_method
from ifworld.whatif.run_params import param_info, size_fields

if TYPE_CHECKING:
    from rich.progress import Progress

    from ifworld.config import Settings
    from ifworld.runs.events import Event

app = typer.Typer(help="IF-World: cross-disciplinary what-if reasoning.", no_args_is_help=True)
err = Console(stderr=True, soft_wrap=True)
METHODS_HELP = (f"Comma-separated, from {METHODS.help_text(', ')}; 'paper' = the paper's §3.1 comparison "
                f"({','.join(paper_methods())}); 'ablation' = {reference_method()} and Table 3's variants "
                f"({reference_method()}:no_debate, {reference_method()}:2x1 …); 'all' = every registered method.")


def calls_per_node() -> dict[str, int]:
    """Model calls a finished node stands for (the progress bar), from every method's spec."""
    return {node: n for spec in METHODS for node, n in spec.node_calls.items()}
EXPERTS_HELP = ("Comma-separated expert names or domains, e.g. physics,medieval_history (`ifworld whatif experts` "
                "lists them: built-in, installed and your own); any other field gets a persona written from its name.")
JUDGE_KEYS = ("rigor_traceability", "integration_causality", "feasibility_minimality", "uncertainty_adaptation",
              "decisionability", "overall")


def size_options(include: Iterable[str] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the command gets one ``--name`` option per method's own run parameter (``include`` limits them),
    its default, bounds and help read from the typed run parameters (:mod:`ifworld.whatif.run_params`), and a
    ``sizes`` dict of their values (validated by ``default_params``, which names the bounds)."""
    names = [n for n in size_fields() if include is None or n in set(include)]

    def option(name: str) -> inspect.Parameter:
        info = param_info(name)
        flag = "--" + name.replace("_", "-")
        opt = typer.Option(info["default"], flag, help=f"{info['help']} [{info['min']}–{info['max']}]")
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=opt, annotation=int)

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "sizes"]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            return command(sizes={n: kwargs.pop(n) for n in names}, **kwargs)

        run.__signature__ = inspect.Signature(own + [option(n) for n in names])  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in own}
        del run.__wrapped__  # typer must read the generated signature, not the command's
        return run

    return wrap


def _bad(message: str) -> NoReturn:
    err.print(f"[red]error:[/red] {message}", highlight=False)
    raise typer.Exit(2)


def _sync_experts() -> None:
    """Offer the facilitator's own experts (kept with the run store) to ``--experts``."""
    from ifworld.errors import StoreError
    from ifworld.whatif.custom_experts import sync_custom_experts

    try:
        sync_custom_experts()
    except StoreError as exc:
        _bad(str(exc))


def _settings() -> Settings:
    from ifworld.config import NO_MODEL_HELP, load_settings
    from ifworld.llm import cli_preflight

    settings = load_settings()
    if not settings.enabled:
        _bad(NO_MODEL_HELP)
    cli_preflight(settings)  # seconds, naming cause and address, instead of minutes of retries
    return settings


def _write(payload: Any, out: Path | None) -> None:
    text = safe_json.dumps(payload, indent=2, ensure_ascii=False, default=str)
    if out is None:
        sys.stdout.write(text + "\n")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
        err.print(f"wrote {out}")


def _progress() -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=False)


def _on_event(progress: Progress, task: Any) -> Any:
    from ifworld.whatif.records import ExpertFailed, PhaseEvent, parse_progress

    per_node = calls_per_node()

    def handle(event: Event) -> None:
        ev = parse_progress(event.data or {}) if event.type == "progress" else None
        if isinstance(ev, PhaseEvent):
            progress.update(task, description=f"round {ev.round}: {ev.phase}")
        elif isinstance(ev, ExpertFailed):
            err.print(f"[yellow]expert {ev.domain} failed (round {ev.round}); continuing without it[/yellow]")
        elif event.type == "step_finished" and event.node in per_node:
            progress.advance(task, per_node[event.node])
        elif event.type == "run_failed":
            progress.update(task, description="[red]failed")
    return handle


@app.command("run")
@size_options()
def run_cmd(
    proposition: Annotated[str, typer.Argument(help="The what-if proposition (any language; the report follows "
                                                    "it, or --language).")],
    method: Annotated[str, typer.Option("--method", parser=METHODS.check,
                                        help=f"{METHODS.help_text()} (the registered methods: IF-World and the "
                                             "baselines; a wrong name lists them).")] = "ifworld",
    experts: Annotated[str | None, typer.Option("--experts", help=EXPERTS_HELP)] = None,
    no_debate: Annotated[bool, typer.Option("--no-debate", help=param_info("no_debate")["help"])] = False,
    no_conflict: Annotated[bool, typer.Option("--no-conflict", help=param_info("no_conflict")["help"])] = False,
    no_shared_frame: Annotated[bool, typer.Option("--no-shared-frame",
                                                  help=param_info("no_shared_frame")["help"])] = False,
    no_refine: Annotated[bool, typer.Option("--no-refine", help=param_info("no_refine")["help"])] = False,
    budget_tokens: Annotated[int | None, typer.Option(
        "--budget-tokens", help="Tree/debate: add steps until the run's tokens are within ±25 % of this budget "
                                "(instead of --depth / --debate-rounds).")] = None,
    cache: Annotated[bool, typer.Option("--cache", help="Reuse identical finished steps (no model calls).")] = False,
    review: Annotated[bool, typer.Option(
        "--review", help="Pause after the refiner to edit the scenario and panel (continue with "
                         "`ifworld runs resume RUN_ID --edit FILE`).")] = False,
    pause_between_rounds: Annotated[bool, typer.Option(
        "--pause-between-rounds", help="Pause after each round for a workshop participant's contribution.")] = False,
    out: Annotated[Path | None, typer.Option("--out", callback=output_option,
                                             help="Write the run JSON here (default: stdout).")] = None,
    language: Annotated[str, typer.Option(
        "--language", help="Report language: 'auto' follows the proposition, or a name such as Français.")] = "auto",
    yes: Annotated[bool, typer.Option("--yes", help="Confirm a run above CONFIRM_CALLS model calls.")] = False,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Turn on one of our departures from the paper (repeatable): extend_panel, expert_memory, "
                         "tree_angles, debate_history (docs/whatif.md, 'Faithful to the paper').")] = None,
    sizes: dict[str, int] | None = None,
) -> None:
    """Run one analysis and write its record (proposition, scenario, rounds, report, calls, usage …)."""
    from ifworld import runs
    from ifworld.runs import RunFailed
    from ifworld.whatif import estimate_calls, service, workflow_name
    from ifworld.whatif.params import OPTIONS, default_params

    unknown = [o for o in option or [] if o not in OPTIONS]
    if unknown:
        _bad(f"unknown --option {', '.join(unknown)}; choose from {', '.join(OPTIONS)}.")
    _sync_experts()
    try:
        params = default_params(proposition, method, experts=experts.split(",") if experts is not None else None,
                                no_debate=no_debate, no_conflict=no_conflict, no_shared_frame=no_shared_frame,
                                no_refine=no_refine, **(sizes or {}), budget_tokens=budget_tokens, cache=cache,
                                review=review, pause_between_rounds=pause_between_rounds, language=language,
                                **{o: True for o in option or []})
    except ValueError as exc:
        _bad(str(exc))
    from ifworld.limits import confirmation_message, needs_confirmation

    if needs_confirmation(estimate_calls(params)) and not yes:
        _bad(confirmation_message(estimate_calls(params)))
    settings = _settings()
    run_id = runs.start_run(workflow_name(method), params)
    err.print(f"run id: {run_id}", highlight=False)
    with _progress() as progress:
        task = progress.add_task("starting", total=estimate_calls(params))
        try:
            record = service.run(params, settings=settings, run_id=run_id, on_event=_on_event(progress, task))
        except RunFailed as exc:
            progress.stop()
            err.print(f"[red]{exc}[/red]", highlight=False)
            raise typer.Exit(1) from exc
        progress.update(task, completed=progress.tasks[0].total,
                        description="paused" if record.get("paused") else "done")
    if record.get("paused"):
        print_pause(record["run_id"], record["paused"])
    if record.get("degraded"):
        err.print(f"[yellow]degraded: {'; '.join(record['degraded'])}[/yellow]", highlight=False)
    if (record.get("budget") or {}).get("note"):
        err.print(f"[yellow]{record['budget']['note']}[/yellow]", highlight=False)
    _write(record, out)


def print_pause(run_id: str, asks: list[dict]) -> None:
    """Say on stderr what a paused run waits for and how to answer it."""
    kind = asks[0].get("kind") if asks else "?"
    what = ("review the scenario and panel" if kind == "review" else
            f"add a workshop participant's contribution after round {asks[0].get('round')}")
    err.print(f"[cyan]paused: {what}.[/cyan] Write an answer file, e.g. "
              + ('{"action": "edit", "scenario": {"premises": ["…"]}, "panel": ["physics", "urban planning"]}'
                 if kind == "review" else '{"contribution": "…", "name": "harbour master"}')
              + f", then run `ifworld runs resume {run_id} --edit FILE` (no --edit: continue unchanged).",
              highlight=False)
    if asks and asks[0].get("error"):
        err.print(f"[yellow]the previous answer was not used: {asks[0]['error']}[/yellow]", highlight=False)


@app.command("judge")
def judge_cmd(
    run_json: Annotated[Path, typer.Argument(help="A run JSON written by `ifworld whatif run --out`.")],
    out: Annotated[Path | None, typer.Option("--out", callback=output_option,
                                             help="Write the judgement JSON here (else stdout).")] = None,
) -> None:
    """Score a saved run with the independent judge (five rubric dimensions + overall)."""
    from ifworld.whatif.judge import judge_record
    from ifworld.whatif.records import RecordError, load_record

    try:
        record = json.loads(read_text_bounded(run_json, MAX_UPLOAD_BYTES, what="run JSON",
                                              limit_name="MAX_UPLOAD_BYTES"))
    except FileRefused as exc:
        _bad(str(exc))
    except json.JSONDecodeError as exc:
        _bad(f"cannot read run JSON {run_json}: {exc}")
    try:
        report = load_record(record).report
    except RecordError as exc:
        _bad(f"{run_json} is not a what-if run record: {exc}.")
    if report is None:
        _bad(f"{run_json} is not a what-if run record (no 'report' object).")
    settings = _settings()
    try:
        result = judge_record(record, settings)
    except Exception as exc:  # noqa: BLE001 — shown, exit 1
        err.print(f"[red]judge failed: {exc}[/red]", highlight=False)
        raise typer.Exit(1) from exc
    if result.get("overall_mismatch"):
        err.print(f"[yellow]judge's overall ({result['reported_overall']}) ≠ sum of dimensions "
                  f"({result['overall']}); using the sum[/yellow]")
    _write({**{k: result[k] for k in JUDGE_KEYS}, "overall_mismatch": result["overall_mismatch"],
            "reported_overall": result["reported_overall"], "rationale": result["rationale"]}, out)


@app.command("eval")
@size_options(include=("rounds",))
def eval_cmd(
    methods: Annotated[str, typer.Option("--methods", help=METHODS_HELP)] = "paper",
    propositions: Annotated[str, typer.Option(
        "--propositions", help="paper (§3.1's ten) | ablation (§3.4's topic) | classroom | a file")] = "paper",
    repeats: Annotated[int, typer.Option("--repeats")] = 1,
    out: Annotated[Path, typer.Option("--out", help="Output directory (CSV, HTML charts).")] = Path("whatif-eval"),
    experts: Annotated[str | None, typer.Option("--experts")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", help="Token budget of the tree and debate baselines: 'matched' (IF-World's measured tokens "
                         "for the same proposition, ±25 %), a number of tokens, or 'none' (fixed sizes).")
    ] = "matched",
    yes: Annotated[bool, typer.Option("--yes", help="Confirm a job above CONFIRM_CALLS model calls.")] = False,
    sizes: dict[str, int] | None = None,
) -> None:
    """Run and judge methods × propositions × repeats; write the paper's tables and charts (tokens per
    method beside the scores, every judgement in evaluation.json)."""
    from ifworld.limits import confirmation_message, needs_confirmation
    from ifworld.whatif.evaluate import (
        estimate_eval_calls,
        parse_budget,
        resolve_methods,
        resolve_propositions,
        run_eval,
    )
    from ifworld.whatif.propositions import normalize_experts

    _sync_experts()
    try:
        specs = resolve_methods(methods)
        props = resolve_propositions(propositions)
        base = {**(sizes or {}), **({"experts": normalize_experts(experts)} if experts else {})}
        if repeats < 1:
            raise InputError("--repeats must be at least 1.")
        size = parse_budget(budget)
        calls = estimate_eval_calls(specs, props, repeats, base, size)
    except ValueError as exc:
        _bad(str(exc))
    if needs_confirmation(calls) and not yes:
        _bad(confirmation_message(calls))
    settings = _settings()
    with _progress() as progress:
        task = progress.add_task("evaluating", total=len(specs) * len(props) * repeats)

        def tick(done: int, total: int, row: dict) -> None:
            progress.update(task, completed=done, description=f"{row['method']} · topic {row['topic']}")

        try:
            result = run_eval(specs, props, repeats, settings, out, tick, base_params=base, budget=size)
        except ValueError as exc:
            _bad(str(exc))
    sys.stdout.write(result.macro.to_string() + "\n")
    for note in sorted({str(n) for n in result.scores.get("budget_note", []) if isinstance(n, str) and n}):
        err.print(f"[yellow]{note}[/yellow]", highlight=False)
    err.print(f"budget: {result.budget}; wrote {len(result.files)} files to {out}", highlight=False)


@app.command("experts")
def experts_cmd(
    add: Annotated[str | None, typer.Option("--add", help="Add your own expert: its field, e.g. 'medieval "
                                                          "history' (with --persona).")] = None,
    persona: Annotated[str | None, typer.Option("--persona", help="How your expert reasons, in plain words.")] = None,
    change: Annotated[bool, typer.Option("--change", help="With --add: rewrite the persona of your expert of "
                                                           "that name.")] = False,
    delete: Annotated[str | None, typer.Option("--delete", help="Delete your own expert of this name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON rows instead of text.")] = False,
) -> None:
    """List the expert domains `--experts` accepts by name (built-in, installed, your own); add or delete your own
    (runs already made keep the personas they used)."""
    from ifworld.whatif.custom_experts import add_custom_expert, delete_custom_expert
    from ifworld.whatif.experts import REGISTRY

    _sync_experts()
    try:
        if add is not None:
            add_custom_expert(add, persona or "", replace=change)
        if delete is not None:
            delete_custom_expert(delete)
    except ValueError as exc:
        _bad(str(exc))
    rows = [{"name": s.name, "domain": s.label, "default_panel": s.default_panel,
             "by": s.written_by, "aliases": list(s.aliases), "persona": s.persona} for s in REGISTRY]
    if as_json:
        _write(rows, None)
        return
    for r in rows:
        mark = "*" if r["default_panel"] else " "
        sys.stdout.write(f"{mark} {r['name']:<22} {r['domain']:<24} {r['by']:<11} {r['persona']}\n")
    err.print("* = on the default panel", highlight=False)
