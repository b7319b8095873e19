"""AppTest: the Causal map page renders a run's graph, filters it and lists drivers and loops."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ifworld.runs.store import get_store
from tests.whatif.records import sample_record

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/causal_map.py")
    return at.run()


def _save() -> str:
    rec = sample_record()
    run_id = get_store().create_run("whatif", "whatif.ifworld", rec["params"], "What-if: Moon")
    get_store().finish_run(run_id, rec, rec["usage"])
    return run_id


def test_no_runs_message() -> None:
    at = _open()
    assert not at.exception
    assert any("No finished what-if run" in i.value for i in at.info)


def test_renders_graph_tables_and_filters() -> None:
    run_id = _save()
    at = _open()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == run_id
    assert len(at.get("plotly_chart")) == 2  # the map and the domain × domain heatmap
    assert any("Cross-domain causal integration" in m.value for m in at.markdown)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Feedback loops"] == "1" and int(metrics["Nodes"]) == 5
    assert any("reinforcing" in str(df.value.to_dict()) for df in at.dataframe)
    at.multiselect(key=f"causal_domains_{run_id}").set_value(["economics"])
    at.button[0].click().run()  # the form's Apply
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Nodes"] == "2"
    assert any("No feedback loops" in c.value for c in at.caption)


def test_preselects_run_from_session(llm_env) -> None:  # noqa: ANN001
    first = _save()
    _save()
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["causal_run"] = first
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == first


def test_malformed_record_names_run_and_field() -> None:
    rec = sample_record()
    del rec["report"]["causal_map"]["edges"][0]["target"]
    run_id = get_store().create_run("whatif", "whatif.ifworld", rec["params"], "What-if: broken")
    get_store().finish_run(run_id, rec, rec["usage"])
    at = _open()
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"Cannot draw this run's causal map: what-if run {run_id}: field report.causal_map.edges.0.target: "
        "Field required."]
