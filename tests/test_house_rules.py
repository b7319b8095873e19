"""House rules that keep the layers apart (docs/architecture.md): front doors, no cycles, one model layer."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("whatif", "rws", "beliefs")
INFRASTRUCTURE = ("llm", "runs")
# Top-level helpers any layer may use (no engine, model or store logic in them).
HELPERS = {"ifworld", "ifworld.access", "ifworld.config", "ifworld.errors", "ifworld.files", "ifworld.limits",
           "ifworld.procs",
           "ifworld.redact", "ifworld.safe_text", "ifworld.safe_figure", "ifworld.safe_csv", "ifworld.safe_json",
           "ifworld.safe_yaml", "ifworld.prompts", "ifworld.resources", "ifworld.figstyle", "ifworld.figure_words",
           "ifworld.toolkit",
           "ifworld.registry"}
FRONT_DOORS = {f"ifworld.{name}" for name in ENGINES + INFRASTRUCTURE}
MAX_README_LINES = 200
MAX_MODULE_LINES = 500
PAGE_DOORS = {"ifworld.whatif", "ifworld.rws", "ifworld.beliefs", "ifworld.llm", "ifworld.runs", "ifworld.access",
              "ifworld.toolkit", "ifworld.registry"}
"""The only ``ifworld`` modules ui/ and app_pages/ may import (at most ten: issue #31)."""


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _ifworld_imports(path: Path) -> list[tuple[str, str | None, int]]:
    """(module, imported name or None, line) for every ``ifworld`` import in a file, wherever it stands."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ifworld":
            found += [(node.module, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names if a.name.split(".")[0] == "ifworld"]
    return found


def test_engines_never_import_streamlit() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "ifworld").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_only_the_model_layer_builds_chat_clients() -> None:
    offenders = []
    for p in (ROOT / "ifworld").rglob("*.py"):
        if p.parent.name != "llm" and ({"langchain_openai", "openai"} & _imports(p)):
            offenders.append(str(p.relative_to(ROOT)))
    for p in [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"]:
        if {"langchain_openai", "openai"} & _imports(p):
            offenders.append(str(p.relative_to(ROOT)))
    assert offenders == []


def _consumer_files() -> list[Path]:
    return [*(ROOT / "ui").glob("*.py"), *(ROOT / "app_pages").glob("*.py"), ROOT / "app.py",
            ROOT / "ifworld" / "cli.py"]


def test_the_model_layer_imports_no_engine() -> None:
    """``ifworld.llm`` sits below the engines: no import of ``ifworld.whatif``, ``ifworld.rws`` or
    ``ifworld.beliefs`` anywhere in it (function bodies included), and no back door to one — an engine's dotted
    name handed to ``import_module`` or an extension point's registry looked up by name. What the model layer
    needs from an engine (the demo model's expert words) the engine hands down (issue #41)."""
    engines = {f"ifworld.{e}" for e in ENGINES}
    offenders = []
    for path in sorted((ROOT / "ifworld" / "llm").rglob("*.py")):
        where = path.relative_to(ROOT)
        for module, name, line in _ifworld_imports(path):
            target = f"ifworld.{name}" if module == "ifworld" else module
            if any(target == e or target.startswith(f"{e}.") for e in engines):
                offenders.append(f"{where}:{line}: imports {target}")
            if module == "ifworld.registry" and name in ("registry", "POINTS"):
                offenders.append(f"{where}:{line}: reaches an engine's registry by name")
        tree = _tree(path)
        docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
            n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and any(f"{e}." in node.value or node.value == e for e in engines):
                offenders.append(f"{where}:{node.lineno}: names {node.value!r}")
    assert offenders == []


def test_the_model_layer_rule_catches_an_engine_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule above fails on each way in: a plain import, one inside a function, a door used as a namespace."""
    for source in ("from ifworld.whatif import EXPERTS\n", "def f():\n    import ifworld.rws.dataset\n",
                   "from ifworld import beliefs\n"):
        (tmp_path / "ifworld" / "llm").mkdir(parents=True, exist_ok=True)
        (tmp_path / "ifworld" / "llm" / "leak.py").write_text(source, encoding="utf-8")
        monkeypatch.setitem(globals(), "ROOT", tmp_path)
        with pytest.raises(AssertionError):
            test_the_model_layer_imports_no_engine()


def test_pages_ui_and_cli_enter_engines_through_their_front_doors() -> None:
    """ui/, app_pages/ and ifworld/cli.py import engines and infrastructure only by their front doors, and
    only names those doors export (``__all__``); the one exception is the CLI mounting the engines' own CLIs."""
    offenders = []
    for path in _consumer_files():
        for module, name, line in _ifworld_imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if path.name == "cli.py" and path.parent.name == "ifworld" and module in {
                    f"ifworld.{e}.cli" for e in ENGINES}:
                continue
            if module in HELPERS and not (module == "ifworld" and name in ENGINES + INFRASTRUCTURE):
                continue
            if module == "ifworld" and name in ENGINES + INFRASTRUCTURE:
                continue  # ``from ifworld import rws``: the door itself, used as a namespace
            if module not in FRONT_DOORS:
                offenders.append(f"{where}: imports {module}")
            elif name is not None and name not in importlib.import_module(module).__all__:
                offenders.append(f"{where}: {name} is not exported by {module}")
    assert offenders == []


def test_pages_reach_the_package_through_a_handful_of_doors() -> None:
    """ui/ and app_pages/ import the engines' and infrastructure's front doors, ``ifworld.access`` and the
    helpers' one door ``ifworld.toolkit`` — never a helper file directly (``from ifworld import rws`` counts as
    ``ifworld.rws``)."""
    assert len(PAGE_DOORS) <= 10
    reached, offenders = set(), []
    for path in [p for p in _consumer_files() if p.parent.name in ("ui", "app_pages") or p.name == "app.py"]:
        for module, name, line in _ifworld_imports(path):
            door = f"ifworld.{name}" if module == "ifworld" else module
            reached.add(door)
            if door not in PAGE_DOORS:
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {door}")
    assert offenders == []
    assert len(reached) <= 10, sorted(reached)


def test_no_module_is_over_the_size_limit() -> None:
    """Small modules (house style): no Python file of the package, the pages or the UI over 500 lines."""
    files = [*(ROOT / "ifworld").rglob("*.py"), *(ROOT / "ui").glob("*.py"), *(ROOT / "app_pages").glob("*.py"),
             ROOT / "app.py"]
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in files}
    assert {f: n for f, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_namespace_use_of_a_front_door_stays_inside_all() -> None:
    """``from ifworld import rws`` then ``rws.x``: x must be one of the door's exported names too."""
    offenders = []
    for path in _consumer_files():
        tree = _tree(path)
        doors = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module == "ifworld" for a in node.names if a.name in ENGINES + INFRASTRUCTURE}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in doors:
                exported = importlib.import_module(f"ifworld.{node.value.id}").__all__
                if node.attr not in exported:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert offenders == []


@pytest.mark.parametrize("package", ENGINES + INFRASTRUCTURE + ("rws.grading",))
def test_every_front_door_maps_its_modules_and_resolves_its_exports(package: str) -> None:
    module = importlib.import_module(f"ifworld.{package}")
    assert module.__doc__ and len(module.__doc__.splitlines()) >= 5, "the docstring maps the package's modules"
    assert module.__all__, "the public API is listed in __all__"
    missing = [name for name in module.__all__ if getattr(module, name, None) is None]
    assert missing == []


GRAPHED = ("ifworld", "ui", "app_pages")
"""The packages the no-cycle rule covers (with ``app.py``, the entry file)."""


def _graphed_modules() -> dict[str, Path]:
    found = {_module_name(p): p for top in GRAPHED for p in (ROOT / top).rglob("*.py")}
    return {**found, "app": ROOT / "app.py"}


def _local_imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, imported name or None) for every import of a graphed package in a file, wherever it stands."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in GRAPHED:
            found += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.split(".")[0] in GRAPHED]
    return found


def _module_graph() -> nx.DiGraph:
    """The modules of ifworld/, ui/, app_pages/ and app.py and their imports (wherever they stand, function
    bodies included). Importing a module runs the ``__init__`` of every package above it first, so an edge also
    goes to each of those — except the packages above the importing module itself, which are already
    initialised when it runs."""
    modules = _graphed_modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name in modules:
        own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
        for module, imported in _local_imports(modules[name]):
            target = f"{module}.{imported}" if imported and f"{module}.{imported}" in modules else module
            parts = target.split(".")
            for enclosing in (".".join(parts[:i]) for i in range(1, len(parts) + 1)):
                if enclosing in modules and enclosing not in own:
                    graph.add_edge(name, enclosing)
    return graph


def test_no_import_cycles() -> None:
    """No cycle among the modules of ifworld/, ui/ and app_pages/ (docs/architecture.md, "No cycles")."""
    graph = _module_graph()
    assert {"ui.common", "ui.connection_view", "app_pages.whatif", "app", "ifworld.whatif"} <= set(graph)
    assert graph.has_edge("ui.connection_view", "ui.common")  # the walk sees ui/'s own imports
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], "\n".join(" -> ".join(c + c[:1]) for c in cycles[:10])


def test_progress_events_share_one_base() -> None:
    """Every typed progress payload (a model with a ``kind`` and a ``node``) derives from the one
    :class:`ifworld.runs.events.ProgressEvent`; no engine defines its own base again."""
    from pydantic import BaseModel

    from ifworld.runs.events import ProgressEvent

    payloads = []
    for name in ("ifworld.runs.events", *(f"ifworld.{e}.records" for e in ENGINES if (ROOT / "ifworld" / e /
                                                                                        "records.py").exists())):
        module = importlib.import_module(name)
        payloads += [cls for cls in vars(module).values() if isinstance(cls, type) and issubclass(cls, BaseModel)
                     and cls.__module__ == name and {"kind", "node"} <= set(cls.model_fields)]
    assert len(payloads) >= 12  # the walk found the what-if and belief events and the partial outputs
    assert [cls.__qualname__ for cls in payloads if not issubclass(cls, ProgressEvent)] == []
    bases = [p for p in (ROOT / "ifworld").rglob("*.py") if any(
        isinstance(n, ast.ClassDef) and n.name in ("_Progress", "ProgressBase") for n in ast.walk(_tree(p)))]
    assert bases == []


def test_engine_clis_are_registered_explicitly() -> None:
    """The ``ifworld`` command mounts each engine's CLI by an import a reader (and an IDE) can follow."""
    cli = _tree(ROOT / "ifworld" / "cli.py")
    mounted = {node.module for node in ast.walk(cli) if isinstance(node, ast.ImportFrom)
               and node.module and node.module.endswith(".cli") and any(a.name == "app" for a in node.names)}
    assert mounted == {f"ifworld.{e}.cli" for e in ENGINES}
    assert "import_module" not in (ROOT / "ifworld" / "cli.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_share_one_skeleton(engine: str) -> None:
    """The same file names for the same jobs in every engine (docs/architecture.md)."""
    present = {p.stem for p in (ROOT / "ifworld" / engine).glob("*.py")}
    assert {"__init__", "cli", "workflows", "records"} <= present
    assert not present & {"models", "pipeline", "llm_cli", "params_cli", "bench_cli", "llm_graph"}


def test_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_prompts_render_strictly() -> None:
    from ifworld import prompts

    for name in prompts.names():
        for section in prompts.sections(name):
            fields = prompts.fields(name, section)
            text = prompts.render(name, section, **{f: f"<{f}>" for f in fields})
            assert text.strip(), (name, section)
