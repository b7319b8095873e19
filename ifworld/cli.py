"""The ``ifworld`` command: ``whatif``, ``rws``, ``beliefs`` and ``runs`` groups, and ``app`` to open the UI.

Each engine owns its sub-app (``ifworld/<engine>/cli.py``); this file only mounts them, plus the
run-store commands that work for every kind.

Start-up stays fast (targets: ``ifworld --help`` ≤ 0.5 s, a numeric ``rws check`` ≤ 1.5 s; measured by
``benchmarks/bench_cli_start.py``): at load time this file and the engines' CLI modules import only typer,
pydantic, the standard library and light helpers. The run store, the model layer, LangGraph, pandas, numpy,
sympy and pint are imported inside the commands that use them; a test checks that importing this module
loads none of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer

from ifworld import __version__, safe_json, stopping
from ifworld.beliefs.cli import app as beliefs_app
from ifworld.files import FileRefused, output_option, read_text_bounded
from ifworld.limits import MAX_ANSWER_FILE_BYTES, confirmation_message, needs_confirmation
from ifworld.llm import demo_server, model_cli
from ifworld.redact import guard_std_streams, safe_error
from ifworld.rws.cli import app as rws_app
from ifworld.whatif.cli import app as whatif_app

app = typer.Typer(
    help="IF-World Studio: what-if scenarios, belief exchange and Reasoning With a Star.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,  # locals may hold prompts, settings, model replies
)
runs_app = typer.Typer(help="List, resume, export and delete saved runs (all kinds).", no_args_is_help=True)

app.add_typer(whatif_app, name="whatif",
              help="What-if scenarios: run the IF-World pipeline or a baseline, judge runs, evaluate methods.")
app.add_typer(rws_app, name="rws",
              help="Reasoning With a Star: check and grade answers, run agentic answer patterns.")
app.add_typer(beliefs_app, name="beliefs",
              help="Belief exchange: simulate populations exchanging facts, run parameter sweeps.")
app.add_typer(runs_app, name="runs")
app.add_typer(model_cli, name="model", help="The model connection: `ifworld model check` tests the endpoint.")
app.command("demo-server")(demo_server)

ENGINES = ("whatif", "rws", "beliefs")
MODEL_KINDS = ("whatif", "rws")
MODEL_WORKFLOWS = ("beliefs.llm",)
"""Runs that call a model: ``runs resume`` checks the endpoint (:func:`ifworld.llm.cli_preflight`) first."""
"""The engines mounted above; they are also the run kinds of the store (``ifworld.runs.KINDS``, a test
keeps the two equal) — named here so ``--help`` needs no store import."""


@runs_app.command("list")
def runs_list(
    kind: Annotated[str | None, typer.Option(help=f"Only runs of this kind: {', '.join(ENGINES)}.")] = None,
    search: Annotated[str | None, typer.Option(help="Match id or title.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (list of {id, kind, status, created, title}).")]
    = False,
) -> None:
    """Saved runs, newest first."""
    from ifworld.runs import KINDS, get_store

    if kind and kind not in KINDS:
        typer.echo(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}", err=True)
        raise typer.Exit(2)
    rows = [r.summary() for r in get_store().list_runs(kind=kind, search=search)]
    if as_json:
        typer.echo(safe_json.dumps(rows, indent=2))
        return
    for r in rows:
        typer.echo(f"{r['id']:<36} {r['kind']:<8} {r['status']:<12} {r['created']}  {r['title'][:60]}")


@runs_app.command("resume")
def runs_resume(
    run_id: str,
    out: Annotated[Path | None, typer.Option(callback=output_option,
                                             help="Write the final record as JSON here.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Start even when the run is estimated above "
                                      "CONFIRM_CALLS model calls.")] = False,
    edit: Annotated[Path | None, typer.Option(
        "--edit", help="A paused run: JSON answer (what-if review edits or a workshop contribution).")] = None,
) -> None:
    """Continue an interrupted, cancelled or paused run to the end (finished steps are not re-run).

    Refused while the run is live in another process; runs estimated above CONFIRM_CALLS model calls
    need --yes.
    """
    from ifworld.runs import RunFailed, RunLive, drive, get_store

    store = get_store()
    try:
        info = store.get_run(run_id)
    except KeyError as exc:
        typer.echo(str(exc.args[0]), err=True)
        raise typer.Exit(2) from exc
    if info.status == "completed":
        typer.echo(f"run {run_id} is already completed", err=True)
        record = info.record or {}
    else:
        estimate = _estimate(info.workflow, info.params)
        if estimate is not None and needs_confirmation(estimate) and not yes:
            typer.echo(confirmation_message(estimate), err=True)
            raise typer.Exit(2)
        answer = _answer(run_id, info.status, edit)  # a bad --edit file is named before the model is asked
        if info.workflow.split(".")[0] in MODEL_KINDS or info.workflow in MODEL_WORKFLOWS:
            from ifworld.config import load_settings
            from ifworld.llm import cli_preflight

            cli_preflight(load_settings())  # a dead endpoint: seconds, not minutes of retries
        typer.echo(f"resuming {run_id} ({info.workflow})", err=True)
        try:
            if info.workflow.startswith("whatif.") and info.status != "running":  # a live run: RunLive below
                # a session: the same transition functions as the page, recorded as the CLI's
                from ifworld.whatif import continue_run

                record = continue_run(run_id, answer=answer, source="cli")
            else:
                record = drive(run_id, resume_value=answer) if answer is not None else _resume(run_id, info.workflow)
            if store.get_run(run_id).status == "paused":
                from ifworld.whatif import pending_asks
                from ifworld.whatif.cli import print_pause

                record = {"run_id": run_id, "paused": pending_asks(run_id)}
                print_pause(run_id, record["paused"])
        except RunLive as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(1) from None
        except ValueError as exc:  # the session's state does not allow continuing (SessionError)
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except RunFailed as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(1) from None
    text = safe_json.dumps(record, indent=2, default=str)
    if out:
        out.write_text(text, encoding="utf-8")
    else:
        typer.echo(text)


def _estimate(workflow: str, params: dict) -> int | None:
    """The workflow's own estimate of model calls for these params, if it gives one."""
    from ifworld.runs import get_workflow

    try:
        estimate = get_workflow(workflow).estimate_calls
    except KeyError:
        return None
    return estimate(params) if estimate is not None else None


@runs_app.command("cancel")
def runs_cancel(run_id: str) -> None:
    """Stop a running or paused run (a running one at its next step); it becomes 'cancelled' and can be resumed.
    A run in any other state has nothing to cancel: exit 2 with its state."""
    from ifworld.runs import get_store, request_cancel

    try:
        info = get_store().get_run(run_id)
    except KeyError as exc:
        typer.echo(str(exc.args[0]), err=True)
        raise typer.Exit(2) from exc
    if info.workflow.startswith("whatif."):
        from ifworld.whatif import SessionError, cancel_session

        try:
            session = cancel_session(run_id, source="cli")
        except SessionError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"cancel requested for {run_id} (was {session.transitions[-1].from_state.replace('_', ' ')})",
                   err=True)
        return
    if info.status not in ("running", "paused"):
        typer.echo(f"error: run {run_id} is {info.status}; nothing to cancel", err=True)
        raise typer.Exit(2)
    live = request_cancel(run_id)
    if not live:
        get_store().set_status(run_id, "cancelled", error="cancelled by request")
    typer.echo(f"cancel requested for {run_id}", err=True)


def _answer(run_id: str, status: str, edit: Path | None) -> Any:
    """The answer handed to a paused run: ``--edit FILE`` (checked first) or "continue unchanged"."""
    if status != "paused":
        if edit is not None:
            typer.echo(f"run {run_id} is not paused (status {status}); --edit applies to paused runs", err=True)
            raise typer.Exit(2)
        return None
    if edit is None:
        return {"action": "continue"}
    try:
        answer = json.loads(read_text_bounded(edit, MAX_ANSWER_FILE_BYTES, what="answer file",
                                              limit_name="MAX_ANSWER_FILE_BYTES"))
    except FileRefused as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    except ValueError as exc:
        typer.echo(f"cannot read the answer file {edit}: {exc}", err=True)
        raise typer.Exit(2) from exc
    from ifworld.whatif import ReviewError, check_answer, pending_asks

    try:
        for ask in pending_asks(run_id):
            check_answer(ask, answer)
    except ReviewError as exc:
        typer.echo(f"the answer in {edit} cannot be used: {exc}", err=True)
        raise typer.Exit(2) from exc
    return answer


def _resume(run_id: str, workflow: str) -> dict:
    """Resume through the workflow's own ``resume`` when it has one (non-graph runs such as sweeps), else by
    continuing its graph from the last checkpoint."""
    from ifworld.runs import drive, get_workflow

    try:
        hook = get_workflow(workflow).resume
    except KeyError:
        hook = None
    record = hook(run_id) if hook is not None else None
    return record if record is not None else drive(run_id)


@runs_app.command("export")
def runs_export(
    run_id: str,
    fmt: Annotated[str, typer.Option("--format", help="md, json or html")] = "json",
    out: Annotated[Path | None, typer.Option(callback=output_option, help="File to write (default: stdout).")] = None,
    anonymise: Annotated[bool, typer.Option("--anonymise", help="Workshop participants as P1, P2, …")] = False,
) -> None:
    """Export a run as Markdown, JSON or self-contained HTML (never includes keys; model text made inert;
    a what-if run's workshop included)."""
    from ifworld.runs import EXPORT_FORMATS, export_run
    from ifworld.whatif import RecordError

    if fmt not in EXPORT_FORMATS:
        typer.echo(f"--format must be one of {', '.join(EXPORT_FORMATS)}", err=True)
        raise typer.Exit(2)
    try:
        text = export_run(run_id, fmt, anonymise=anonymise)
    except KeyError as exc:
        typer.echo(str(exc.args[0]), err=True)
        raise typer.Exit(2) from exc
    except RecordError as exc:  # a stored record that no longer has its kind's shape: name run and field
        typer.echo(f"cannot export run {run_id}: {exc}", err=True)
        raise typer.Exit(2) from exc
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}", err=True)
    else:
        typer.echo(text)


@runs_app.command("delete")
def runs_delete(run_id: str) -> None:
    """Delete a run, its call log and its checkpoints."""
    from ifworld.runs import get_store

    try:
        get_store().delete_run(run_id)
    except KeyError as exc:
        typer.echo(str(exc.args[0]), err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"deleted {run_id}", err=True)


@runs_app.command("copy")
def runs_copy(
    to: Annotated[str, typer.Option("--to", help="Target store: a postgresql:// URL or a SQLite file path.")],
    source: Annotated[str | None, typer.Option("--from", help="Source store (default: IFWORLD_DB).")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Copy only this run (repeatable).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace runs the target already holds.")] = False,
) -> None:
    """Copy every run (index, calls, transitions, workshop, checkpoints) to another store — a SQLite file to
    PostgreSQL, or back — verified by counts per run and a replay of each; prints a JSON summary."""
    from ifworld.runs import RunStore, StoreError, copy_runs, verify_replay

    try:
        src, dst = RunStore(source), RunStore(to)
        if src.label == dst.label:
            typer.echo("--to names the source store itself", err=True)
            raise typer.Exit(2)
        report = copy_runs(src, dst, run or None, overwrite=overwrite)
        report.counts["replayed_steps"] = sum(verify_replay(src, dst, run_id) for run_id in report.runs)
    except (StoreError, ValueError, KeyError) as exc:
        typer.echo(safe_error(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)), err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(report.summary(src, dst)))


app_group = typer.Typer(no_args_is_help=False)
app.add_typer(app_group, name="app")


@app_group.callback(invoke_without_command=True)
def open_app(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8501,
    address: Annotated[str, typer.Option(help="Interface to bind: 127.0.0.1 (this computer only; its browsers are "
                                              "the facilitator) or 0.0.0.0 for a class on one network "
                                              "(network mode: only the sign-in link makes a facilitator).")]
    = "127.0.0.1",
    require_signin: Annotated[bool, typer.Option("--require-signin", help="Ask for the sign-in link even on "
                                                 "127.0.0.1 (a computer others use too).")] = False,
) -> None:
    """Launch the Streamlit app (from the checkout, or from the copy an installed wheel carries) and print the
    facilitator's sign-in link.

    Loopback mode (127.0.0.1, the default) trusts every browser on this computer as the facilitator, so it
    refuses any request that carries a forwarding header (X-Forwarded-For, Forwarded, X-Real-IP …): a proxy in
    front of it would make every student the facilitator. Behind nginx or Caddy, name the proxy in
    IFWORLD_TRUSTED_PROXIES (e.g. 127.0.0.1): the app then trusts no browser by its address (only the sign-in
    link makes a facilitator), and each phone's own address, from the proxy's X-Forwarded-For, is what the join
    and wrong-code limits count; from anyone else that header is ignored.

    `ifworld app signin-link` prints the current sign-in link (`--rotate`: a new token, everyone signed out).

    On POSIX this process *becomes* Streamlit (``exec``): there is no child to outlive it, whatever signal
    ends it, and Streamlit receives SIGTERM / SIGINT / SIGHUP itself and stops serving. (A child would be
    left serving on its port after the parent's SIGTERM or SIGKILL.) Elsewhere Streamlit runs as a child.
    """
    if ctx.invoked_subcommand is not None:
        return
    from ifworld import resources

    script = resources.app_script()
    served = script.parent / "ui" / "asgi.py"  # the same app, sent with a Content-Security-Policy header
    cmd = [sys.executable, "-m", "streamlit", "run", str(served if served.is_file() else script),
           *streamlit_flags(script.parent),
           "--server.port", str(port), "--server.address", address]
    if require_signin:
        os.environ["IFWORLD_REQUIRE_SIGNIN"] = "1"
    from ifworld.access import edge
    from ifworld.errors import IFWorldError
    try:  # a typo here would silently trust nobody (or the wrong host): say so before serving
        edge.trusted_proxies()
    except IFWorldError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    print_signin(address, port, forced=require_signin)
    # The working directory stays the user's, so their ./.streamlit/secrets.toml is still found.
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, cmd)
    raise typer.Exit(subprocess.call(cmd, env=os.environ.copy()))  # pragma: no cover - non-POSIX


@app_group.command("signin-link")
def signin_link(
    port: Annotated[int, typer.Option(help="The port the app serves on.")] = 8501,
    address: Annotated[str, typer.Option(help="The address it was started with.")] = "0.0.0.0",
    rotate: Annotated[bool, typer.Option("--rotate", help="Make a new token first: the old link stops working "
                                         "and every signed-in facilitator browser is signed out.")] = False,
) -> None:
    """Print the facilitator's current sign-in link (the app may be running; nothing is restarted)."""
    from ifworld import access
    from ifworld.access import signin
    from ifworld.config import load_settings
    from ifworld.runs import get_store

    db = load_settings().db_path
    if rotate:
        if os.environ.get(access.TOKEN_ENV, "").strip():
            typer.echo(f"The token comes from {access.TOKEN_ENV}: change it there (and restart the app).", err=True)
            raise typer.Exit(2)
        access.token_path(db).unlink(missing_ok=True)
        ended = signin.end_all_sessions(get_store())
        typer.echo(f"New token made; {ended} signed-in browser(s) signed out.", err=True)
    print_signin(address, port, forced=True)


def print_signin(address: str, port: int, *, forced: bool = False) -> None:
    """Tell the person starting the app how they become the facilitator (on stderr, never on a page)."""
    from ifworld import access
    from ifworld.config import load_settings

    weak = access.weak_token_reason(os.environ.get(access.TOKEN_ENV, "").strip())
    if os.environ.get(access.TOKEN_ENV, "").strip() and weak:
        typer.echo(f"Nobody can sign in as the facilitator: {weak}", err=True)
    token = access.facilitator_token(load_settings().db_path)
    host = "127.0.0.1" if address in ("0.0.0.0", "::", "") else address
    link = f"http://{host}:{port}{access.SIGNIN_PATH}?token={token}"
    if access.is_loopback(address) and not forced and os.environ.get("IFWORLD_REQUIRE_SIGNIN", "") != "1":
        typer.echo(f"IF-World Studio on http://{host}:{port} — bound to this computer only, so a browser here is "
                   "the facilitator. For a class on the network: ifworld app --address 0.0.0.0", err=True)
        return
    typer.echo("Facilitator sign-in link (open it in YOUR browser; keep it off the projector — it makes whoever "
               f"opens it the facilitator):\n  {link}", err=True)
    if not access.is_loopback(address):
        typer.echo(f"Network mode: the class joins at http://<this computer's address>:{port}/p/ with the code "
                   "you open; every other browser is a participant or a visitor and reaches the phone page only.",
                   err=True)


def streamlit_flags(app_root: Path) -> list[str]:
    """The app's own .streamlit/config.toml as command-line flags: Streamlit reads config.toml only from
    the working directory and ~/.streamlit, and ``ifworld app`` runs from wherever the user is."""
    path = app_root / ".streamlit" / "config.toml"
    if not path.is_file():
        return []
    flags = []
    for section, options in tomllib.loads(path.read_text(encoding="utf-8")).items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags.append(f"--{section}.{key}={text}")
    return flags


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ifworld {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """IF-World Studio: what-if scenarios, belief exchange and Reasoning With a Star."""


def _unwind_on_signals() -> list[int]:
    """SIGTERM and SIGHUP unwind like Ctrl-C (KeyboardInterrupt: every ``finally`` runs, a run's lease is
    released as interrupted) instead of ending the process on the spot; returns the list of signals received."""
    received: list[int] = []

    def handler(signum: int, _frame: Any) -> None:
        received.append(signum)
        stopping.request_stop()  # worker threads send no further model call (ifworld.stopping)
        raise KeyboardInterrupt

    for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(sig, handler)
    return received


def _resume_hints() -> None:
    """After a signal, name on stderr each run this process was driving that can be resumed."""
    lease = sys.modules.get("ifworld.runs.lease")
    if lease is None or not lease.DRIVEN_HERE:
        return
    from ifworld.runs import RESUMABLE, get_store

    for run_id in lease.DRIVEN_HERE:
        try:
            status = get_store().get_run(run_id).status
        except Exception:  # noqa: BLE001, S112 - a hint is best effort; the store's own errors were shown
            continue
        if status in RESUMABLE or status == "running":  # "running": its lease lapses as this process ends
            sys.stderr.write(f"run {run_id} was interrupted — resume with: ifworld runs resume {run_id}\n")


def entry() -> None:
    """Console entry point: everything printed is secret-masked; store and lease errors are one clear line.
    After SIGINT, SIGTERM or SIGHUP the runs it was driving are named with their resume command (exit 128 + N)."""
    guard_std_streams()
    received = _unwind_on_signals()
    try:
        app()
    except (SystemExit, KeyboardInterrupt):
        if not received:
            raise
        _resume_hints()
        raise SystemExit(128 + received[0]) from None
    except Exception as exc:  # noqa: BLE001 — never a raw traceback with model text or keys in it
        if _store_error(exc):
            sys.stderr.write(f"error: {exc}\n")
            raise SystemExit(1) from None
        sys.stderr.write(f"error: {safe_error(exc)}\n(set IFWORLD_DEBUG=1 for the traceback)\n")
        if os.environ.get("IFWORLD_DEBUG"):
            import traceback

            sys.stderr.write(safe_error(traceback.format_exc(), 20_000) + "\n")
        raise SystemExit(1) from None


def _store_error(exc: Exception) -> bool:
    """A run-store or lease error (said in one line)? Only possible once the store was imported."""
    if "ifworld.runs" not in sys.modules:
        return False
    from ifworld.runs import RunLive, StoreError

    return isinstance(exc, (StoreError, RunLive))


if __name__ == "__main__":
    entry()
