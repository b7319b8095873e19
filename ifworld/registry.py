"""One way to extend each engine: a registry of typed specs per extension point.

An extension point (what-if methods, expert domains, belief update rules, belief topologies, RWS answer
patterns) is one :class:`Registry`. An entry is a pydantic :class:`Spec` (name, label, help, plus what that
point needs) registered once; every list the product shows is derived from the registry — config validation,
CLI choices and help, page options and labels, table order, the docs tables (:func:`markdown_table`, filled in
by the docs build), demo answers and the tests' parametrisation. The registered name is the only name, as in
inspect_ai's solver and scorer registries.

Built-in entries are imported explicitly by the engine package that owns the point, in the order pages and
tables show them. An entry added to the tree later is a module in :mod:`ifworld.extensions` with a ``register()``
function, found there and registered after the built-ins (its author edits no other file). :data:`POINTS`
says which module owns which point, so a generic consumer
(the docs hook, a test) can reach a registry by its dotted name without importing every engine up front.

Outside packages may add entries through the ``ifworld.extensions`` entry-point group: each entry point names
a module, imported once when a registry is first listed, that calls ``register``. A school that installs a
package of its own experts or rules needs no fork; the product never imports anything the administrator did
not install, and a module that fails to import is reported (:func:`plugin_errors`), never fatal.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ifworld.errors import InputError

__all__ = ["ENTRY_POINT_GROUP", "NAME_PATTERN", "NAME_RULE", "POINTS", "BadName", "DuplicateEntry", "Registry", "Spec",
           "UnknownEntry", "WrongSpecType", "check_name", "listing", "markdown_table", "name_key", "plugin_errors",
           "registry"]

ENTRY_POINT_GROUP = "ifworld.extensions"
NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
NAME_RULE = ("a name is 1-40 characters of lower-case letters a-z, digits and underscores, starting with a letter "
             "(e.g. 'draft_check'); where a name is typed, a hyphen reads as an underscore and case is ignored")
"""The one naming rule of every extension point (:func:`check_name` registers, :func:`name_key` looks up)."""
_NAME_RE = re.compile(NAME_PATTERN)

POINTS: dict[str, str] = {
    "whatif.methods": "ifworld.whatif.methods",
    "whatif.experts": "ifworld.whatif.experts",
    "beliefs.rules": "ifworld.beliefs.rules",
    "beliefs.topologies": "ifworld.beliefs.topology",
    "rws.patterns": "ifworld.rws.patterns",
}
"""Extension point → the module that defines its registry and imports its built-in entries."""

_log = logging.getLogger(__name__)
_plugins_lock = threading.Lock()
_plugins_loaded = False
_plugin_errors: list[str] = []


class UnknownEntry(InputError, KeyError):
    """A name that no entry of this extension point has (the message lists the choices)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DuplicateEntry(InputError):
    """A second entry under a name that is taken (names are the only identity, so they must be unique)."""


class BadName(InputError):
    """A name that breaks :data:`NAME_RULE` (the message quotes the name and states the rule)."""


def check_name(name: object, noun: str = "entry") -> str:
    """``name`` if it follows :data:`NAME_RULE`, else :class:`BadName` naming the rule: the one check of a
    registered name in every registry (a spec's ``name`` field runs it)."""
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise BadName(f"{noun} name {name!r} breaks the naming rule: {NAME_RULE}")
    return name


def name_key(text: object) -> str:
    """What a typed name means (CLI, config, a URL): stripped, lower case, ``-`` and spaces read as ``_`` —
    the same for every registry, so ``--pattern draft-check`` and ``--rule my-rule`` both work."""
    return "_".join(str(text).strip().lower().replace("-", " ").split())


class WrongSpecType(InputError, TypeError):
    """An entry of another point's spec type (a ``RuleSpec`` given to the topologies, say): the message names
    both types. A ``TypeError`` too, as it always was."""


class Spec(BaseModel):
    """What every entry of every extension point has. Subclasses add the point's own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str = Field(description=f"the one name: CLI value, stored in run records ({NAME_RULE})")
    label: str = Field(min_length=1, max_length=60, description="what pages and tables show")
    help: str = Field(default="", max_length=600, description="one or two sentences for help texts and docs")

    @field_validator("name", mode="before")
    @classmethod
    def _name_rule(cls, value: object) -> object:
        return check_name(value, cls.__name__.removesuffix("Spec").lower() or "entry")


S = TypeVar("S", bound=Spec)


def _load_plugins() -> None:
    """Register the in-tree extensions (every module of :mod:`ifworld.extensions`, by name, its ``register()``
    called), then import every module named in the ``ifworld.extensions`` entry-point group; once per process."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    with _plugins_lock:
        if _plugins_loaded:
            return
        _plugins_loaded = True
        for name in _in_tree_modules():
            _guarded(f"extension {name!r} (ifworld/extensions/{name}.py)", partial(_register_in_tree, name))
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _guarded(f"extension {ep.name!r} ({ep.value})", ep.load)


def _in_tree_modules() -> list[str]:
    extensions = importlib.import_module("ifworld.extensions")
    return sorted(info.name for info in pkgutil.iter_modules(extensions.__path__) if not info.name.startswith("_"))


def _register_in_tree(name: str) -> None:
    module = importlib.import_module(f"ifworld.extensions.{name}")
    register = getattr(module, "register", None)
    if not callable(register):
        raise InputError("it has no register() function")
    register()


def _guarded(what: str, load: Callable[[], Any]) -> None:
    try:
        load()
    except Exception as exc:  # an extension must not stop the product
        message = f"{what} could not be loaded: {type(exc).__name__}: {exc}"
        _plugin_errors.append(message)
        _log.warning(message)


def plugin_errors() -> list[str]:
    """Messages of outside extensions that failed to load (shown on the Settings page and by the CLI)."""
    _load_plugins()
    return list(_plugin_errors)


class Registry(Generic[S]):
    """Typed entries of one extension point, in registration order (built-ins first, in their stated order)."""

    def __init__(self, point: str, spec_type: type[S], *, noun: str | None = None,
                 aliases: Mapping[str, str] | None = None) -> None:
        self.point = point
        self.spec_type = spec_type
        self.noun = noun or point.rsplit(".", 1)[-1].rstrip("s")
        self.aliases = dict(aliases or {})  # other typed names of an entry (rws: 'single_shot' -> 'single')
        self._entries: dict[str, S] = {}
        self._lock = threading.Lock()

    # --- writing -------------------------------------------------------------------------------------------------
    def register(self, spec: S, *, replace: bool = False) -> S:
        """Add ``spec``; a taken name is refused unless ``replace`` (a deliberate override)."""
        if not isinstance(spec, self.spec_type):
            raise WrongSpecType(f"{self.point} takes {self.spec_type.__name__}, not {type(spec).__name__}")
        with self._lock:
            if spec.name in self._entries and not replace:
                raise DuplicateEntry(f"{self.noun} {spec.name!r} is already registered in {self.point}")
            self._entries[spec.name] = spec
        return spec

    def unregister(self, name: str) -> None:
        with self._lock:
            self._entries.pop(name, None)

    @contextmanager
    def temporarily(self, spec: S) -> Iterator[S]:
        """Register ``spec`` for a block (tests, previews) and remove it afterwards."""
        self.register(spec)
        try:
            yield spec
        finally:
            self.unregister(spec.name)

    # --- reading -------------------------------------------------------------------------------------------------
    def _all(self) -> dict[str, S]:
        _load_plugins()
        return self._entries

    def loaded(self) -> tuple[S, ...]:
        """The entries registered so far, without importing outside extensions: for a module that reads its
        built-ins while it is being imported (loading an extension then would import that module half-made)."""
        return tuple(self._entries.values())

    def names(self) -> tuple[str, ...]:
        return tuple(self._all())

    def specs(self) -> tuple[S, ...]:
        return tuple(self._all().values())

    def labels(self) -> dict[str, str]:
        return {name: spec.label for name, spec in self._all().items()}

    def help_text(self, sep: str = " | ") -> str:
        return sep.join(self.names())

    def get(self, name: str) -> S:
        """The entry called ``name`` (read by :func:`name_key`: ``Draft-Check`` is ``draft_check``); an unknown
        name raises :class:`UnknownEntry` listing the choices, and says the naming rule when it breaks it."""
        entries = self._all()
        key = name_key(name)
        key = self.aliases.get(key, key)
        try:
            return entries[key]
        except KeyError:
            choices = ", ".join(entries) or "(none registered)"
            rule = "" if _NAME_RE.fullmatch(key) else f" ({NAME_RULE})"
            raise UnknownEntry(f"unknown {self.noun} {name!r}; choose from {choices}{rule}") from None

    def check(self, name: str) -> str:
        """``name`` if registered, else :class:`UnknownEntry` (a ``ValueError`` listing the choices).

        The one validator for every edge: pydantic (``AfterValidator(REGISTRY.check)``) and the CLI
        (``typer.Option(parser=REGISTRY.check)`` — typer 0.29 has no ``click_type``; its parser runs at parse
        time, so entries registered after import are accepted, and a wrong name exits 2 with
        "Invalid value for '--x': … unknown rule 'zz'; choose from …")."""
        return self.get(name).name

    def __contains__(self, name: object) -> bool:
        return name in self._all()  # the exact registered name (use get/check for what a person typed)

    def __iter__(self) -> Iterator[S]:
        return iter(self.specs())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"Registry({self.point!r}, {list(self._entries)})"


def registry(point: str) -> Registry[Any]:
    """The registry of an extension point by its dotted name (imports the owning module on first use)."""
    try:
        module = POINTS[point]
    except KeyError:
        raise UnknownEntry(f"unknown extension point {point!r}; choose from {', '.join(POINTS)}") from None
    found = getattr(importlib.import_module(module), "REGISTRY", None)
    if not isinstance(found, Registry):
        raise TypeError(f"no REGISTRY for {point} in {module}")
    return found


def listing(point: str, as_json: bool = False, extra: Callable[[Any], dict[str, Any]] | None = None) -> str:
    """What ``ifworld beliefs rules`` / ``topologies`` and ``ifworld rws patterns`` print: the docs table of the
    point (Markdown), or with ``as_json`` one object per entry — name, label, help, and ``extra(spec)``."""
    import json

    if not as_json:
        return markdown_table(point)
    return json.dumps([{"name": s.name, "label": s.label, "help": s.help, **(extra(s) if extra else {})}
                       for s in registry(point)], ensure_ascii=False)


def _cell(value: object) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, (list, tuple, set, frozenset)) else str(value)
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(point: str, columns: Mapping[str, Callable[[Any], object]] | None = None) -> str:
    """The docs table of an extension point: one row per entry, in registry order.

    ``columns`` maps a header to a getter; by default the point's module may define ``DOC_COLUMNS`` (same
    shape); otherwise name, label and help. The docs build calls this (``docs/hooks/registry_tables.py``), so
    a table in the docs can never disagree with the registry.
    """
    reg = registry(point)
    if columns is None:
        columns = getattr(importlib.import_module(POINTS[point]), "DOC_COLUMNS", None) or {
            "Name": lambda s: f"`{s.name}`", "Label": lambda s: s.label, "What it does": lambda s: s.help}
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    rows = ["| " + " | ".join(_cell(get(spec)) for get in columns.values()) + " |" for spec in reg]
    return "\n".join([head, rule, *rows])
