"""AppTest (issue #33): after a run whose panel was edited at review, *➕ New what-if* opens a draft whose expert
panel is not empty, and *Start run* starts (it once failed with "The expert list is empty" until a reload)."""

from __future__ import annotations

from ifworld.whatif import State
from tests.pages.test_whatif_page import _button, _open, _settled, _start


def test_new_whatif_after_a_review_edit_keeps_a_panel(llm_env) -> None:  # noqa: ANN001
    at = _open()
    at.multiselect(key="whatif_experts").set_value(["physics", "economics"])
    at.number_input(key="whatif_rounds").set_value(1)
    _start(at, review=True)
    run_id = at.session_state["whatif_run_id"]
    assert _settled(at).state == State.REVIEW
    at.text_input(key=f"whatif_pause_{run_id}_extra").set_value("urban planning")
    _button(at, "✏️ Apply edits and continue").click().run()
    assert not at.exception, at.exception
    assert _settled(at).state == State.COMPLETED
    at.button(key="whatif_new").click().run()
    assert not at.exception, at.exception
    assert at.multiselect(key="whatif_experts").value, "the new draft's expert panel is empty"
    _button(at, "▶️ Start run").click().run()
    assert not at.exception, at.exception
    assert not any("expert list is empty" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["whatif_run_id"] != run_id
