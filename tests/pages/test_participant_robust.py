"""A participant's page never shows a traceback or a server detail (#40 item 7): a scenario whose every list
has duplicates draws on the phone and on the facilitator's page (before: ``StreamlitDuplicateElementKey`` with a
server path), and a store that cannot be reached reads as a friendly line, never the store's address."""

from __future__ import annotations

import pytest

from ifworld import whatif
from ifworld.runs.store import get_store
from ifworld.whatif.workshop_models import unique_names
from tests.pages.test_phone_server import _view, phone, post, start_of
from tests.pages.test_workshop_page import _facilitator_at_review, _join
from ui.phone_server import UNREACHABLE

DUPLICATED = {
    "restated": "What if?", "premises": ["p", "p", " p "], "constants": ["c", "c"],
    "key_uncertainties": ["u", "U", "u"], "expert_plan": ["physics", "physics"],
    "variants": [{"name": "Rise", "description": "a"}, {"name": "Rise", "description": "b"},
                 {"name": "rise ", "description": "c"}, {"name": "", "description": "d"}],
    "indicators": [{"name": "Sea level"}, {"name": "Sea level"}, {"name": "sea  level"}, {"name": " "}],
}
SECRET_URL = "postgresql://alice:s3cret@db.internal.example:1/classroom"
SECRET_PARTS = ("alice", "s3cret", "db.internal.example", "classroom", "postgresql")


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


def test_a_scenario_whose_every_list_has_duplicates_draws_for_a_participant(llm_env, monkeypatch) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    monkeypatch.setattr(whatif, "scenario_of", lambda *a, **k: whatif.Scenario.model_validate(DUPLICATED))
    token = whatif.load_workshop(run_id, store=get_store()).token
    you = _join(token, "Ada")
    view = _view(you, token)
    assert view["form"] == "predict"
    assert view["branches"] == ["Rise", "Rise (2)", "rise (3)"]  # one field each: the form keys them by name
    assert view["indicators"] == ["Sea level", "Sea level (2)", "sea level (3)"]
    even = post(you, "predict", {"token": token, "probabilities": whatif.even_split(view["branches"])})
    assert even.json()["ok"], even.text
    fac.run()
    assert not fac.exception, fac.exception


def test_unique_names() -> None:
    assert unique_names(["a", "A", "a", "", "  b  ", "b"]) == ["a", "A (2)", "a (3)", "b", "b (2)"]


@pytest.mark.parametrize("door", ["page", "stream", "find", "join", "send"])
def test_a_store_that_cannot_be_reached_is_no_detail_to_a_participant(door, monkeypatch) -> None:  # noqa: ANN001
    """Each of the phone's doors while the store cannot be reached: a friendly answer, never a server error nor
    the store's address, user or database."""
    from ifworld.runs import postgres

    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT_S", 1)  # the pool gives up sooner; the answer is the same
    monkeypatch.setenv("IFWORLD_DB", SECRET_URL)
    client = phone()
    client = type(client)(client.app, base_url=str(client.base_url), raise_server_exceptions=False,
                          cookies=client.cookies)
    if door == "page":
        reply = client.get("/p/?w=sometoken")
    elif door == "stream":
        reply = client.get("/p/events?w=sometoken")
    else:
        reply = post(client, door, {"token": "sometoken", "code": "ABCDEF", "given": "Ada", "text": "hello"})
    for detail in SECRET_PARTS:
        assert detail not in reply.text, (detail, reply.text)
    if door == "page":  # said, and the page tries again by itself (ifworld/web/phone.js, screen "retry")
        assert reply.status_code == 200 and start_of(reply.text) == {"screen": "retry", "message": UNREACHABLE}
    elif door == "stream":  # the page's stream tries again by itself
        assert reply.status_code == 503 and reply.json() == {"ok": False, "message": UNREACHABLE}, reply.text
    else:
        assert reply.status_code == 503 and not reply.json()["ok"], reply.text
        assert "nothing was lost" in reply.json()["message"]
