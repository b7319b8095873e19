"""Read and press the room lists (:mod:`ui.room_list`, a ``st.components.v2`` element) from AppTest.

AppTest has no element class for v2 components: it sees an element it does not know and cannot press it. A press
here is what the browser sends — a trigger payload ``[{"event": "act", "value": …}]`` on the component's trigger
widget — so the page's own callback runs, as it does behind a real click. The trigger widget's id is built by
Streamlit's ``_make_trigger_id`` (not public; the browser tests press the real button)."""

from __future__ import annotations

import json
from typing import Any

from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.testing.v1 import AppTest

from ui.room_list import ACT


def _lists(at: AppTest) -> dict[str, Any]:
    return {el.key: el for el in at.get("bidi_component") if el.key}


def list_keys(at: AppTest) -> list[str]:
    return list(_lists(at))


def rows(at: AppTest, key: str) -> list[dict[str, Any]]:
    """The rows the list ``key`` was given in the last run."""
    return json.loads(_lists(at)[key].proto.json)["rows"]


def all_rows(at: AppTest) -> list[dict[str, Any]]:
    return [row for key in list_keys(at) for row in rows(at, key)]


def press(at: AppTest, key: str, *entries: str) -> AppTest:
    """Press ``entries`` ("accept:<id>", …) in the list ``key`` as one trigger, and run the app."""
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(_lists(at)[key].proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": ACT, "value": " ".join(entries)}])
    return at._run(states)
