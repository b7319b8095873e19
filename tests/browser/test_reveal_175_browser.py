"""The reveal on the projector (issue #42, Done-when): at 1280×720 and 175 % zoom (731×411 CSS px) the facilitator's
"room against the panel" table shows the room's and the panel's numbers side by side, whole in the screen's
width, with "—" where there is no figure and no "None" anywhere.

The run, its three predictions and the reveal are made through the engine's front doors on the e2e app's store
and fake model; the browser only looks, as the facilitator."""

from __future__ import annotations

from ifworld import whatif
from ifworld.access import OPERATOR
from ifworld.config import load_settings
from ifworld.runs.store import RunStore
from ifworld.whatif import State, load_session, service
from ifworld.whatif.params import default_params
from tests.browser.conftest import KNOWN_KEY, SHOTS, e2e_db, wait_idle
from tests.browser.test_labels_browser import PROJECTOR_175
from tests.whatif.test_workshop import device

HEADING = "The room against the panel"
TABLE = """(heading) => {
  const h = [...document.querySelectorAll('[data-testid=stMarkdownContainer]')]
    .find(m => m.innerText.includes(heading));
  let n = h.closest('[data-testid=stElementContainer]');
  while (n && !n.querySelector('[data-testid=stDataFrame]')) n = n.nextElementSibling;
  const grid = n.querySelector('[data-testid=stDataFrame]'), box = grid.getBoundingClientRect();
  const cells = [...grid.querySelectorAll('[role=gridcell], [role=columnheader]')].map(c => c.innerText.trim());
  return cells.length ? {left: box.left, right: box.right, width: innerWidth, cells} : null;
}"""

# The heading just below Streamlit's header (opaque once it holds a button), as the facilitator scrolls to it.
TO_TOP = """async (h) => {
  const head = document.querySelector('[data-testid=stHeader]');
  const top = head ? head.getBoundingClientRect().bottom : 0;
  let s = h.parentElement;
  while (s && !(s.scrollHeight > s.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(s).overflowY)))
    s = s.parentElement;
  (s || document.scrollingElement).scrollTop += h.getBoundingClientRect().top - top - 8;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def _revealed_run(e2e_fake, tmp_path_factory) -> str:  # noqa: ANN001
    """A completed run whose room of three predicted at the review (one 70/30, one even, one not at all), then
    was revealed."""
    db = e2e_db(tmp_path_factory)
    settings = load_settings({"base_url": e2e_fake.url, "model": "fake-model", "api_key": KNOWN_KEY, "db_path": db})
    params = default_params("What if the tides stopped for a month?", "ifworld", rounds=2, review=True,
                            pause_between_rounds=True)
    store = RunStore(db)
    try:
        run_id = service.run(params, settings=settings, store=store)["run_id"]
        ws = whatif.open_workshop(run_id, caller=OPERATOR, store=store)
        people = [whatif.join_workshop(ws.token, name, device_key=device(), store=store)
                  for name in ("Ada", "Bo", "Cy")]
        names = whatif.branches(whatif.scenario_of(run_id, store=store, settings=settings))
        (ada, ka), (bo, kb), _ = people
        whatif.predict(run_id, ada.id, ka, {names[0]: 70.0, names[1]: 30.0, **dict.fromkeys(names[2:], 0.0)},
                       store=store)
        whatif.predict(run_id, bo.id, kb, whatif.even_split(names), store=store)
        service.continue_run(run_id, settings=settings, store=store)  # the review, unchanged: round 1, a pause
        assert load_session(run_id, store).state == State.BETWEEN_ROUNDS
        for _ in whatif.continue_workshop(run_id, OPERATOR, store=store, settings=settings, background=False) or ():
            pass
        assert load_session(run_id, store).state == State.COMPLETED
        whatif.reveal_workshop(run_id, OPERATOR, store=store)
        return run_id
    finally:
        store.close()


def test_the_reveal_reads_whole_on_a_projector(browser, app_url, e2e_fake, tmp_path_factory) -> None:  # noqa: ANN001
    run_id = _revealed_run(e2e_fake, tmp_path_factory)
    ctx = browser.new_context(viewport=PROJECTOR_175[0], device_scale_factor=PROJECTOR_175[1])
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{app_url}/whatif?run={run_id}")
        page.get_by_text(HEADING).first.wait_for()
        wait_idle(page)
        page.get_by_text(HEADING).first.scroll_into_view_if_needed()
        page.locator("[data-testid=stDataFrame]").first.wait_for()
        wait_idle(page)
        # the grid draws on a canvas and fills its accessible cells a moment later: wait for them
        table = page.wait_for_function(TABLE, arg=HEADING, timeout=60_000).json_value()
        assert table["left"] >= 0 and table["right"] <= table["width"] + 0.5, table  # whole in the screen's width
        assert "None" not in table["cells"] and "Panel (%)" in table["cells"], table["cells"]
        numbers = [c for c in table["cells"] if c.replace(".", "", 1).isdigit()]
        assert len(numbers) >= 4, table["cells"]  # the room's and the panel's figures, side by side
        page.get_by_text(HEADING).first.evaluate(TO_TOP)
        wait_idle(page)
        page.screenshot(path=str(SHOTS / "workshop_reveal_175.png"))
    finally:
        ctx.close()
