"""The ``ifworld demo-server`` command (registered in ``ifworld/cli.py``).

Kept light: the server module is imported inside the command, so ``ifworld --help`` does not load it.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Annotated

import typer

from ifworld.access import OPERATOR, Caller, require_facilitator

if TYPE_CHECKING:
    from ifworld.llm.demo import ChatServer

DEFAULT_PORT = 8765  # = demo.DEFAULT_PORT (not imported here: that would load the server at start)
DEFAULT_HOST = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_BUILTIN: list[ChatServer] = []
_BUILTIN_LOCK = threading.Lock()


def builtin_demo_url(caller: Caller | None = OPERATOR) -> str:
    """The address of this process's own demo server — the "Use the demo model" button's endpoint. Started on
    first use on a free port of 127.0.0.1 (one per process, on daemon threads: it ends with the app), so trying
    the app needs no second terminal. Connecting a model is the facilitator's (``caller``)."""
    require_facilitator(caller, "change the model connection")
    from ifworld.llm.demo import make_demo_server

    with _BUILTIN_LOCK:
        if not _BUILTIN:
            _BUILTIN.append(make_demo_server(host=DEFAULT_HOST, port=0).start())
        return _BUILTIN[0].url


def demo_server(
    port: Annotated[int, typer.Option(help="Port to serve on (0 = any free port).", min=0, max=65535)]
    = DEFAULT_PORT,
    host: Annotated[str, typer.Option(help="Interface to bind (keep 127.0.0.1: the demo is for this machine).")]
    = DEFAULT_HOST,
    latency: Annotated[float, typer.Option(help="Seconds added to every reply (to watch progress).", min=0.0)]
    = 0.0,
) -> None:
    """Serve labelled canned answers for every agent role, to try IF-World without a model.

    An OpenAI-compatible endpoint on this machine; every answer is labelled demo text, never analysis.
    """
    from ifworld.llm.demo import DEMO_MODEL, serve

    def ready(server: ChatServer) -> None:
        url = server.url
        sys.stderr.write(
            f"IF-World demo server on {url} — canned [demo] answers, not a model.\n"
            f"Use it with:  IFWORLD_BASE_URL={url} IFWORLD_MODEL={DEMO_MODEL}\n"
            f"e.g.  IFWORLD_BASE_URL={url} IFWORLD_MODEL={DEMO_MODEL} ifworld app\n"
            "Ctrl-C to stop.\n")
        if host not in LOOPBACK:
            sys.stderr.write(f"warning: bound to {host}, reachable from other machines.\n")
        sys.stderr.flush()

    try:
        serve(host=host, port=port, latency=latency, ready=ready)
    except OSError as exc:
        typer.echo(f"cannot serve on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo("demo server stopped", err=True)
