"""The registry primitive every extension point uses (tests of each point live beside its engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest
import typer
from pydantic import ValidationError
from typer.testing import CliRunner

from ifworld.errors import InputError
from ifworld.registry import (
    ENTRY_POINT_GROUP,
    POINTS,
    DuplicateEntry,
    Registry,
    Spec,
    UnknownEntry,
    markdown_table,
    plugin_errors,
    registry,
)
from scripts.mkdocs_registry_tables import fill_registry_tables

ROOT = Path(__file__).resolve().parent.parent


class ToySpec(Spec):
    calls: int = 1


def test_register_get_and_order() -> None:
    reg: Registry[ToySpec] = Registry("toy.things", ToySpec)
    reg.register(ToySpec(name="b", label="Bee"))
    reg.register(ToySpec(name="a", label="Ay", calls=3))
    assert reg.names() == ("b", "a")  # registration order, not alphabetical
    assert reg.get("a").calls == 3 and reg.labels() == {"b": "Bee", "a": "Ay"}
    assert "a" in reg and "z" not in reg and len(reg) == 2


def test_unknown_and_duplicate_names_are_clear_input_errors() -> None:
    reg: Registry[ToySpec] = Registry("toy.things", ToySpec)
    reg.register(ToySpec(name="one", label="One"))
    with pytest.raises(UnknownEntry, match=r"unknown thing 'two'; choose from one") as err:
        reg.get("two")
    assert isinstance(err.value, InputError) and str(err.value).startswith("unknown")
    with pytest.raises(DuplicateEntry):
        reg.register(ToySpec(name="one", label="Again"))
    reg.register(ToySpec(name="one", label="Again"), replace=True)
    assert reg.get("one").label == "Again"


@pytest.mark.parametrize("name", ["", "Upper", "with space", "1st", "x" * 41, "<b>"])
def test_names_are_identifiers(name: str) -> None:
    with pytest.raises(ValidationError):
        ToySpec(name=name, label="x")


def test_wrong_spec_type_is_refused() -> None:
    reg: Registry[ToySpec] = Registry("toy.things", ToySpec)
    with pytest.raises(TypeError):
        reg.register(Spec(name="plain", label="Plain"))  # type: ignore[arg-type]


CLI_THINGS: Registry[ToySpec] = Registry("toy.things", ToySpec)  # module level: typer resolves annotations late
CLI_THINGS.register(ToySpec(name="early", label="Early"))


def test_cli_parser_is_live_and_lists_the_choices() -> None:
    reg = CLI_THINGS
    app = typer.Typer()

    @app.command()
    def pick(thing: Annotated[str, typer.Option(parser=CLI_THINGS.check)] = "early") -> None:
        print("picked", thing)

    @app.command()
    def other() -> None: ...

    with reg.temporarily(ToySpec(name="late", label="Late")):  # registered after the command was built
        assert "picked late" in CliRunner().invoke(app, ["pick", "--thing", "late"]).output
    refused = CliRunner().invoke(app, ["pick", "--thing", "late"])
    said = " ".join(refused.output.replace("│", " ").split())  # rich draws the error in a box
    assert refused.exit_code == 2 and "unknown thing 'late'; choose from early" in said


def test_unknown_point_fails_the_docs_hook() -> None:
    with pytest.raises(UnknownEntry, match="extension point"):
        fill_registry_tables("<!-- registry-table: nowhere.things -->")
    with pytest.raises(UnknownEntry):
        markdown_table("nowhere.things")


@pytest.mark.parametrize("point", sorted(POINTS))
def test_every_extension_point_is_a_filled_registry_with_a_generated_docs_table(point: str) -> None:
    """Each point of DESIGN.md's list resolves to its module's REGISTRY, has built-in entries, and its table on
    docs/extending.md is generated from it (a marker, never a hand-written list)."""
    reg = registry(point)
    assert reg.point == point and len(reg) > 0
    table = markdown_table(point)
    assert all(f"`{name}`" in table or name in table for name in reg.names())
    assert f"<!-- registry-table: {point} -->" in (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")


def test_an_outside_extension_that_fails_to_load_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed package's entry point that raises on import is listed (Settings page) and the registries
    still answer."""
    import ifworld.registry as reg_module

    class BrokenEntryPoint:
        name, value = "school_pack", "school_pack.experts"

        def load(self) -> None:
            raise ImportError("No module named 'school_pack'")

    monkeypatch.setattr(reg_module, "_plugins_loaded", False)
    monkeypatch.setattr(reg_module, "_plugin_errors", [])
    monkeypatch.setattr(reg_module, "entry_points", lambda group: [BrokenEntryPoint()] if group == ENTRY_POINT_GROUP
                        else [])
    assert registry("rws.patterns").names()  # listing loads the plugins, and still works
    assert plugin_errors() == ["extension 'school_pack' (school_pack.experts) could not be loaded: ImportError: "
                               "No module named 'school_pack'"]


def test_an_in_tree_extension_is_registered_after_the_built_ins_and_a_broken_one_is_reported(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # noqa: ANN001
    """ifworld/extensions/: each module's register() is called when a registry is first listed, after the
    built-ins; one that fails to import, or has no register(), is named (Settings page) and nothing else stops."""
    import sys

    import ifworld.extensions
    import ifworld.registry as reg_module

    (tmp_path / "a_ring.py").write_text(
        "import networkx as nx\n"
        "from ifworld.beliefs import TOPOLOGIES, TopologySpec\n"
        "def register():\n"
        "    return TOPOLOGIES.register(TopologySpec(name='in_tree_ring', label='In-tree ring',\n"
        "        graph=lambda agents, degree, rewire, seed: nx.cycle_graph(agents), edges=lambda a, d: a))\n",
        encoding="utf-8")
    (tmp_path / "b_broken.py").write_text("raise RuntimeError('a typo in the file')\n", encoding="utf-8")
    (tmp_path / "c_no_register.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "_private.py").write_text("raise SystemExit('never imported')\n", encoding="utf-8")
    monkeypatch.setattr(ifworld.extensions, "__path__", [str(tmp_path)])
    monkeypatch.setattr(reg_module, "_plugins_loaded", False)
    monkeypatch.setattr(reg_module, "_plugin_errors", [])
    monkeypatch.setattr(reg_module, "entry_points", lambda group: [])
    topologies = registry("beliefs.topologies")
    try:
        names = topologies.names()
        assert names[-1] == "in_tree_ring" and len(names) > 1  # after every built-in
        assert plugin_errors() == [
            "extension 'b_broken' (ifworld/extensions/b_broken.py) could not be loaded: RuntimeError: a typo in the "
            "file",
            "extension 'c_no_register' (ifworld/extensions/c_no_register.py) could not be loaded: InputError: it has "
            "no register() function"]
    finally:
        topologies.unregister("in_tree_ring")
        for name in ("a_ring", "b_broken", "c_no_register"):
            sys.modules.pop(f"ifworld.extensions.{name}", None)


@pytest.mark.parametrize("point", sorted(POINTS))
def test_one_name_rule_in_every_registry(point: str) -> None:
    """Every extension point checks names in one place (ifworld/registry.py): a bad name is refused with the rule
    stated, and a typed name is read the same way (hyphens as underscores, any case) by every registry."""
    from ifworld.registry import NAME_RULE, BadName, check_name, name_key

    reg = registry(point)
    spec = reg.specs()[-1]
    with pytest.raises(ValidationError, match="naming rule"):
        type(spec).model_validate({**spec.model_dump(), "name": "my-entry"})
    assert reg.check(spec.name.upper().replace("_", "-")) == spec.name
    with pytest.raises(UnknownEntry, match="lower-case letters") as err:
        reg.check("no such/thing")
    assert NAME_RULE in str(err.value)
    with pytest.raises(BadName, match=r"'Bad Name' breaks the naming rule: a name is 1-40 characters"):
        check_name("Bad Name")
    assert name_key(" Draft-Check ") == "draft_check"


def test_a_hyphenated_rule_and_pattern_are_read_alike() -> None:
    """The issue's case: ``--pattern`` accepted hyphens and ``--rule`` refused them; now both read them."""
    from ifworld.beliefs import BeliefConfig
    from ifworld.rws.patterns.spec import check_pattern

    assert BeliefConfig(topology="small-world", degree=4).topology == "small_world"
    assert check_pattern("single-shot") == "single" and check_pattern("HMAW") == "hmaw"
