"""docs/extending.md, "rws": the toy pattern of examples/extending/toy_pattern.py is registered from outside the
package's built-in patterns and is then found everywhere a pattern is listed — the CLI's ``--pattern`` (accepted,
run against the fake server, named in the error's choices), the benchmark page's picker (AppTest), the call
estimate, Table 2's columns and the docs table — with no other edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from ifworld.registry import markdown_table
from ifworld.rws import PATTERN_REGISTRY, benchmark
from ifworld.rws.cli import app
from ifworld.rws.patterns.run import run_pattern
from ifworld.rws.patterns.spec import check_pattern
from ifworld.rws.tables import paper_table2, table2_columns
from tests.fixtures.examples import load_example
from tests.rws.conftest import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy() -> Iterator[str]:
    module = load_example("toy_pattern")
    assert module.SPEC.name not in PATTERN_REGISTRY  # not built in
    module.register()
    try:
        yield module.SPEC.name
    finally:
        PATTERN_REGISTRY.unregister(module.SPEC.name)


def test_the_toy_pattern_runs_with_its_stated_calls(toy, fake_server, settings):
    item = {i.id: i for i in benchmark.load_sample()}["2025_IFW_2_b"]
    result = run_pattern(toy, item, settings, verify=False)  # no LLM verifier calls: the pattern's own only
    assert fake_server.count() == result["calls"] == sum(PATTERN_REGISTRY.get(toy).calls["accept"].values()) == 2
    assert [t["role"] for t in result["trace"]] == [f"rws.{toy}.draft", f"rws.{toy}.check"]
    assert result["pattern"] == toy and result["grade"]["verdict"] in ("incorrect", "not_sure")  # the draft says 42
    # it reuses the single-shot solver's and the PACE critic's prompts, yet is counted (and answered) as itself
    assert fake_server.count(f"rws.{toy}.draft") == fake_server.count(f"rws.{toy}.check") == 1
    assert fake_server.count("rws.single") == fake_server.count("rws.pace") == 0
    assert result["trace"][0]["output"].endswith("Final Answer: 42")  # the spec's demo_answer
    assert result["trace"][1]["parsed"]["confidence"] == 0.9
    assert check_pattern(toy.replace("_", "-")) == toy
    assert benchmark.estimate_calls(3, [toy])[toy] == (6, 6)


def test_a_pattern_without_a_demo_answer_gets_a_schema_valid_generic_one(fake_server, settings):
    """No demo_answer: the JSON role still gets a reply its schema accepts, so the run completes undegraded."""
    module = load_example("toy_pattern")
    bare = module.SPEC.model_copy(update={"name": "bare_check", "demo_answer": None})
    item = {i.id: i for i in benchmark.load_sample()}["2025_IFW_2_b"]
    with PATTERN_REGISTRY.temporarily(bare):
        result = run_pattern("bare_check", item, settings, verify=False)
    assert not result["degraded"] and fake_server.count("rws.bare_check") == 2
    assert [r.rule for r in fake_server.requests] == [None, None]  # nobody's rule: the generic answer


def test_the_cli_accepts_and_runs_the_toy_pattern(toy, llm_env, tmp_path):
    out = tmp_path / "run.json"
    res = CliRunner().invoke(app, ["run", "--pattern", f"single,{toy}", "--data", str(SAMPLE), "--limit", "1",
                                   "--no-verify", "--yes", "--out", str(out)])
    assert res.exit_code == 0, res.output
    record = json.loads(out.read_text())
    assert record["patterns"] == ["single", toy]
    assert {r["pattern"] for r in record["results"]} == {"single", toy}
    bad = CliRunner().invoke(app, ["run", "--pattern", "nope", "--data", str(SAMPLE), "--yes"])
    assert bad.exit_code == 2 and toy in bad.output  # the error lists the registered patterns


def test_table2_and_the_docs_table_include_the_toy_pattern(toy):
    assert list(table2_columns()) == [s.name for s in PATTERN_REGISTRY if s.in_table2]  # registry order
    assert list(table2_columns())[-1] == toy and not PATTERN_REGISTRY.get("single").in_table2  # single: Table 1's
    record = {"workflow": "rws.benchmark", "data": "rws.jsonl", "results": [
        {"item_id": i, "pattern": p, "model": "m", "type": "numeric", "grade": {"verdict": "correct"}}
        for i in "ab" for p in ("schema", toy, "hmaw")]}
    assert list(paper_table2([record]).columns) == ["HMAW", "SCHEMA", "Draft + check"]
    docs = markdown_table("rws.patterns")
    assert f"| `{toy}` | Draft + check | draft, check | 2 | yes |" in docs
    assert docs.index("`schema`") < docs.index(f"`{toy}`")


def test_the_benchmark_page_offers_the_toy_pattern(toy, llm_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.switch_page("app_pages/rws_benchmark.py")
    at.run()
    assert not at.exception, at.exception
    picker = at.multiselect(key="rwsb_patterns")
    assert picker.options[-1] == "Draft + check"  # offered by its label, after the built-ins
    picker.set_value(["single", toy]).run()
    assert not at.exception, at.exception
    assert any("2 patterns" in c.value and "estimated model calls" in c.value for c in at.caption)
    assert "Draft + check" in at.caption[0].value
