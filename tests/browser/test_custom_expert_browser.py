"""'Add an expert' in a real browser: the facilitator adds an expert of their own on the What-if page, runs with it
on the fake model, and finds its persona in the prompt actually sent (quoted as data) and in the run's exports;
deleting the expert afterwards leaves the run's export as it was."""

from __future__ import annotations

from ifworld import runs
from ifworld.runs.store import RunStore
from ifworld.whatif import delete_custom_expert
from tests.browser.conftest import e2e_db, open_page, wait_idle, wait_run_completed

FIELD = "maritime history"
PERSONA = "You reason from harbour logs, shipping registers and the salvage records of old storms."


def _open_expander(page) -> None:  # noqa: ANN001
    """Open 'Add an expert' unless it is open (the browser keeps an expander's state across reruns)."""
    wait_idle(page)
    if not page.get_by_label("Field of the expert").is_visible():
        page.get_by_text("Add an expert").first.click()
    page.get_by_label("Field of the expert").wait_for()


def test_facilitator_adds_an_expert_and_runs_with_it(page, e2e_fake, tmp_path_factory) -> None:  # noqa: ANN001
    open_page(page, "whatif", expect="Proposition")
    page.get_by_role("button", name="Quick preset: 2 experts, 1 round").click()
    wait_idle(page)
    _open_expander(page)
    page.get_by_label("Field of the expert").fill(FIELD)
    page.get_by_label("How this expert reasons (persona)").fill(PERSONA)
    page.get_by_role("button", name="Add expert").click()
    page.get_by_text(f"Added the {FIELD} expert").first.wait_for()
    wait_idle(page)
    assert page.get_by_text(PERSONA).count() >= 1  # shown back as plain text
    panel = page.locator(".st-key-whatif_experts, [data-testid=stMultiSelect]").first.inner_text()
    assert FIELD in panel  # put on the panel beside the Quick preset's two

    e2e_fake.reset()
    page.get_by_role("button", name="Start run").click()
    wait_run_completed(page)
    run_id = page.url.split("run=")[1].split("&")[0]

    sent = [r.prompt for r in e2e_fake.requests if r.role == "whatif.expert"]
    ours = [p for p in sent if f"You are the {FIELD} expert on the panel" in p]
    assert ours, [p[-300:] for p in sent]
    assert all(f'<expert_persona source="facilitator">\n{PERSONA}\n</expert_persona>' in p for p in ours)

    store = RunStore(e2e_db(tmp_path_factory))
    try:
        before = runs.export_run(run_id, "md", store=store)
        assert "## Expert panel" in before and PERSONA in before
        assert PERSONA in runs.export_run(run_id, "html", store=store)

        delete_custom_expert(FIELD, store=store)  # the page's Delete is covered by tests/whatif/test_experts.py
        assert store.custom_expert_rows() == []
        after = runs.export_run(run_id, "md", store=store)
        assert PERSONA in after and "## Expert panel" in after  # the run keeps the persona it used
    finally:
        store.close()
