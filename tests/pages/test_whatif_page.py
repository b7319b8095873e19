"""AppTest: the What-if page without a model, and a full small run against the fake server."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ifworld.runs.store import get_store
from tests.whatif.records import sample_record

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("app_pages/whatif.py")
    return at.run()


def _button(at: AppTest, label: str):  # noqa: ANN202
    return next(b for b in at.button if b.label.startswith(label))


def test_without_model_shows_panel_and_opens_saved_runs() -> None:
    store = get_store()
    rec = sample_record()
    run_id = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if (ifworld): Moon")
    store.finish_run(run_id, rec, rec["usage"])
    at = _open()
    assert not at.exception
    assert any("needs a language model" in i.value for i in at.info)
    assert _button(at, "▶️ Start run").disabled
    at.selectbox(key="whatif_saved").set_value(run_id).run()
    at.button(key="whatif_open").click().run()
    assert not at.exception
    assert any("Executive verdict" in m.value for m in at.markdown)
    assert at.session_state["causal_run"] == run_id


def test_invalid_proposition_shows_engine_error(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.text_area(key="whatif_prop").set_value("   ")
    _button(at, "🧮 Apply and estimate").click().run()
    assert not at.exception
    assert any("proposition is empty" in e.value for e in at.error)


def test_quick_preset_fits_the_topic_and_any_domain_is_accepted(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.text_area(key="whatif_prop").set_value("What if our school moved to a four-day week?")
    _button(at, "🧮 Apply and estimate").click().run()  # the form commits the proposition
    at.button(key="whatif_quick").click().run()
    assert at.multiselect(key="whatif_experts").value == ["education", "sociology"]
    at.text_input(key="whatif_custom").set_value("urban planning")
    _button(at, "🧮 Apply and estimate").click().run()
    assert not at.exception and not at.error
    assert any("3 experts" in c.value for c in at.caption)


def test_estimate_and_full_small_run(llm_env) -> None:  # noqa: ANN001
    at = _open()
    assert not at.exception and not _button(at, "▶️ Start run").disabled
    at.selectbox(key="whatif_preset").set_value(next(o for o in at.selectbox(key="whatif_preset").options
                                                     if "Moon" in o)).run()
    at.button(key="whatif_quick").click().run()
    assert at.multiselect(key="whatif_experts").value == ["physics", "biology/ecology"]
    assert any("model calls" in c.value and "tokens" in c.value for c in at.caption)
    _button(at, "▶️ Start run").click().run()
    assert not at.exception, at.exception
    run_id = at.session_state["whatif_run_id"]
    info = get_store().get_run(run_id)
    assert info.status == "completed" and info.params["rounds"] == 1
    assert "Moon" in info.params["proposition"]
    text = " ".join(m.value for m in at.markdown)
    assert "Executive verdict" in text and "Calibration ranges" in text
    assert len(at.get("plotly_chart")) >= 2
    assert "Deliberation after round 1" in text and "Consensus" in text  # the deliberation view
    assert "✅ Branch probabilities sum to 100 ± 1 %" in text  # the consistency checks, each marked
    assert sum("Deliberation after round 1" in m.value for m in at.markdown) == 1  # live blocks cleared
    # judge the finished run
    _button(at, "⚖️ Judge this run").click().run()
    assert not at.exception
    assert (get_store().get_run(run_id).record or {}).get("judge")


def test_failed_run_shows_error_and_resumes(llm_env) -> None:  # noqa: ANN001
    llm_env.inject("500", times=1, match=r"Agent role: whatif\.refiner")
    at = _open()
    at.button(key="whatif_quick").click().run()
    _button(at, "▶️ Start run").click().run()
    assert not at.exception, at.exception
    run_id = at.session_state["whatif_run_id"]
    assert get_store().get_run(run_id).status == "failed"
    assert any("The run stopped" in e.value for e in at.error)
    at.button(key="whatif_resume").click().run()
    assert not at.exception, at.exception
    assert get_store().get_run(run_id).status == "completed"
    assert any("Executive verdict" in m.value for m in at.markdown)


def test_review_pause_edit_then_participant_between_rounds(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.multiselect(key="whatif_experts").set_value(["physics", "economics"])
    at.number_input(key="whatif_rounds").set_value(2)
    at.toggle(key="whatif_review").set_value(True)
    at.toggle(key="whatif_pause_between_rounds").set_value(True)
    _button(at, "▶️ Start run").click().run()
    assert not at.exception, at.exception
    run_id = at.session_state["whatif_run_id"]
    assert get_store().get_run(run_id).status == "paused"
    assert any("Paused before any expert runs" in i.value for i in at.info)
    key = f"whatif_pause_{run_id}"
    at.text_area(key=f"{key}_prem").set_value("the Moon vanishes at noon UTC")
    at.text_input(key=f"{key}_extra").set_value("urban planning")
    _button(at, "✏️ Apply edits and continue").click().run()
    assert not at.exception, at.exception
    assert get_store().get_run(run_id).status == "paused"  # now between rounds 1 and 2
    assert any("Paused after round 1" in i.value for i in at.info)
    text = " ".join(m.value for m in at.markdown)
    assert "Deliberation after round 1" in text  # round 1 stays visible while paused
    at.text_area(key=f"{key}_text").set_value("The school gym can shelter 300 people.")
    _button(at, "▶️ Continue").click().run()
    assert not at.exception, at.exception
    info = get_store().get_run(run_id)
    assert info.status == "completed" and info.record["panel"] == ["physics", "economics", "urban planning"]
    assert info.record["scenario"]["premises"] == ["the Moon vanishes at noon UTC"]
    assert "The school gym can shelter 300 people." in info.record["report"]["markdown"]


def test_cancel_at_a_pause_then_resume_pauses_again(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.button(key="whatif_quick").click().run()
    at.toggle(key="whatif_review").set_value(True)
    _button(at, "▶️ Start run").click().run()
    run_id = at.session_state["whatif_run_id"]
    assert get_store().get_run(run_id).status == "paused"
    _button(at, "⏹️ Cancel run").click().run()
    assert not at.exception, at.exception
    assert get_store().get_run(run_id).status == "cancelled"
    at.run()
    at.button(key="whatif_resume").click().run()  # a cancelled pause resumes into the same pause
    assert not at.exception, at.exception
    assert get_store().get_run(run_id).status == "paused"
    assert any("Paused before any expert runs" in i.value for i in at.info)


def test_baseline_runs_follow_live_to_the_end(llm_env) -> None:  # noqa: ANN001
    """Tree and debate runs stream their own typed step events into the live view and finish."""
    for method in ("debate", "tree"):
        at = _open()
        at.selectbox(key="whatif_preset").set_value(next(o for o in at.selectbox(key="whatif_preset").options
                                                         if "Moon" in o)).run()
        at.button(key="whatif_quick").click().run()
        at.radio(key="whatif_method").set_value(method)
        _button(at, "▶️ Start run").click().run()
        assert not at.exception, at.exception
        info = get_store().get_run(at.session_state["whatif_run_id"])
        assert (info.workflow, info.status) == (f"whatif.{method}", "completed")
