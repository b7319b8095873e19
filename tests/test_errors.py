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
BARE = ("ValueError", "RuntimeError", "KeyError")

# (file, start of the message): raises left as the builtin on purpose.
ALLOWED = {
    # internal invariants: the store's callers pass kinds and statuses from the store's own constants
    ("runs/store.py", "unknown run kind"): "a programmer error (kinds come from the workflow registry)",
    ("runs/store.py", "unknown status"): "a programmer error (statuses come from STATUSES), raised twice",
    # caught two lines below in the same function and shown as a usage error (exit 2)
    ("whatif/cli.py", "--repeats and --rounds"): "local control flow of `whatif eval` (file owned by the CLI work)",
    ("figstyle.py", "no human name for the figure colour"): "a programmer error (a palette colour without its name)",
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
    """(builtin, message start) of every ``raise Builtin(...)`` in one file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        call = node.exc
        target = call.func if isinstance(call, ast.Call) else call
        if isinstance(target, ast.Name) and target.id in BARE:
            first = call.args[0] if isinstance(call, ast.Call) and call.args else None
            if isinstance(first, ast.JoinedStr):
                first = first.values[0] if first.values else None
            text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            out.append((target.id, text))
    return out


def test_no_bare_builtin_raises_outside_the_allow_list() -> None:
    found, used = [], set()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for builtin, text in _bare_raises(path):
            key = next((k for k in ALLOWED if k[0] == rel and text.startswith(k[1])), None)
            if key is None:
                found.append(f"{rel}: raise {builtin}({text[:60]!r}…)")
            used.add(key)
    assert found == [], "raise the error of its area (ifworld/errors.py) instead"
    assert set(ALLOWED) <= used, f"stale allow-list entries: {set(ALLOWED) - used}"


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
