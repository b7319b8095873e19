"""The public extension API (issue #41): what docs/extending.md and the toy entries of examples/extending/ import is
public — never a ``_`` name or module — and stated: each name is in its module's ``__all__``. So an extension
written from the docs keeps working as long as those lists do."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "extending").glob("*.py"))


def _ifworld_imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ifworld")
            for alias in node.names]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_imports_only_public_stated_names(path: Path) -> None:
    imported = _ifworld_imports(path)
    assert imported, f"{path.name} imports nothing from ifworld"
    for module, name in imported:
        assert not any(part.startswith("_") for part in [*module.split("."), name]), f"{path.name}: {module}.{name}"
        public = getattr(importlib.import_module(module), "__all__", None)
        assert public is not None, f"{module} states no public names (__all__), yet {path.name} imports from it"
        assert name in public, f"{path.name} imports {name} from {module}, which does not list it in __all__"


def test_the_extending_page_names_no_private_helper() -> None:
    text = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    private = re.findall(r"`[\w.]*\b_[a-z]\w*\(?`|ifworld(?:\.\w+)*\._\w+", text)
    assert not private, private


CONTRACT_TESTS = ["tests/beliefs/test_contracts.py", "tests/rws/test_contracts.py", "tests/whatif/test_contracts.py",
                  "tests/test_registry.py"]
TOY_NAMES = ("star", "stubborn", "draft_check", "best_of_two")  # the toy expert is data: no contract test lists it


def _contract_tests_pick_up_the_toys(cwd: Path, pythonpath: list[Path]) -> None:
    """Run the registry and contract tests as they are (from ``cwd``, ``ifworld`` found first on
    ``pythonpath``): they pass, and their parametrisation lists every toy."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k",
                           "every_registered or one_name_rule", *CONTRACT_TESTS], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", "-k",
                             "every_registered or one_name_rule", *CONTRACT_TESTS], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=600).stdout
    for name in TOY_NAMES:
        assert f"[{name}]" in listed, f"the contract tests did not pick up {name}"


@pytest.mark.slow
def test_the_registry_tests_run_unchanged_on_entries_added_without_an_edit(tmp_path: Path) -> None:
    """Done-when of issue #41, as an installed package does it: the toy entries, copied into a package of their own
    that only declares an ``ifworld.extensions`` entry point (no file of the product edited), are picked up by the
    contract tests as they are — each toy runs through its point's checks like a built-in."""
    import shutil

    site = tmp_path / "site"
    package = site / "ifworld_toys"
    package.mkdir(parents=True)
    for source in (ROOT / "examples" / "extending").iterdir():
        shutil.copy(source, package / source.name)
    toys = sorted(p.stem for p in package.glob("toy_*.py"))
    (package / "__init__.py").write_text("".join(f"from ifworld_toys import {t}\n" for t in toys)
                                         + "".join(f"{t}.register()\n" for t in toys), encoding="utf-8")
    meta = site / "ifworld_toys-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: ifworld-toys\nVersion: 0.1\n", encoding="utf-8")
    (meta / "entry_points.txt").write_text("[ifworld.extensions]\ntoys = ifworld_toys\n", encoding="utf-8")
    _contract_tests_pick_up_the_toys(ROOT, [site, ROOT])


@pytest.mark.slow
def test_a_toy_added_inside_the_tree_touches_only_its_own_files(tmp_path: Path) -> None:
    """Done-when of issue #41, inside the repository: a temporary checkout, each toy's file(s) copied into
    ifworld/extensions/ — git sees those files added and nothing else changed — and the registry and contract
    tests, unchanged, pass and list every toy."""
    import shutil
    import subprocess

    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(checkout)], check=True, timeout=300)
    added = []
    for source in (ROOT / "examples" / "extending").iterdir():
        shutil.copy(source, checkout / "ifworld" / "extensions" / source.name)
        added.append(f"ifworld/extensions/{source.name}")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=checkout,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert sorted(status) == sorted(f"?? {path}" for path in added)  # only the toys' own files
    _contract_tests_pick_up_the_toys(checkout, [checkout])
