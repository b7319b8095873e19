"""One error tree: every exception class in ifworld/ derives from IFWorldError, and no bare builtin is raised."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import ifworld
from ifworld import errors
from ifworld.errors import IFWorldError

ROOT = Path(ifworld.__file__).parent
BARE = ("Exception", "ValueError", "RuntimeError", "KeyError", "TypeError", "LookupError", "IndexError",
        "AttributeError", "AssertionError", "NotImplementedError", "OSError", "FileNotFoundError", "PermissionError")
"""Builtins the package never raises itself: an area's class of ifworld/errors.py (which also derives from the
builtin callers catch) says what went wrong and what to do."""

# (file, start of the message): builtins left on purpose, each a programmer error no user or extension can cause.
ALLOWED = {
    ("runs/store.py", "unknown run kind"): "kinds come from the workflow registry, never from a user",
    ("runs/store.py", "unknown status"): "statuses come from the store's STATUSES (raised twice)",
    ("figstyle.py", "no human name for the figure colour"): "a palette colour added without its name",
    ("registry.py", "no REGISTRY for"): "a module in the registry's own POINTS table that defines no registry",
    ("whatif/method_spec.py", "method "): "the engine calling an optional hook by name without checking it is set",
}
NOT_ERRORS = {
    "ifworld.stopping.Stopping": "a KeyboardInterrupt on purpose: a process told to stop must not have its worker "
                                 "threads' `except Exception` turn the stop into a degraded answer a resume keeps",
}


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages([str(ROOT)], prefix="ifworld."))


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                  if issubclass(cls, BaseException) and cls.__module__ == name]
    return found


def test_every_exception_class_derives_from_ifworld_error() -> None:
    classes = _exception_classes()
    assert len(classes) >= 30  # the walk found the package's classes (not an empty import)
    strays = [f"{cls.__module__}.{cls.__qualname__}" for cls in classes if not issubclass(cls, IFWorldError)]
    assert sorted(set(strays) - set(NOT_ERRORS)) == []
    for name in NOT_ERRORS:  # each exception to the tree is no Exception at all (else it belongs in the tree)
        cls = next(c for c in classes if f"{c.__module__}.{c.__qualname__}" == name)
        assert not issubclass(cls, Exception), name


@pytest.mark.parametrize("name", errors.__all__)
def test_the_tree_module_lists_its_areas(name: str) -> None:
    assert issubclass(getattr(errors, name), IFWorldError)
    assert getattr(errors, name).__doc__


def _bare_raises(path: Path) -> list[tuple[str, str]]:
    """(builtin, message start) of every builtin exception in :data:`BARE` that one file raises or builds —
    ``raise ValueError(...)``, ``raise ValueError`` and a helper's ``return RuntimeError(...)`` alike."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name) and node.exc.id in BARE:
            out.append((node.exc.id, ""))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BARE:
            first = node.args[0] if node.args else None
            if isinstance(first, ast.JoinedStr):
                first = first.values[0] if first.values else None
            text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            out.append((node.func.id, text))
    return out


def test_no_bare_builtin_raises_outside_the_allow_list() -> None:
    found, used = [], set()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for builtin, text in _bare_raises(path):
            key = next((k for k in ALLOWED if k[0] == rel and text.startswith(k[1])), None)
            if key is None:
                found.append(f"{rel}: {builtin}({text[:60]!r}…)")
            used.add(key)
    assert found == [], "raise the error of its area (ifworld/errors.py) instead"
    assert set(ALLOWED) <= used, f"stale allow-list entries: {set(ALLOWED) - used}"
    assert len(ALLOWED) <= 5, "the allow list is for programmer errors only: keep it short"


def test_the_scan_sees_every_way_a_builtin_is_raised(tmp_path: Path) -> None:
    """The scan is not fooled by a helper that builds the error, a bare class or a name outside the old three."""
    sample = tmp_path / "sample.py"
    sample.write_text('def _fail(x):\n    return RuntimeError(f"{x} failed")\n\n'
                      'def f():\n    raise TypeError("bad")\n\ndef g():\n    raise AssertionError\n', "utf-8")
    assert sorted(_bare_raises(sample)) == [("AssertionError", ""), ("RuntimeError", ""), ("TypeError", "bad")]


def test_leaves_keep_the_builtin_callers_catch(tmp_path: Path) -> None:
    from ifworld.beliefs.config import BeliefConfig, ConfigError
    from ifworld.runs.registry import UnknownWorkflow, get_workflow
    from ifworld.runs.store import RunNotFound, RunStore

    assert ConfigError is errors.BeliefConfigError
    with pytest.raises(ConfigError) as err:
        BeliefConfig(agents=0)
    assert isinstance(err.value, ValueError) and isinstance(err.value, errors.ConfigError)
    with pytest.raises(UnknownWorkflow) as err2:
        get_workflow("demo.nope")
    assert isinstance(err2.value, KeyError) and isinstance(err2.value, errors.WorkflowError)
    store = RunStore(tmp_path / "runs.sqlite")
    with pytest.raises(RunNotFound) as err3:
        store.get_run("whatif-nope")
    assert isinstance(err3.value, KeyError) and err3.value.args == ("no run with id 'whatif-nope'",)
    store.close()
