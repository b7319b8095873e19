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
