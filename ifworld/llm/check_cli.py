"""``ifworld model check`` — test the configured endpoint from a terminal — and :func:`cli_preflight`, the check
every model-calling command makes before it starts (same words, same exit codes).

Exit codes (a script can branch on them; also in ``docs/cli.md``):

====  =========================================================================
0     reachable, key accepted, model present, a structured-output method works
1     the model answers, but no structured-output method works (the engines need one)
2     no model configured (nothing set), or unusable arguments
3     nothing listening at host:port (connection refused)
4     the host name could not be resolved
5     connected, but no answer in time
6     the API key was refused (HTTP 401/403)
7     the model is not on the server (HTTP 404; the message lists the models it serves)
8     TLS handshake failed
9     the answer is not OpenAI-compatible (wrong base URL?)
10    the server is busy or failing (HTTP 429/5xx)
11    any other failure
====  =========================================================================

Loads only typer at import (``ifworld --help`` stays fast); the model layer loads when a command runs.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from ifworld.config import Settings
    from ifworld.llm.connection import ConnectionReport

model_cli = typer.Typer(help="The model connection: test the configured endpoint.", no_args_is_help=True)
"""The ``ifworld model`` group (mounted by :mod:`ifworld.cli`)."""

OK, NO_STRUCTURED, NOT_CONFIGURED = 0, 1, 2
KIND_EXIT = {"refused": 3, "dns": 4, "timeout": 5, "auth": 6, "model": 7, "tls": 8, "protocol": 9, "busy": 10,
             "other": 11}
"""Exit code of each failure kind (:data:`ifworld.llm.diagnose.KINDS`)."""
STEPS = ("reachable", "key accepted", "model present")
# how far a failure of each kind got: the steps before it passed
PASSED_BEFORE = {"auth": 1, "model": 2, "busy": 3, "other": 3}


def exit_code(kind: str) -> int:
    """The exit code of a failure kind (unknown kinds: 11)."""
    return KIND_EXIT.get(kind, KIND_EXIT["other"])


def _settings() -> Settings:
    from ifworld.config import NO_MODEL_HELP, load_settings

    settings = load_settings()
    if not settings.enabled:
        typer.echo(f"error: {NO_MODEL_HELP}", err=True)
        raise typer.Exit(NOT_CONFIGURED)
    return settings


def _lines(report: ConnectionReport, settings: Settings) -> list[str]:
    lines = [f"endpoint     {settings.endpoint_label} ({report.address})", f"model        {report.model}"]
    passed = len(STEPS) if report.ok else PASSED_BEFORE.get(report.kind, 0)
    for i, step in enumerate(STEPS):
        lines.append(f"{step:<12} {'yes' if i < passed else 'NO' if i == passed else '-'}")
    if report.ok:
        lines.append(f"structured   {report.method if report.structured_ok else 'NONE WORKS'}")
        ftt = f"{report.first_token_s:.2f} s" if report.first_token_s is not None else "n/a (not streamed)"
        lines.append(f"first token  {ftt}")
        lines.append(f"reply        {report.latency_s:.2f} s"
                     + (f", {report.tokens_per_s:.1f} tokens/s" if report.tokens_per_s else ""))
        lines.append(f"window       {report.context_tokens:,} tokens ({report.context_source}); counted by "
                     f"{report.token_counter}")
    lines.append(("ok: " if report.ok and report.structured_ok else "problem: " if report.ok else "FAILED: ")
                 + report.message)
    return lines


@model_cli.command("check")
def check_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of lines.")] = False,
) -> None:
    """Test the configured endpoint (IFWORLD_BASE_URL, IFWORLD_MODEL, key): reachable, key accepted, model
    present, which structured-output method works, time to first token. Exit 0 when all is well; otherwise the
    code names the cause (see docs/cli.md: 3 nothing listening … 7 model not found …)."""
    from ifworld.llm.connection import test_connection
    from ifworld.redact import redact

    settings = _settings()
    report = test_connection(settings)
    code = (OK if report.structured_ok else NO_STRUCTURED) if report.ok else exit_code(report.kind)
    if as_json:
        payload: dict[str, Any] = {
            "ok": report.ok and report.structured_ok, "exit_code": code, "endpoint": settings.endpoint_label,
            "address": report.address, "model": report.model, "kind": report.kind or None,
            "message": report.message, "models": report.models, "method": report.method,
            "structured_ok": report.structured_ok, "first_token_s": report.first_token_s,
            "latency_s": round(report.latency_s, 3), "tokens_per_s": report.tokens_per_s,
            "context_tokens": report.context_tokens, "context_source": report.context_source,
            "token_counter": report.token_counter,
        }
        typer.echo(json.dumps(redact(payload), indent=2))
    else:
        typer.echo("\n".join(_lines(report, settings)))
    raise typer.Exit(code)


def cli_preflight(settings: Settings, roles: tuple[str, ...] | None = None,
                  models: tuple[str, ...] | None = None) -> None:
    """Before a command's long job: check the endpoint in seconds (exit with the code above and the cause
    and address on stderr when it cannot be used), and print each retry's wait on stderr while the job runs."""
    from ifworld.config import NO_MODEL_HELP
    from ifworld.llm.diagnose import ModelUnreachable, on_retry, preflight

    if not settings.enabled:
        typer.echo(f"error: {NO_MODEL_HELP}", err=True)
        raise typer.Exit(NOT_CONFIGURED)
    try:
        preflight(settings, roles, models=models)
    except ModelUnreachable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(exit_code(exc.failure.kind)) from None
    global _printing
    if not _printing:
        _printing = True
        on_retry(lambda text: print(text, file=sys.stderr, flush=True))


_printing = False
