"""Read and press the room lists (:mod:`ui.room_list`, a ``st.components.v2`` element) from AppTest.

AppTest has no element class for v2 components: it sees an element it does not know and cannot press it. A press
here is what the browser sends — a trigger payload ``[{"event": "act", "value": …}]`` on the component's trigger
widget — so the page's own callback runs, as it does behind a real click. The trigger widget's id is built by
Streamlit's ``_make_trigger_id`` (not public; the browser tests press the real button). A list whose rows did not
change since its last redraw is sent their digest alone (:func:`rows` asks for them, as the browser's list does)."""

from __future__ import annotations

import json
from typing import Any

from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.testing.v1 import AppTest

from ui.room_list import ACT, NEED


def _lists(at: AppTest) -> dict[str, Any]:
    return {el.key: el for el in at.get("bidi_component") if el.key}


HEARTBEAT = "workshop_watch"  # the facilitator's empty list that only watches the room redraw (ui/workshop_facilitator)


def list_keys(at: AppTest) -> list[str]:
    """The lists that show rows (the heartbeat left out)."""
    return [key for key in _lists(at) if key != HEARTBEAT]


def data(at: AppTest, key: str) -> dict[str, Any]:
    """What the list ``key`` was sent in the last run: its digest, and its rows when they changed."""
    return json.loads(_lists(at)[key].proto.json)


def rows(at: AppTest, key: str) -> list[dict[str, Any]]:
    """The rows the list ``key`` shows after the last run. A redraw of unchanged rows carries their digest alone;
    AppTest keeps no rows between runs, so it asks for them as a freshly drawn list in a browser does."""
    sent = data(at, key)
    if "rows" not in sent:
        trigger(at, key, NEED, sent["digest"])
        sent = data(at, key)
    return sent["rows"]


def all_rows(at: AppTest) -> list[dict[str, Any]]:
    return [row for key in list_keys(at) for row in rows(at, key)]


def press(at: AppTest, key: str, *entries: str) -> AppTest:
    """Press ``entries`` ("accept:<id>", …) in the list ``key`` as one trigger, and run the app."""
    return trigger(at, key, ACT, " ".join(entries))


def trigger(at: AppTest, key: str, event: str, value: str) -> AppTest:
    """What the list's script sends: ``setTriggerValue(event, value)``, then the app runs."""
    states = at._tree.get_widget_states()
    widget = states.widgets.add()
    widget.id = _make_trigger_id(_lists(at)[key].proto.id, "events")
    widget.json_trigger_value = json.dumps([{"event": event, "value": value}])
    return at._run(states)
