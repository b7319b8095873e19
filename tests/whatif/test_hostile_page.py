"""A what-if run's page renders hostile model text inert in every element that renders Markdown — text, captions,
alerts and the cells, headers and index of ``st.table`` (which renders Markdown in cells since Streamlit 1.4x).
On the code before this test the deliberation view's tables held the model's ``![m](…/md.png)`` as a live image,
which the browser fetched (tests/browser/test_beacon_browser.py counted 8 requests)."""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest

from ifworld.safe_text import live_elements
from tests.whatif.conftest import SMALL


def _page(record: dict) -> None:  # AppTest runs this function's source alone: no annotations from here
    from ui.whatif_view import render_whatif_record

    render_whatif_record(record, "hostile")


def _table_texts(table: Any) -> list[str]:
    frame = table.value
    cells = [v for row in frame.itertuples(index=True) for v in row]
    return [str(v) for v in [*cells, *frame.columns] if isinstance(v, str)]


def test_every_markdown_element_and_table_cell_of_a_hostile_run_is_inert(run_whatif) -> None:  # noqa: ANN001
    # a proposition naming a beacon: the fake model writes hostile labels everywhere (tests/fixtures/scripts/whatif.py)
    record = run_whatif(proposition="What if a heatwave hit the grid? beacon http://127.0.0.1:9",
                        experts=SMALL[:2], rounds=1)
    at = AppTest.from_function(_page, args=(record,), default_timeout=60).run()
    assert not at.exception, at.exception
    texts = [e.value for kind in ("markdown", "caption", "warning", "info", "error", "success")
             for e in getattr(at, kind)]
    cells = [t for table in at.table for t in _table_texts(table)]
    assert any("md.png" in t for t in cells), "no hostile text reached a table: the test would not test"
    assert any("md.png" in t for t in texts), "no hostile text reached a Markdown element"
    live = {t[:120]: live_elements(t) for t in texts + cells if live_elements(t)}
    assert live == {}, live
