"""A participant's page never shows a traceback or a server detail (#40 item 7): a scenario whose every list
has duplicates draws (before: ``StreamlitDuplicateElementKey`` with a server path), and a store that cannot be
reached reads "reconnecting", not the store's address."""

from __future__ import annotations

import pytest

from ifworld import whatif
from ifworld.runs.store import get_store
from ifworld.whatif.workshop_models import unique_names
from tests.pages.test_workshop_page import _facilitator_at_review, _join, _page

DUPLICATED = {
    "restated": "What if?", "premises": ["p", "p", " p "], "constants": ["c", "c"],
    "key_uncertainties": ["u", "U", "u"], "expert_plan": ["physics", "physics"],
    "variants": [{"name": "Rise", "description": "a"}, {"name": "Rise", "description": "b"},
                 {"name": "rise ", "description": "c"}, {"name": "", "description": "d"}],
    "indicators": [{"name": "Sea level"}, {"name": "Sea level"}, {"name": "sea  level"}, {"name": " "}],
}


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


def test_a_scenario_whose_every_list_has_duplicates_draws_for_a_participant(llm_env, monkeypatch) -> None:  # noqa: ANN001
    _, run_id = _facilitator_at_review()
    monkeypatch.setattr(whatif, "scenario_of", lambda *a, **k: whatif.Scenario.model_validate(DUPLICATED))
    token = whatif.load_workshop(run_id, store=get_store()).token
    you = _join(token, "Ada")
    assert not you.exception, you.exception
    assert [n.label for n in you.number_input] == ["Rise", "Rise (2)", "rise (3)"]
    assert [r.label for r in you.radio] == ["Sea level", "Sea level (2)", "sea level (3)"]
    you.button(key="join_even").click().run() if any(b.key == "join_even" for b in you.button) else None
    assert not you.exception


def test_unique_names() -> None:
    assert unique_names(["a", "A", "a", "", "  b  ", "b"]) == ["a", "A (2)", "a (3)", "b", "b (2)"]


def test_a_store_that_cannot_be_reached_says_reconnecting_to_a_participant(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    secret_url = "postgresql://alice:s3cret@db.internal.example:1/classroom"
    monkeypatch.setenv("IFWORLD_DB", secret_url)
    at = _page("app_pages/join.py", {"w": "sometoken"})
    shown = " ".join(str(e.value) for kind in ("markdown", "caption", "text", "error", "info", "warning")
                     for e in getattr(at, kind))
    assert not at.exception, at.exception
    assert "reconnecting" in shown.lower()
    for detail in ("alice", "db.internal.example", "classroom", "postgresql"):
        assert detail not in shown, detail
