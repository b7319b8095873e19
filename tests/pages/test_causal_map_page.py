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
    at.session_state["current_run"] = first
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


def _save_baseline() -> str:
    """A debate baseline's record: a report in its own words, no causal edges."""
    rec = {"proposition": "What if the Moon disappeared?", "method": "debate", "params": {}, "usage": {},
           "rounds": [], "report": {"natural": True, "markdown": "# What if the Moon disappeared?\n\nIt depends."}}
    run_id = get_store().create_run("whatif", "whatif.debate", {}, "Debate: Moon")
    get_store().finish_run(run_id, rec, {})
    return run_id


def test_a_run_link_opens_that_run_and_shows_its_own_link() -> None:
    first = _save()
    _save()
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["run"] = first
    at.context["url"] = "http://school.example:8501/"
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == first and at.session_state["current_run"] == first
    assert any(c.value == f"http://school.example:8501/causal_map?run={first}" for c in at.code)


def test_a_link_to_an_unknown_or_hostile_id_is_reported_as_text() -> None:
    newest = _save()
    hostile = "<script>alert(1)</script>"
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["run"] = hostile
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    assert any("names a run this app has not saved" in w.value for w in at.warning)
    assert [t.value for t in at.text] == [hostile]
    assert at.selectbox(key="causal_pick").value == newest
    assert not any("<script>" in m.value for m in at.markdown)


def test_follows_the_run_opened_on_the_runs_page() -> None:
    """Open an older run on the Runs page, then the Causal map: it shows that run, not the newest."""
    older = _save()
    _save()
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/runs.py")
    at.run()
    at.selectbox(key="runs_open").set_value(older).run()
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == older


def test_a_run_without_edges_says_so_and_offers_the_newest_that_has_them() -> None:
    mapped = _save()
    baseline = _save_baseline()  # the newest run, and the one the user was looking at
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["current_run"] = baseline
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == baseline
    assert any("recorded no causal edges" in i.value for i in at.info)
    at.button(key="causal_newest").click().run()
    assert not at.exception
    assert at.selectbox(key="causal_pick").value == mapped and at.session_state["current_run"] == mapped
    assert len(at.get("plotly_chart")) == 2
