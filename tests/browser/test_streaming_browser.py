"""Experts' text appears on the What-if page while their calls are still streaming (fake server, slow tokens)."""

import pytest

from tests.browser.conftest import open_page, shot, wait_idle, wait_run_completed

TOKEN_DELAY_S = 0.04  # ~7 s per expert reply of ~170 chunks


@pytest.fixture
def slow_tokens(e2e_fake):
    before = e2e_fake.token_delay
    e2e_fake.token_delay = TOKEN_DELAY_S
    yield e2e_fake
    e2e_fake.token_delay = before


def test_expert_text_appears_before_the_call_finishes(page, slow_tokens) -> None:
    page.set_default_timeout(120_000)
    open_page(page, "whatif", expect="Proposition")
    page.get_by_role("button", name="Quick preset: 2 experts, 1 round").click()
    wait_idle(page)
    page.get_by_role("button", name="Start run").click()
    page.get_by_text("is writing…").first.wait_for(timeout=120_000)
    in_flight = [r for r in slow_tokens.requests if r.role == "whatif.expert" and not r.end]
    assert in_flight, "expert text was shown only after every expert call had finished"
    shot(page, "whatif_streaming")
    wait_run_completed(page)
