"""Two app processes, one room, one PostgreSQL: ``ifworld app --address 0.0.0.0`` twice (as behind a reverse
proxy with sticky sessions, docs/deploy.md), both on one ``postgresql://`` store and one
``IFWORLD_FACILITATOR_TOKEN``. A participant on process A's phone page (``/p/``) and the facilitator on process
B's Streamlit page see each other within the 2 s promise (plus a loaded machine's rerun); votes and decisions
made on both land exactly once; the facilitator's sign-in cookie from B is accepted by A."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ifworld.runs.store import RunStore
from ifworld.whatif import load_workshop
from tests.browser.conftest import _free_port, stop_served, wait_idle, wait_served
from tests.browser.phone_steps import PHONE, STAYED, WAIT_MS, join, predict_even, row, send, vote
from tests.browser.test_workshop_browser import VISIBLE_S, _click_until
from tests.fixtures.fake_openai import FakeOpenAI
from tests.fixtures.postgres import PASSWORD

pytestmark = pytest.mark.postgres
TOKEN = "shared-facilitator-token-" + "7" * 16


def _start(home: Path, env: dict[str, str], name: str) -> tuple[subprocess.Popen, str, Any]:
    port = _free_port()
    log = (home / f"{name}.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ifworld"), "app", "--address", "0.0.0.0", "--port",
                             str(port)], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}", log


@pytest.fixture(scope="module")
def two_apps(tmp_path_factory: pytest.TempPathFactory, pg_server) -> Iterator[dict[str, Any]]:  # noqa: ANN001
    home = tmp_path_factory.mktemp("two")
    url = pg_server.create_db()
    with FakeOpenAI(latency=0.02) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
        env.update({"IFWORLD_BASE_URL": fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_DB": url,
                    "IFWORLD_FACILITATOR_TOKEN": TOKEN, "IFWORLD_MAX_RETRIES": "0", "IFWORLD_TIMEOUT_S": "20"})
        apps = [_start(home, env, name) for name in ("a", "b")]
        for (proc, base, _), name in zip(apps, ("a", "b"), strict=True):
            wait_served(base, proc, home / f"{name}.log", f"ifworld app {name}")
        yield {"a": apps[0][1], "b": apps[1][1], "db": url, "fake": fake, "home": home}
        for proc, _, log in apps:
            stop_served(proc, log)


def _context(browser: Any) -> tuple[Any, Any]:  # noqa: ANN401
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(240_000)
    return ctx, page


def _join(browser: Any, base: str, code: str, name: str) -> tuple[Any, Any]:  # noqa: ANN401
    """A phone (a browser context of its own) on the phone page of ``base``: joined by code, prediction saved."""
    ctx = browser.new_context(viewport=PHONE)
    p = ctx.new_page()
    p.set_default_timeout(WAIT_MS)
    join(p, base, code, name)
    predict_even(p)
    return ctx, p


def _room(db: str, run_id: str):  # noqa: ANN202
    s = RunStore(db)
    try:
        return load_workshop(run_id, store=s)
    finally:
        s.close()


def test_participant_on_a_facilitator_on_b(browser, two_apps) -> None:  # noqa: ANN001
    a, b, db = two_apps["a"], two_apps["b"], two_apps["db"]
    fctx, fac = _context(browser)
    fac.goto(f"{b}/signin?token={TOKEN}", wait_until="commit")
    fac.get_by_text("Model connection").first.wait_for()
    wait_idle(fac)
    fac.goto(f"{b}/whatif", wait_until="commit")
    fac.get_by_text("Proposition").first.wait_for()
    wait_idle(fac)
    fac.get_by_label("Rounds", exact=True).fill("2")
    fac.get_by_text("Pause for review after the refiner").click()
    fac.get_by_text("Pause between rounds for workshop input").click()
    fac.get_by_role("button", name="Start run").click()
    fac.get_by_text("Paused before any expert runs").first.wait_for()
    wait_idle(fac)
    fac.get_by_role("button", name="Open workshop").click()
    fac.get_by_text("Scan to join").first.wait_for()
    wait_idle(fac)
    run_id = fac.url.split("run=")[1].split("&")[0]
    code = _room(db, run_id).code
    assert PASSWORD not in fac.content()

    actx, ada = _join(browser, a, code, "Ada")  # on process A
    start = time.monotonic()
    fac.get_by_text("1 participant(s)").first.wait_for(timeout=VISIBLE_S)  # on process B, no reload
    seen_join_s = time.monotonic() - start
    bctx, bo = _join(browser, b, code, "Bo")  # on process B
    fac.get_by_text("2 participant(s)").first.wait_for(timeout=VISIBLE_S)

    fac.get_by_role("button", name="Continue unchanged").click()
    fac.get_by_text("Paused after round 1").first.wait_for()
    texts = {"Ada": "Point A: the tides stop", "Bo": "Point B: ferries need new charts"}
    for name, p in (("Ada", ada), ("Bo", bo)):
        p.get_by_text("Add to the deliberation").wait_for()  # A's view moved on by itself
        send(p, texts[name])
    room = _room(db, run_id)
    assert sorted(c.text for c in room.contributions) == sorted(texts.values())
    start = time.monotonic()
    for c in room.contributions:  # the facilitator on B sees A's contribution
        fac.locator(f"li.row[data-id='{c.id}']").wait_for(timeout=VISIBLE_S)
    seen_contribution_s = time.monotonic() - start
    for p, other in ((ada, "Bo"), (bo, "Ada")):  # each +1s the other's, across the two processes
        row(p, texts[other]).wait_for(timeout=VISIBLE_S)
        vote(p, texts[other])
    ada_c = next(c for c in room.contributions if c.name == "Ada")
    wait_idle(fac)
    _click_until(fac, fac.locator(f"[data-act='accept:{ada_c.id}']"),
                 lambda: next(x for x in _room(db, run_id).contributions if x.id == ada_c.id).accepted)
    row(ada, texts["Ada"]).get_by_text("you · accepted").wait_for(timeout=VISIBLE_S)  # B's decision, on A's phone
    after = _room(db, run_id)
    assert len(after.votes) == 2 and all(c.votes == 1 for c in after.contributions)
    assert [c.name for c in after.contributions if c.accepted] == ["Ada"]
    assert sorted(p.name for p in after.participants) == ["Ada", "Bo"]

    fac.goto(f"{a}/settings", wait_until="commit")  # the cookie B set is accepted by A: same facilitator
    fac.get_by_text("Model connection").first.wait_for()
    wait_idle(fac)
    shown = fac.content()
    assert PASSWORD not in shown and "[redacted]" in shown
    print(f"\n[two processes] join seen on B after {seen_join_s:.2f} s; contributions after "
          f"{seen_contribution_s:.2f} s")
    assert ada.evaluate(STAYED) and bo.evaluate(STAYED), "a phone reloaded"
    for ctx in (fctx, actx, bctx):
        ctx.close()
    assert not re.search(PASSWORD, (two_apps["home"] / "a.log").read_text() + (two_apps["home"] / "b.log").read_text())
