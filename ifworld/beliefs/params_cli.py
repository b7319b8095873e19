"""Typer options generated from :class:`~ifworld.beliefs.config.BeliefConfig`'s fields.

A command declares only its own options and a ``config: BeliefConfig`` parameter; decorating it
with :func:`config_options` adds one option per config field (flag, default, help and range from the
field) and hands the command a validated config. An impossible value exits 2 with the config's own
message, before the command body runs.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import typer

from ifworld.beliefs.config import BeliefConfig, bounds_text, field_info

BAD_USAGE = 2


def option_help(name: str) -> str:
    """The field's help with its range or choices, as shown by ``--help``."""
    info, allowed = field_info(name), bounds_text(name)
    return f"{info['help']} ({allowed})" if allowed else info["help"]  # not [..]: rich markup


def _parameter(name: str, default: Any) -> inspect.Parameter:
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
