"""Typed what-if run parameters (#41 item 1): one model is the source of every default, bound, label and help;
the rounds parameter is declared once; the page and the CLI read it; records saved before it still load; the
driver's recursion limit follows the loop params each method declares."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ifworld import runs
from ifworld.errors import InputError
from ifworld.whatif import METHOD_REGISTRY, MethodSpec, ParamField, RunParams, load_record, param_info, size_fields
from ifworld.whatif.cli import app
from ifworld.whatif.export import record_markdown
from ifworld.whatif.params import default_params

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
SAVED = sorted(DATA.glob("record_before_typed_params_*.json"))
# Every way the what-if rounds' default or bounds were written down before #41 (four places): a bound constant,
# a widget's or field's min/max, a guard on the CLI's value, a typed default, the page's session default.
ROUNDS_DECLARATIONS = [
    r"\b(MIN|MAX|DEFAULT)_ROUNDS\s*=",
    r"(?i)[\"']?\brounds\b[\"']?[^#\n]*\b(ge|le|min_value|max_value)\s*=\s*[0-9A-Z]",
    r"\bif\s+rounds\s*[<>]",
    r"\brounds\s*:\s*Annotated\[[^\n]*\]\s*=\s*\d",
    r"[\"']whatif_rounds[\"']\s*,\s*\d",
]
BEFORE = [  # the lines of the code before #41, which the patterns must find
    "MIN_ROUNDS = 1", "MAX_ROUNDS = 6", "DEFAULT_ROUNDS = 2",
    'c2.number_input("Rounds", min_value=1, max_value=6, key="whatif_rounds")',
    "if rounds < 1:", 'ss.setdefault("whatif_rounds", 2)',
    'rounds: Annotated[int, typer.Option("--rounds", help="Expert rounds (IF-World).")] = 2,',
]


def rounds_declarations() -> list[str]:
    """Lines of ifworld/, ui/ and app_pages/ that declare a bound or default of the what-if rounds (the belief
    engine's ``rounds`` is another parameter, declared once in its BeliefConfig)."""
    found = []
    for folder in ("ifworld", "ui", "app_pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("ifworld/beliefs/"):
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if any(re.search(p, line) for p in ROUNDS_DECLARATIONS):
                    found.append(f"{rel}:{no}")
    return found


def test_the_patterns_find_every_declaration_the_code_had_before():
    for line in BEFORE:
        assert any(re.search(p, line) for p in ROUNDS_DECLARATIONS), line


def test_the_rounds_bounds_are_declared_once():
    found = rounds_declarations()
    assert len(found) == 1 and found[0].startswith("ifworld/whatif/builtin_methods.py:"), found


def test_the_model_holds_todays_defaults_and_bounds():
    assert {n: (i["default"], i["min"], i["max"]) for n in size_fields() for i in [param_info(n)]} == {
        "rounds": (2, 1, 6), "breadth": (3, 1, 6), "depth": (2, 1, 4), "debate_rounds": (2, 1, 6)}
    assert size_fields()["rounds"][1] == "ifworld" and param_info("rounds")["label"] == "Rounds"
    params = default_params("What if?")
    assert (params["rounds"], params["breadth"], params["depth"], params["debate_rounds"]) == (2, 3, 2, 2)
    for key, value, upper in (("rounds", 7, 6), ("rounds", 0, 6), ("depth", 5, 4)):
        with pytest.raises(InputError, match=f"{key} must be an integer from 1 to {upper} \\(got {value}\\)"):
            default_params("What if?", **{key: value})
    with pytest.raises(InputError, match="unknown what-if parameter 'round'"):
        default_params("What if?", round=3)
    with pytest.raises(InputError, match="unknown what-if parameter"):
        param_info("nope")


def test_the_cli_options_come_from_the_model():
    runner = CliRunner()
    for command in ("run", "eval"):
        text = re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", runner.invoke(app, [command, "--help"],
                                                                         env={"COLUMNS": "200"}).output))
        assert "--rounds" in text and "Expert rounds (IF-World). [1–6]" in text and "[default: 2]" in text
    assert "--debate-rounds" not in runner.invoke(app, ["eval", "--help"]).output  # eval offers rounds only
    for argv in (["run", "What if?", "--rounds", "7"], ["eval", "--rounds", "0"]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 2 and "rounds must be an integer from 1 to 6" in result.output, result.output


def test_a_method_declares_its_own_params_and_loops():
    with pytest.raises(ValueError, match="loop_params"):
        MethodSpec(name="x", label="X", build="m:a", initial="m:a", finalize="m:a", estimate="m:a",
                   describe="m:a", loop_params=("steps",))
    with pytest.raises(ValueError, match="outside its bounds"):
        ParamField(default=9, ge=1, le=3, label="Steps")
    base = METHOD_REGISTRY.get("single")
    spec = base.model_copy(update={"name": "stepper", "params": {"steps": ParamField(default=2, ge=1, le=3,
                                                                                     label="Steps")},
                                   "loop_params": ("steps",)})
    with METHOD_REGISTRY.temporarily(spec):
        assert default_params("What if?", "stepper", steps=3)["steps"] == 3
        assert default_params("What if?")["steps"] == 2  # every run carries every method's fields
        with pytest.raises(InputError, match="steps must be an integer from 1 to 3"):
            default_params("What if?", "stepper", steps=4)
    assert "steps" not in size_fields()


def test_the_driver_uses_the_declared_loop_params():
    assert {s.name: s.loop_params for s in METHOD_REGISTRY if s.name in ("ifworld", "single", "tree", "debate")} == {
        "ifworld": ("rounds",), "single": (), "tree": ("depth",), "debate": ("debate_rounds",)}
    wf = runs.get_workflow("whatif.ifworld")
    assert wf.loop_params == ("rounds",)
    assert runs.get_workflow("beliefs.llm").loop_params == ("config.rounds",)

    class Graph:
        nodes = dict.fromkeys(range(40))

    small = runs.recursion_limit(wf, default_params("What if?", rounds=1, breadth=6, depth=4), Graph())
    big = runs.recursion_limit(wf, default_params("What if?", rounds=6, breadth=1, depth=1), Graph())
    assert big - small == 2 * 40 * 5  # rounds count, the tree's breadth and depth do not


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.stem)
def test_records_saved_before_the_typed_params_still_load(path):
    saved = json.loads(path.read_text(encoding="utf-8"))
    rec = load_record(saved)
    assert isinstance(rec.params, RunParams)
    assert rec.params.rounds == saved["params"]["rounds"] and rec.params.method == saved["method"]
    assert rec.model_dump(mode="json")["params"] == saved["params"]  # typed, nothing lost or added
    # today's model accepts them as they were saved (same keys and values)
    assert default_params(**{k: v for k, v in saved["params"].items() if k != "personas"}) == saved["params"]
    assert saved["proposition"] in record_markdown(saved)


def test_a_record_with_old_or_foreign_params_loads_as_it_was_saved():
    rec = load_record({"proposition": "p", "params": {"rounds": 9, "experts": ["gone expert"], "retired": 1}})
    assert (rec.params.rounds, rec.params.experts, rec.params.personas) == (9, ["gone expert"], {})
    assert load_record({"proposition": "p"}).params is None
