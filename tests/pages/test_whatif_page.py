"""AppTest: the What-if page renders from its session's state — exactly that state's controls, nothing older.

Runs are driven by a background thread of the app, so each test waits for the session to reach a state (a
condition on the store, polled) and then reruns the page, as the page's own refresh would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ifworld import whatif
from ifworld.runs.store import get_store
from ifworld.whatif import RUNNING, Session, State
from tests.security.helpers import wait_for_session
from tests.whatif.records import sample_record

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
WAIT_S = 90.0
# The exact controls each state draws (besides the sidebar's connection test).
DRAFT = {"⚡ Quick preset: 2 experts, 1 round", "🧮 Apply and estimate", "▶️ Start run", "Open", "➕ Add expert",
         "🗑️ Delete expert"}  # the last two: 'Add an expert' (the facilitator's; AppTest is on loopback)
RUNNING_CONTROLS = {"➕ New what-if", "⏹️ Cancel run", "👥 Open workshop"}
REVIEW = {"➕ New what-if", "▶️ Continue unchanged", "✏️ Apply edits and continue", "⏹️ Cancel run", "👥 Open workshop"}
BETWEEN = {"➕ New what-if", "▶️ Continue", "⏹️ Cancel run", "👥 Open workshop"}
COMPLETED = {"➕ New what-if", "⚖️ Judge this run"}
STOPPED = {"➕ New what-if", "🔁 Resume"}


def _open(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("app_pages/whatif.py")
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def _button(at: AppTest, label: str):  # noqa: ANN202
    return next(b for b in at.button if b.label.startswith(label))


def _controls(at: AppTest) -> set[str]:
    """The page's own buttons (the sidebar's — Test connection, Use the demo model — are not the run's)."""
    return {b.label for b in at.button} - {b.label for b in at.sidebar.button}


def _wait(at: AppTest, until: Callable[[Session], bool]) -> Session:
    return wait_for_session(at, until, WAIT_S)


def _settled(at: AppTest) -> Session:
    return _wait(at, lambda s: s.state not in RUNNING)


def _text(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def _start(at: AppTest, **toggles: bool) -> None:
    for key, value in toggles.items():
        at.toggle(key=f"whatif_{key}").set_value(value)
    _button(at, "▶️ Start run").click().run()
    assert not at.exception, at.exception


def test_without_model_shows_panel_and_opens_saved_runs() -> None:
    store = get_store()
    rec = sample_record()
    run_id = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if (ifworld): Moon")
    store.finish_run(run_id, rec, rec["usage"])
    at = _open()
    assert not at.exception
    assert any("A language model is needed for" in i.value for i in at.info)
    assert _button(at, "▶️ Start run").disabled
    assert _controls(at) == DRAFT
    at.selectbox(key="whatif_saved").set_value(run_id).run()
    at.button(key="whatif_open").click().run()
    assert not at.exception
    assert any("Executive verdict" in m.value for m in at.markdown)
    assert at.session_state["current_run"] == run_id and at.query_params["run"] == run_id
    assert _controls(at) == COMPLETED and _button(at, "⚖️ Judge this run").disabled  # no model: no judge


def test_a_run_link_opens_the_run_and_a_bad_link_is_named() -> None:
    store = get_store()
    rec = sample_record()
    run_id = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if (ifworld): Moon")
    store.finish_run(run_id, rec, rec["usage"])
    at = _open({"run": run_id})
    assert not at.exception and any("Executive verdict" in m.value for m in at.markdown)
    assert any(f"?run={run_id}" in c.value for c in at.code)
    at = _open({"run": "<script>alert(1)</script>"})
    assert not at.exception and _controls(at) == DRAFT
    from ifworld.safe_text import live_elements

    named = [w.value for w in at.warning if "There is no saved run" in w.value]
    assert named and "`<script>alert(1)</script>`" in named[0]  # shown as code: the id as typed, inert
    assert not live_elements(named[0])


def test_invalid_proposition_shows_engine_error(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.text_area(key="whatif_prop").set_value("   ")
    _button(at, "🧮 Apply and estimate").click().run()
    assert not at.exception
    assert any("proposition is empty" in e.value for e in at.error)


def test_quick_preset_fits_the_topic_and_the_estimate_names_the_method(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.text_area(key="whatif_prop").set_value("What if our school moved to a four-day week?")
    _button(at, "🧮 Apply and estimate").click().run()  # the form commits the proposition
    at.button(key="whatif_quick").click().run()
    assert at.multiselect(key="whatif_experts").value == ["education", "sociology"]
    at.text_input(key="whatif_custom").set_value("urban planning")
    _button(at, "🧮 Apply and estimate").click().run()
    assert not at.exception and not at.error
    assert any("IF-World: 3 expert(s), 1 round(s)" in c.value for c in at.caption)
    at.radio(key="whatif_method").set_value("single")
    _button(at, "🧮 Apply and estimate").click().run()
    estimate = next(c.value for c in at.caption if c.value.startswith("Estimate"))
    assert "single agent: one model call" in estimate and "expert" not in estimate  # observation 6


def test_ablation_topic_preset_and_a_token_budget_for_the_baselines(llm_env) -> None:  # noqa: ANN001
    at = _open()
    preset = next(o for o in at.selectbox(key="whatif_preset").options if "§3.4" in o)
    at.selectbox(key="whatif_preset").set_value(preset).run()
    assert at.text_area(key="whatif_prop").value == whatif.ABLATION_PROPOSITION
    at.radio(key="whatif_method").set_value("debate")
    at.number_input(key="whatif_budget").set_value(70_000)
    _button(at, "🧮 Apply and estimate").click().run()
    estimate = next(c.value for c in at.caption if c.value.startswith("Estimate"))
    assert not at.exception and "as many rounds as ≈70,000 tokens buy" in estimate


def test_full_run_shows_only_each_states_controls(llm_env) -> None:  # noqa: ANN001
    llm_env.latency = 0.3  # slow enough to see the running state
    at = _open()
    at.selectbox(key="whatif_preset").set_value(next(o for o in at.selectbox(key="whatif_preset").options
                                                     if "Moon" in o)).run()
    at.button(key="whatif_quick").click().run()
    _start(at)
    run_id = at.session_state["whatif_run_id"]
    assert _controls(at) == RUNNING_CONTROLS  # the form and Start are gone while it runs
    assert not any(f.label == "Proposition" for f in at.text_area)
    llm_env.latency = 0.0
    session = _settled(at)
    assert session.state == State.COMPLETED
    assert _controls(at) == COMPLETED  # observation 1: no Cancel on a finished run
    labels = {d.label for d in at.get("download_button")}
    assert labels == {"⬇️ Markdown", "⬇️ JSON", "⬇️ HTML"}  # observation 10
    text = _text(at)
    assert "Executive verdict" in text and "Calibration ranges" in text
    assert "Refined scenario" in text and "**Premises**" in text  # observation 5: a card, not a JSON tree
    assert "Review edits" in text and "The room's contributions" in text  # observation 4
    assert "Deliberation after round 1" in text and "Consensus" in text
    _button(at, "⚖️ Judge this run").click().run()
    assert not at.exception
    assert (get_store().get_run(run_id).record or {}).get("judge")
    assert any(m.value.startswith("#### Judge:") for m in at.markdown)  # the result beside its button
    assert _controls(at) == {"➕ New what-if", "⚖️ Judge again"}


def test_failed_run_shows_error_and_resumes(llm_env) -> None:  # noqa: ANN001
    llm_env.inject("500", times=1, role="whatif.refiner")
    at = _open()
    at.button(key="whatif_quick").click().run()
    _start(at)
    session = _settled(at)
    assert session.state == State.FAILED and get_store().get_run(session.run_id).status == "failed"
    assert any("The run stopped: it failed" in w.value for w in at.warning)
    assert _controls(at) == STOPPED
    at.button(key="whatif_resume").click().run()
    assert not at.exception, at.exception
    assert _settled(at).state == State.COMPLETED
    assert any("Executive verdict" in m.value for m in at.markdown)
    assert not any("The run stopped" in w.value for w in at.warning)  # observation 2: no stale Resume panel
    assert _controls(at) == COMPLETED


def test_review_edit_then_contribution_between_rounds(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.multiselect(key="whatif_experts").set_value(["physics", "economics"])
    at.number_input(key="whatif_rounds").set_value(2)
    _start(at, review=True, pause_between_rounds=True)
    run_id = at.session_state["whatif_run_id"]
    assert _settled(at).state == State.REVIEW
    assert _controls(at) == REVIEW
    assert any("Paused before any expert runs" in i.value for i in at.info)
    key = f"whatif_pause_{run_id}"
    for field in whatif.EDITABLE:  # every part of the scenario is editable (observation 5)
        assert at.text_area(key=f"{key}_{field}")
    premises = at.text_area(key=f"{key}_premises").value
    at.text_area(key=f"{key}_premises").set_value(premises + "\nthe Moon vanishes at noon UTC")
    at.text_input(key=f"{key}_extra").set_value("urban planning")
    _button(at, "✏️ Apply edits and continue").click().run()
    assert not at.exception, at.exception
    assert not any("Paused before any expert runs" in i.value for i in at.info)  # observation 2
    assert _controls(at) <= RUNNING_CONTROLS | BETWEEN
    assert _settled(at).state == State.BETWEEN_ROUNDS
    assert _controls(at) == BETWEEN
    assert any("Paused after round 1" in i.value for i in at.info)
    assert sum("Round 1: experts and deliberation" in e.label for e in at.expander) == 1
    at.text_input(key=f"{key}_who").set_value("Year 9 class")
    at.text_area(key=f"{key}_text").set_value("The school gym can shelter 300 people.")
    _button(at, "▶️ Continue").click().run()
    assert not at.exception, at.exception
    assert _settled(at).state == State.COMPLETED
    assert not any("Paused after round 1" in i.value for i in at.info)
    assert _controls(at) == COMPLETED
    info = get_store().get_run(run_id)
    assert info.record["panel"] == ["physics", "economics", "urban planning"]
    assert [e["field"] for e in info.record["review_edits"]] == ["premises", "panel"]  # observation 3
    text = _text(at)
    assert "| Premises |" in text and "the Moon vanishes at noon UTC" in text
    room = [t.value for t in at.text]  # the room: plain text (#40), in the page (not a canvas grid)
    assert any("Year 9 class" in t and "The school gym can shelter 300 people." in t for t in room), room
    assert "Constraints held constant |" not in text.split("Review edits")[1].split("room's contributions")[0]
    moves = [(t["to_state"], t["action"], t["source"]) for t in get_store().transitions(run_id)]
    assert ("round", "apply_edits", "page") in moves and ("round", "continue", "page") in moves


def test_cancel_at_a_pause_then_resume_pauses_again(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.button(key="whatif_quick").click().run()
    _start(at, review=True)
    run_id = at.session_state["whatif_run_id"]
    assert _settled(at).state == State.REVIEW
    _button(at, "⏹️ Cancel run").click().run()
    assert not at.exception, at.exception
    assert get_store().get_run(run_id).status == "cancelled"
    assert _controls(at) == STOPPED
    at.button(key="whatif_resume").click().run()  # a cancelled pause resumes into the same pause
    assert not at.exception, at.exception
    assert _settled(at).state == State.REVIEW
    assert _controls(at) == REVIEW


def test_a_mid_run_cancel_is_cancelled_and_resumable(llm_env) -> None:  # noqa: ANN001
    llm_env.latency = 0.4
    at = _open()
    at.button(key="whatif_quick").click().run()
    _start(at)
    run_id = at.session_state["whatif_run_id"]
    _wait(at, lambda s: s.state == State.ROUND)
    _button(at, "⏹️ Cancel run").click().run()
    assert _controls(at) == {"➕ New what-if"}  # stopping at the step boundary: nothing to click meanwhile
    llm_env.latency = 0.0
    session = _wait(at, lambda s: s.status == "cancelled")
    assert session.state == State.CANCELLED and get_store().get_run(run_id).status == "cancelled"  # observation 6
    assert _controls(at) == STOPPED
    at.button(key="whatif_resume").click().run()
    assert _settled(at).state == State.COMPLETED


def test_baseline_runs_follow_live_to_the_end(llm_env) -> None:  # noqa: ANN001
    """Tree and debate runs stream their own typed step events into the live view and finish."""
    for method in ("debate", "tree"):
        at = _open()
        at.selectbox(key="whatif_preset").set_value(next(o for o in at.selectbox(key="whatif_preset").options
                                                         if "Moon" in o)).run()
        at.button(key="whatif_quick").click().run()
        at.radio(key="whatif_method").set_value(method)
        _start(at)
        assert _settled(at).state == State.COMPLETED
        info = get_store().get_run(at.session_state["whatif_run_id"])
        assert (info.workflow, info.status) == (f"whatif.{method}", "completed")
        assert _controls(at) == COMPLETED
