"""docs/extending.md, "methods": the toy method of examples/extending/toy_method.py is registered from outside the
package's built-in methods and is then found everywhere a method is listed — ``ifworld whatif run --method``
(accepted, run against the fake server, named in the error's choices), the judge and the exports of its record,
the evaluation's presets and comparison tables (registry order), the estimate and the live step labels, the
What-if page's method picker (AppTest) and the docs table — with no other edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from ifworld.registry import markdown_table
from ifworld.whatif import METHOD_REGISTRY, describe, estimate, load_record, record_steps, step_label
from ifworld.whatif.cli import app
from ifworld.whatif.evaluate import SCORE_COLUMNS, resolve_methods, tables
from ifworld.whatif.export import record_html, record_markdown
from ifworld.whatif.params import default_params
from ifworld.whatif.rubric import blind
from tests.fixtures.examples import load_example

ROOT = Path(__file__).resolve().parents[2]
PROP = "What if the Moon disappeared?"


@pytest.fixture
def toy() -> Iterator[str]:
    module = load_example("toy_method")
    assert module.SPEC.name not in METHOD_REGISTRY  # not built in
    module.register()
    try:
        yield module.SPEC.name
    finally:
        METHOD_REGISTRY.unregister(module.SPEC.name)


def test_the_cli_runs_the_toy_method_and_the_judge_and_exports_take_its_record(toy, llm_env, tmp_path):
    runner = CliRunner()
    out = tmp_path / "run.json"
    res = runner.invoke(app, ["run", PROP, "--method", toy, "--out", str(out)])
    assert res.exit_code == 0, res.output
    record = json.loads(out.read_text())
    assert record["method"] == toy and record["usage"]["calls"] == 2
    assert [c["role"] for c in record["calls"]] == ["whatif.best_of_two.draft"] * 2
    # it reuses the single agent's prompt, yet is counted and answered as its own role (its spec's demo_answer)
    assert llm_env.count("whatif.best_of_two.draft") == 2 and llm_env.count("whatif.single") == 0
    rec = load_record(record)
    assert rec.report is not None and rec.report.natural and PROP in rec.report.markdown
    assert record_steps(rec)[-1].label == "Best of two — the kept answer"
    assert PROP in record_markdown(record) and "<html" in record_html(record).lower()
    judged = runner.invoke(app, ["judge", str(out)])
    assert judged.exit_code == 0, judged.output
    assert 0 <= json.loads(judged.stdout)["overall"] <= 100
    bad = runner.invoke(app, ["run", PROP, "--method", "nope"])
    assert bad.exit_code == 2 and toy in bad.output  # the error lists the registered methods


def test_estimates_labels_and_blinding_come_from_the_spec(toy):
    params = default_params(PROP, toy)
    assert estimate(params).calls == 2 and estimate(params).tokens == 2 * 3_600
    assert describe(params).startswith("best of two")
    assert step_label("pick", 1) == "Best of two — keeping the more detailed answer"
    assert "Best of two" not in blind("Best-of-two kept the longer draft.")


def test_the_comparison_tables_list_the_toy_method_in_registry_order(toy):
    assert toy in resolve_methods("all") and toy not in resolve_methods("paper")
    assert resolve_methods(f"{toy},ifworld") == [toy, "ifworld"]
    rows = [{"method": m, "topic": t, "status": "ok", "calls": 2, "tokens": 1_000,
             **{c: 10.0 + i for c in SCORE_COLUMNS}}
            for t in (1, 2) for i, m in enumerate([toy, "single", "ifworld", "debate"])]
    result = tables(pd.DataFrame(rows))
    in_registry_order = [m for m in METHOD_REGISTRY.names() if m in {toy, "single", "ifworld", "debate"}]
    assert in_registry_order[-1] == toy  # registered after the built-ins
    assert list(result.macro.index) == in_registry_order == list(result.per_topic.columns)
    assert result.macro.loc[toy, "budget"] == "unmatched"  # a baseline of fixed size


def test_the_docs_table_and_the_what_if_page_offer_the_toy_method(toy, llm_env):
    docs = markdown_table("whatif.methods")
    assert f"| `{toy}` | Best of two drafts | baseline | 2 |" in docs and docs.index("`debate`") < docs.index(toy)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("app_pages/whatif.py")
    at.run()
    assert not at.exception, at.exception
    picker = at.radio(key="whatif_method")
    assert picker.options == [s.label for s in METHOD_REGISTRY] and picker.options[-1] == "Best of two drafts"
