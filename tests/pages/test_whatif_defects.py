"""AppTest: What-if page defects of issue #33 — live text labelled in words (not role ids), the status line
counting the experts that ran, and deliberation tables that show every cell's whole text."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.testing.v1 import AppTest


def _live_tokens() -> None:
    import time

    from ifworld.runs.events import Event
    from ui.live_view import LiveWhatIf

    view = LiveWhatIf("run-x", ["physics"], {"proposition": "p", "method": "debate"}, since=time.time())
    view.handle(Event(type="token", run_id="run-x", node="debate_con",
                      data={"text": "Con argues that", "role": "whatif.debate.con"}))
    view.flush()


def test_live_text_is_labelled_in_words_not_role_ids(store) -> None:  # noqa: ANN001 - a temp store
    at = AppTest.from_function(_live_tokens, default_timeout=30).run()
    assert not at.exception, at.exception
    text = " ".join(c.value for c in at.caption)
    assert "Debate — con side: …Con argues that" in text
    assert "whatif.debate.con" not in text


def test_role_labels_for_known_and_unknown_roles() -> None:
    from ui.role_labels import role_label

    assert role_label("whatif.report.core") == "Report writer"
    assert role_label("rws.pace.critic") == "Pace critic"


def test_status_line_counts_the_experts_that_ran() -> None:
    from ifworld.whatif import State
    from ui.whatif_session import state_line

    planned = ["physics", "economics", "medicine", "urban planning"]
    session = SimpleNamespace(panel=[*planned, "epidemiology"], state=State.COMPLETED, label="Completed")
    info = SimpleNamespace(params={"proposition": "p", "method": "ifworld", "experts": planned, "rounds": 2})
    line = state_line(session, info)  # type: ignore[arg-type]
    assert "5 expert(s)" in line and "4 expert(s)" not in line


def _deliberation() -> None:
    from ifworld.whatif import Frame
    from ui.deliberation_view import render_deliberation

    long = "a resolution long enough that a data grid at 1280 px cut it " * 4 + "— and this is the end of it"
    frame = Frame.model_validate({
        "round": 1,
        "consensus": [{"point": long, "confidence": 0.8}],
        "conflicts": [{"topic": "grid", "kind": "hard", "sides": [], "rule": "evidence", "treatment": "t",
                       "resolution": long}],
    })
    render_deliberation(frame, None, None, "t")


def test_deliberation_tables_show_whole_cells() -> None:
    at = AppTest.from_function(_deliberation, default_timeout=30).run()
    assert not at.exception, at.exception
    assert not at.dataframe, "a data grid cuts long cells at laptop widths"
    cells = " ".join(str(v) for t in at.table for v in t.value.to_numpy().ravel())
    assert cells.count("this is the end of it") == 2


def test_contribution_kind_headings_are_plain_english() -> None:
    from ui.workshop_rows import kind_heading

    assert kind_heading("evidence", 2) == "📎 Evidence (2)"  # once "📎 Evidences"
    assert kind_heading("claim", 1) == "💬 Claims (1)"
