"""The What-if page logs no Streamlit warning (#42 item 5e): the server log showed 'The widget with key
"whatif_breadth" was created with a default value but also had its value set via the Session State API' with a
stack trace on every rerun after the first (the draft keeper re-sets each form value, and the form's number
inputs also passed a default). Streamlit prints that warning once per process, so the flag is reset here."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
HARNESS_ONLY = "missing ScriptRunContext"  # the test thread touching st outside a script run: not the page's


def test_the_what_if_page_and_switching_to_the_tree_baseline_log_no_warning(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    caplog.set_level(logging.WARNING, logger="streamlit")
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/whatif.py")
    at.run()
    apply = next(b for b in at.button if b.label == "🧮 Apply and estimate")  # the form applies its values
    at.radio(key="whatif_method").set_value("tree")
    at.number_input(key="whatif_breadth").set_value(4)
    apply.click().run()
    assert at.session_state["whatif_method"] == "tree"
    at.radio(key="whatif_method").set_value("debate")
    next(b for b in at.button if b.label == "🧮 Apply and estimate").click().run()
    at.run()
    assert not at.exception
    assert at.session_state["whatif_breadth"] == 4  # the value set survives the reruns
    warned = [r for r in caplog.records if r.name.startswith("streamlit") and r.levelno >= logging.WARNING
              and HARNESS_ONLY not in r.getMessage()]
    assert warned == [], [r.getMessage() for r in warned]
