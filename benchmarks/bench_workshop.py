"""Does a workshop hold a class? N phones and one facilitator against the fake model, timed where people look.

`ifworld app --address 0.0.0.0` on a free port — network mode, roles on, the product's own server (CSP, sign-in
route, device cookies); the run is started in this process (review + pause between rounds, 3 rounds) and its
workshop opened; the facilitator's browser (a Chromium of its own, as their own laptop) opens the sign-in link,
then the run. The phones (Playwright contexts of 390×844 in a second Debian Chromium, each saying its own
address through a trusted proxy, as behind docs/deploy.md's proxies) go through every moment of #42's targets:

1. join: they arrive evenly over ``--arrive-s``, at most ``--concurrency`` loading at once; each is timed from
   opening /p/ until its prediction form is drawn; the app's and the browsers' CPU seconds beside;
2. predict (an even split), then — paused after round 1 — 2 contributions each (Send → "Sent", waited for in
   the page, and → on the facilitator's self-refreshing page, which stamps each text when it first appears) and
   3 +1s; whether each phone's own list shows its texts 15 s later; the bytes each page receives while idle;
3. while round 2 runs on a model that takes ROUND_CALL_S a call: one contribution each, timed the same way;
4. the reveal: the facilitator presses it; each phone is timed until it shows its prediction beside the panel's.

    python benchmarks/bench_workshop.py --participants 30
    python benchmarks/bench_workshop.py --processes 2 --store postgresql://user:pw@127.0.0.1:5432/db

The phones are on the phone page /p/ (ui/phone_server.py, server-rendered, server-sent events): each types the
code and its name, presses ⚖️ Even split and Save, Send (until "✅ Sent"), +1 on the room's rows, and waits for
the reveal's table (its steps in benchmarks/bench_phone.py; the bytes it receives are its responses' body bytes,
the stream's as they arrive). The facilitator is on the Streamlit What-if page (websocket payload bytes). The
reveal is stamped by each phone's page itself and the moment the store has it is printed beside
(``reveal_in_store_s``: the facilitator's page's share).

Why only the phone page: #42 asked to compare the two participant pages side by side before keeping one. This
benchmark did (2026-11-29 13:00–13:05, quiet 2-core machine, ``--view streamlit`` against ``--view phone``, the
facilitator on Streamlit in both): 12 phones in the room p95 43.9 s on the Streamlit Join page against 13.3 s on
the phone page (30 phones 18.8 s on the phone page; the Streamlit page's run did not finish); Send → "Sent" 3.37
against 1.16 s; idle bytes a minute per phone 70–82 KB against 0.05 KB (benchmarks/README.md, docs/workshop.md).
The phone page was kept and the Streamlit Join page removed after it, and ``--view streamlit`` with it.

``--processes 2``: two ``ifworld app`` processes on one store (as behind a reverse proxy with sticky sessions,
docs/deploy.md), one ``IFWORLD_FACILITATOR_TOKEN``; participants alternate between them and the facilitator is
on the last one, so most of what the facilitator sees was written by the other process. ``--store``: a
``postgresql://`` URL (an empty database) or a SQLite file (default: a new one).

Each phase logs its figures as it ends (a run stopped later keeps them). Printed at the end: a line of detail,
``targets (#42): …`` against each target, and last ``participants=N contributions=C votes=V lost=L duplicated=D
p95_visible_s=S processes=P store=sqlite|postgres`` (lost: never stored, or never on the facilitator's screen).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import psutil
from playwright.async_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench_phone  # noqa: E402 — the phone page's steps, beside this file

from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import load_workshop, open_workshop, service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402

CONTRIBUTIONS_EACH = 2
VOTES_EACH = 3
TIMEOUT_MS = 180_000
WALL_MINUS_PERF = time.time() - time.perf_counter()  # the store and the page stamp with the wall clock
RETRIES: Counter[str] = Counter()
CONSOLE: dict = {}  # page -> its console messages (printed when a participant's page gets stuck)
RECEIVED: Counter = Counter()  # page -> bytes it received (what a phone pulls over the school's Wi-Fi)
IDLE_S = 30.0  # the idle window over which bytes per minute are measured (nobody acts; the pages redraw)
# How often a participant's driver looks at its page (idle? landed?). Each look is a DevTools round trip through
# the browser process; 30 drivers looking 5 times a second cost the shared 2 cores more than the app did.
LOOK_S = 0.4
PHONES_PER_BROWSER = 100
WATCH_S = 180  # a text not on the facilitator's screen this long after the phase began is lost
DURING = "During round 2, student "  # how the texts sent while a round runs begin
SAID: set[str] = set()  # texts whose phone said "Sent"
WAITED: list[float] = []  # seconds each phone waited for the benchmark's own browsers (join's gate)
PHONE_ADDRESS = "10.42.{}.7"  # phone i's address on the class's Wi-Fi (see start_app)
FAST_CALL_S = 0.05  # the fake model's reply time, except while round 2 runs
ROUND_CALL_S = 4.0  # while round 2 runs: its calls last long enough for the whole class to send meanwhile


T0 = time.perf_counter()


def log(message: str) -> None:
    """Progress on stderr (the figures go to stdout)."""
    print(f"[{time.perf_counter() - T0:7.1f}s] {message}", file=sys.stderr, flush=True)


def cpu_s(pids: list[int]) -> float:
    """CPU seconds used so far by these processes and all their children (the app; the browsers)."""
    seen: dict[int, psutil.Process] = {}
    for pid in pids:
        try:
            root = psutil.Process(pid)
            seen.update({p.pid: p for p in [root, *root.children(recursive=True)]})  # each process once
        except psutil.Error:
            continue
    total = 0.0
    for proc in seen.values():
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(db: str, home: Path, fake_url: str, token: str, name: str = "app") -> tuple[subprocess.Popen, str, str]:
    """``ifworld app --address 0.0.0.0`` (network mode); returns the process, its URL and the sign-in link."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": fake_url, "IFWORLD_MODEL": "fake-model", "IFWORLD_DB": db,
                "IFWORLD_FACILITATOR_TOKEN": token, "PYTHONPATH": str(ROOT),
                # every browser here is 127.0.0.1; in a class each phone has its own address, which the join
                # limits and the connection cap count by: each phone says its own (PHONE_ADDRESS) as if through a
                # trusted proxy (docs/deploy.md), the path a real deployment behind one takes
                "IFWORLD_TRUSTED_PROXIES": "127.0.0.1"})
    out = home / f"{name}.log"
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ifworld"), "app", "--address", "0.0.0.0",
                             "--port", str(port)], cwd=home, env=env, stdout=out.open("w"),
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                signin = next(w for w in out.read_text().split() if "/signin?token=" in w)
                return proc, url, signin
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("ifworld app did not start")


def stop_app(proc: subprocess.Popen) -> None:
    """Kill an app that :func:`start_app` started, and anything it started in turn."""
    for child in psutil.Process(proc.pid).children(recursive=True):
        child.kill()
    proc.kill()


async def idle(page) -> None:  # noqa: ANN001
    """The facilitator's Streamlit page finished running its script (its status widget gone, twice in a row). A
    phone page (/p/) has no script to rerun: it is always ready, so the phones never wait here."""
    for _ in range(600):
        if await page.locator("[data-testid=stStatusWidget]").count() == 0:
            await asyncio.sleep(LOOK_S)
            if await page.locator("[data-testid=stStatusWidget]").count() == 0:
                return
        await asyncio.sleep(LOOK_S)


async def act(page, what: str, click, landed, tries: int = 4, wait_s: float = 20) -> None:  # noqa: ANN001
    """Click on a phone until ``landed()`` holds, as a person would: a click that did nothing is repeated and
    counted in RETRIES[what] (reported); one that never lands after ``tries`` clicks ends the benchmark."""
    for _ in range(tries):
        try:
            await click()
        except PlaywrightError:  # what to press never came (Playwright's timeout): keep the page's picture
            await stuck(page, what.replace(" ", "-"))
            raise
        deadline = time.perf_counter() + wait_s
        while time.perf_counter() < deadline:
            if await landed():
                return
            await asyncio.sleep(LOOK_S)
        RETRIES[what] += 1
        said = await bench_phone.said(page)
        log(f"{what}: no effect after {wait_s:.0f} s; clicking again (the page said: {said or 'nothing'})")
    await stuck(page, what)
    raise RuntimeError(f"{what}: no effect after {tries} clicks")


async def stuck(page, what: str) -> None:  # noqa: ANN001
    """Keep a stuck page's picture and its console's last words (logged)."""
    shot = Path(tempfile.gettempdir()) / f"bench-workshop-stuck-{what}-{int(time.time())}.png"
    await page.screenshot(path=str(shot), full_page=True)
    log(f"{what}: stuck page saved to {shot}; its console said: {CONSOLE.get(page, [])[-15:]}")


async def join(browser, url: str, code: str, i: int, arrive_s: float, gate: asyncio.Semaphore):  # noqa: ANN001, ANN201
    """A phone arriving ``arrive_s`` after the first: opens the join address, types the code and a name; returns
    its context, its page and the seconds from opening the address until it is in the room (its prediction
    form drawn). Typing takes no time here, so this is all the server's and the browser's. At most ``gate``
    phones load at once: the benchmark's one Chromium carrying 30 first loads at once failed sockets
    (ERR_SOCKET_NOT_CONNECTED) and six Chromiums loaded the 2 cores to 40 — the browsers' limits, not the app's;
    the seconds a phone waits at the gate are reported apart (``p95_join_wait_s``)."""
    await asyncio.sleep(arrive_s)
    arrived = time.perf_counter()
    await gate.acquire()
    WAITED.append(time.perf_counter() - arrived)
    try:
        return await _join(browser, url, code, i)
    finally:
        gate.release()


async def _join(browser, url: str, code: str, i: int):  # noqa: ANN001, ANN202
    ctx = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                    extra_http_headers={"X-Forwarded-For": PHONE_ADDRESS.format(i)})
    page = await ctx.new_page()
    CONSOLE[page] = []
    page.on("console", lambda m, p=page: CONSOLE[p].append(f"{m.type}: {m.text}"[:300]))
    page.on("pageerror", lambda e, p=page: CONSOLE[p].append(f"pageerror: {e}"[:300]))
    page.set_default_timeout(TIMEOUT_MS)
    await bench_phone.count_bytes(page, RECEIVED)
    start = time.perf_counter()
    # a page that did not load is loaded again, as a person would (counted, and timed from the first try)
    for attempt in range(3):
        try:
            await bench_phone.join(page, url, code, f"Student {i:02d}")
            break
        except PlaywrightError as exc:
            RETRIES["join reload"] += 1
            log(f"phone {i}: joining did not go through ({str(exc).splitlines()[0]}); starting again")
            if attempt == 2:
                await stuck(page, f"join-{i}")
                raise
    return ctx, page, time.perf_counter() - start


async def predict(page, gate: asyncio.Semaphore) -> None:  # noqa: ANN001
    async with gate:
        await act(page, "even split", page.get_by_role("button", name="Even split").click,
                  lambda: page.evaluate(bench_phone.NUMBERS_SET_JS))
        saved = page.locator("#predict-status", has_text="Saved: ")
        await act(page, "save prediction", page.get_by_role("button", name="Save my prediction").click,
                  lambda: saved.count())


def count_bytes(page) -> None:  # noqa: ANN001
    """Add every websocket frame the facilitator's page receives to RECEIVED[page] (Streamlit's deltas arrive this
    way; a phone page's stream is counted by :func:`bench_phone.count_bytes`)."""
    def on_socket(ws) -> None:  # noqa: ANN001
        ws.on("framereceived", lambda payload: RECEIVED.update({page: len(payload)}))
    page.on("websocket", on_socket)


async def idle_bytes(pages: list, fac) -> tuple[float, float, float]:  # noqa: ANN001
    """Bytes per minute while nobody acts: the median and the largest phone, and the facilitator."""
    before, views = dict(RECEIVED), dict(bench_phone.VIEWS)
    log("idle: nobody acts")
    await asyncio.sleep(IDLE_S)
    pushed = sorted(bench_phone.VIEWS[p] - views.get(p, 0) for p in pages)
    live = [await pg.evaluate("() => document.body.dataset.live") == "1" for pg in pages]
    log(f"idle {IDLE_S:.0f} s: views pushed to a phone: median {statistics.median(pushed)}, most {pushed[-1]}; "
        f"streams open (body data-live=1): {sum(live)} of {len(pages)}")
    per_min = sorted((RECEIVED[p] - before.get(p, 0)) * 60 / IDLE_S for p in pages)
    return statistics.median(per_min), per_min[-1], (RECEIVED[fac] - before.get(fac, 0)) * 60 / IDLE_S


async def contribute(page, texts: list[str], submitted: dict[str, float], sent: list[float],  # noqa: ANN001
                     gate: asyncio.Semaphore) -> None:
    """Send each text; ``sent`` gets the seconds from the press until the phone said "Sent" (first press only:
    a press that did nothing is counted in RETRIES and its text's figures start at the first press). A Send has
    landed once the phone said "Sent" or its room list shows the text; whether every phone's list came to show
    its own texts is checked afterwards (:func:`own_missing`)."""
    async with gate:
        await page.get_by_text("Add to the deliberation").first.wait_for()
        for text in texts:
            shown = page.locator("li.row .text").filter(has_text=text)  # in the room's list

            async def send(text: str = text) -> None:
                await page.get_by_label("Your contribution").fill(text)
                pressed = time.perf_counter()
                await page.get_by_role("button", name="Send", exact=True).click()
                if text not in submitted:
                    submitted[text] = pressed
                    try:
                        # waited for inside the page: asking over DevTools every LOOK_S would add up to LOOK_S
                        # to a figure whose target is 1 s
                        await page.wait_for_function(bench_phone.SENT_JS, polling=50, timeout=20_000)
                        sent.append(time.perf_counter() - pressed)
                        SAID.add(text)
                    except Exception:  # noqa: BLE001 — never said; act() sees the list and presses again
                        sent.append(float("inf"))
            await act(page, "send", send, lambda text=text, shown=shown: _landed(text, shown))


async def _landed(text: str, shown) -> bool:  # noqa: ANN001
    return text in SAID or await shown.count() > 0


async def own_missing(phones: list[tuple[object, list[str]]], wait_s: float = 15) -> int:
    """How many sent texts a phone's own room list still lacks ``wait_s`` after the last Send (the server pushes
    each phone its view when the room changes, so every one should be there)."""
    await asyncio.sleep(wait_s)
    missing = 0
    for page, texts in phones:
        for text in texts:
            if await page.locator("li.row .text").filter(has_text=text).count() == 0:  # type: ignore[attr-defined]
                missing += 1
    return missing


async def _voted(button) -> bool:  # noqa: ANN001
    return await button.get_attribute("title") == bench_phone.VOTED


async def vote(page, own: set[str], targets: list[str], gate: asyncio.Semaphore) -> None:  # noqa: ANN001
    """+1 each target (its button in the room's list, by contribution id)."""
    async with gate:
        for cid in [t for t in dict.fromkeys(targets) if t not in own][:VOTES_EACH]:  # a class of 2 names one twice
            button = bench_phone.vote_button(page, cid)
            try:
                await button.wait_for()
            except PlaywrightError:  # its row never drawn on this phone: the +1 is skipped (counted lost), logged
                RETRIES["vote button never drawn"] += 1
                await stuck(page, "vote-button")
                continue
            # landed when the redraw says so (the button greys itself on the press, before the server hears it)
            await act(page, "vote", button.click, lambda b=button: _voted(b))


# Noted by the facilitator's page itself: a timer scans the room lists (in their components' shadow roots) every
# 100 ms and stamps each text the first time it is there. Asking Playwright ten times a second instead costs the
# facilitator's renderer more than the page does (a DevTools round trip per look, on a machine that also runs
# 30 participants' browsers), and that delay would be the benchmark's own.
SEEN_JS = """() => {
  if (window.__seen) return;
  window.__seen = {};
  setInterval(() => {
    const now = Date.now();
    for (const host of document.querySelectorAll("*")) {
      if (!host.shadowRoot) continue;
      for (const text of host.shadowRoot.querySelectorAll("li.row .text")) {
        if (!(text.textContent in window.__seen)) window.__seen[text.textContent] = now;
      }
    }
  }, 100);
}"""


async def watch(fac, submitted: dict[str, float], seen: dict[str, float], expected: int,  # noqa: ANN001
                prefix: str = "") -> None:
    """Collect, once a second, when each submitted text first showed on the facilitator's page (it refreshes
    itself), on this process's clock, until ``expected`` texts starting with ``prefix`` have been seen (at most
    WATCH_S: what is never seen counts as lost)."""
    await fac.evaluate(SEEN_JS)
    deadline = time.perf_counter() + WATCH_S
    while (sum(t in seen for t in submitted if t.startswith(prefix)) < expected
           and time.perf_counter() < deadline):
        stamps = await fac.evaluate("() => window.__seen")
        if stamps is None:  # the page reloaded itself (its heartbeat: no redraw for 20 s): stamp again from now
            RETRIES["facilitator page reloaded itself"] += 1
            log("the facilitator's page reloaded itself (no redraw for its stall time)")
            await fac.evaluate(SEEN_JS)
            stamps = {}
        for t in list(submitted):
            if t not in seen and t in stamps:
                seen[t] = stamps[t] / 1000 - WALL_MINUS_PERF
        await asyncio.sleep(1)


def _p95(values: list[float]) -> float:
    return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))] if values else float("nan")


async def while_a_round_runs(fac, people: list, settings, store, db: str, run_id: str,  # noqa: ANN001
                             submitted: dict[str, float], seen: dict[str, float], fake,
                             gate: asyncio.Semaphore) -> tuple[list[float], bool]:
    """Round 2 run in a thread with a slow model (ROUND_CALL_S a call), each phone sending one contribution
    meanwhile; returns the Send → "Sent" seconds and whether the round was still running when the last text
    reached the facilitator's screen (else the figures were not taken while it ran)."""
    fake.latency = ROUND_CALL_S
    own = RunStore(db)  # the thread's own connection (this loop keeps reading through ``store``)
    round_2 = asyncio.create_task(asyncio.to_thread(
        service.run, {}, settings=settings, store=own, run_id=run_id, answer={"action": "continue"}))
    while store.get_run(run_id).status != "running":
        await asyncio.sleep(0.1)
    log("round 2 running")
    sent: list[float] = []
    watcher = asyncio.create_task(watch(fac, submitted, seen, len(people), DURING))
    await asyncio.gather(*(contribute(pg, [f"{DURING}{i:02d}: tides"], submitted, sent, gate)
                           for i, (_, pg) in enumerate(people, 1)))
    await asyncio.wait_for(watcher, timeout=600)
    still_running = not round_2.done()
    log(f"sent while round 2 ran; the round {'was still running' if still_running else 'had ended'}; "
        + phase_figures(sent, submitted, seen, DURING))
    await round_2
    own.close()
    fake.latency = FAST_CALL_S
    return sent, still_running


def phase_figures(sent: list[float], submitted: dict[str, float], seen: dict[str, float], prefix: str) -> str:
    """A phase's figures so far, logged as it ends (a run stopped later still leaves them)."""
    delays = sorted(seen[t] - submitted[t] for t in seen if t in submitted and t.startswith(prefix))
    said = sorted(sent)
    never = sum(x == float("inf") for x in said)
    return (f"Send -> 'Sent' p95 {_p95(said):.2f} s (n={len(said)}, never said {never}); "
            f"on the facilitator's screen p95 {_p95(delays):.2f} s (n={len(delays)})")


# Stamped by each phone's page itself (as the facilitator's SEEN_JS): a timer looks every 50 ms for the reveal and
# notes the wall clock when it is first there. Waiting through DevTools would add the round trips of 30 phones'
# waits, queued in one browser process, to a figure whose target is 3 s.
REVEAL_JS = """(selector) => {
  window.__revealedAt = 0;
  const look = () => selector.startsWith("text=") ? document.body.innerText.includes(selector.slice(5))
                                                 : document.querySelector(selector) !== null;
  const timer = setInterval(() => { if (look()) { window.__revealedAt = Date.now(); clearInterval(timer); } }, 50);
}"""


async def reveal(fac, phones: list, store, run_id: str) -> tuple[list[float], float]:  # noqa: ANN001
    """Every phone waiting for the reveal; the facilitator presses it; seconds until each phone shows it, and until
    the store has it (the facilitator's page's part of the time)."""
    waiting = await asyncio.gather(*(pg.get_by_text(bench_phone.WAITING).first.wait_for() for pg in phones),
                                   return_exceptions=True)
    late = [pg for pg, w in zip(phones, waiting, strict=True) if isinstance(w, BaseException)]
    if late:  # a phone that never came to wait for it is still timed (it may show the reveal itself)
        log(f"{len(late)} phone(s) never said the facilitator will reveal (in {TIMEOUT_MS / 1000:.0f} s)")
        await stuck(late[0], "waiting-for-reveal")
    for pg in phones:
        await pg.evaluate(REVEAL_JS, bench_phone.REVEALED)
    await idle(fac)
    button = fac.get_by_role("button", name="Reveal predictions to the room")
    await button.wait_for()

    async def shown(pg) -> float:  # noqa: ANN001
        try:
            await pg.wait_for_function("() => window.__revealedAt > 0", polling=500, timeout=120_000)
        except PlaywrightError:
            return float("inf")  # never shown: the reveal's figures say inf
        return await pg.evaluate("() => window.__revealedAt") / 1000 - WALL_MINUS_PERF - pressed

    async def stored() -> float:  # an upper bound: this loop shares the bench's own (busy) event loop
        while not load_workshop(run_id, store=store).revealed:
            if time.perf_counter() - pressed > 120:
                return float("inf")
            await asyncio.sleep(0.05)
        return time.perf_counter() - pressed
    pressed = time.perf_counter()
    await button.click()
    in_store, *on_phones = await asyncio.gather(stored(), *(shown(pg) for pg in phones))
    return list(on_phones), in_store


async def bench(n: int, concurrency: int, processes: int = 1, where: str | None = None,
                arrive_s: float = 10.0) -> str:
    from playwright.async_api import async_playwright

    home = Path(tempfile.mkdtemp(prefix="bench-workshop-"))
    db = where or str(home / "runs.sqlite")
    token = secrets.token_urlsafe(24)  # one facilitator credential for every process
    with FakeOpenAI(latency=FAST_CALL_S) as fake:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0})
        store = RunStore(db)
        params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"],
                                rounds=3, review=True, pause_between_rounds=True)
        run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
        room = open_workshop(run_id, store=store)
        apps = [start_app(db, home, fake.url, token, f"app{i}") for i in range(processes)]
        urls = [u for _, u, _ in apps]
        url = apps[-1][1]  # the facilitator's process; participants alternate over all of them
        signin = f"{url}/signin?token={token}"  # the printed link masks a token given in the environment
        log(f"{processes} app process(es) on {store.label}; the phones on the phone page (/p/)")
        try:
            async with async_playwright() as p:
                # the facilitator's own browser, as on their own laptop: one Chromium's browser process carries
                # every page's socket and DevTools traffic, and 30 participants' would queue the facilitator's
                own = await p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
                # the phones: a Chromium per PHONES_PER_BROWSER (6 Chromiums for 30 phones on 2 cores loaded
                # the machine to 40 and joins took minutes: the browsers' own cost, not the app's)
                browsers = [await p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
                            for _ in range(-(-n // PHONES_PER_BROWSER))]
                fctx = await own.new_context(viewport={"width": 1400, "height": 1000})
                fac = await fctx.new_page()
                count_bytes(fac)
                fac.set_default_timeout(TIMEOUT_MS)
                await fac.goto(signin)  # the cookie: this browser is the facilitator from now on
                await fac.get_by_text("Model connection").first.wait_for()
                await fac.goto(f"{url}/whatif?run={run_id}")
                await fac.get_by_text("Scan to join").first.wait_for()
                log("facilitator page open")
                gate = asyncio.Semaphore(concurrency)
                # who spends the machine while the class joins: the app's processes, and the phones' browser
                browser_pids = [pr.pid for pr in psutil.Process().children(recursive=True) if "chrom" in pr.name()]
                app_pids = [proc.pid for proc, _, _ in apps]
                cpu0 = (cpu_s(app_pids), cpu_s(browser_pids), time.perf_counter())
                joined = await asyncio.gather(*(join(browsers[i % len(browsers)], urls[i % processes], room.code, i,
                                                     arrive_s * (i - 1) / n, gate) for i in range(1, n + 1)))
                people = [(ctx, pg) for ctx, pg, _ in joined]
                join_s = sorted(s for _, _, s in joined)
                cpu1 = (cpu_s(app_pids), cpu_s(browser_pids), time.perf_counter())
                join_cpu = tuple(b - a for a, b in zip(cpu0, cpu1, strict=True))
                log(f"{n} joined over {arrive_s:.0f} s: p95 {_p95(join_s):.2f} s in the room; CPU s: app "
                    f"{join_cpu[0]:.0f}, browsers {join_cpu[1]:.0f} over {join_cpu[2]:.0f} s")
                log("each step of a join, p95: " + ", ".join(f"{step} {_p95(sorted(s)):.2f} s"
                                                             for step, s in bench_phone.STEPS.items()))
                began = time.perf_counter()
                await asyncio.gather(*(predict(pg, gate) for _, pg in people))
                log(f"{n} predicted in {time.perf_counter() - began:.1f} s")
                service.run({}, settings=settings, store=store, run_id=run_id, answer={"action": "continue"})
                log("round 1 done; paused between rounds")
                submitted: dict[str, float] = {}
                seen: dict[str, float] = {}
                sent_paused: list[float] = []
                watcher = asyncio.create_task(watch(fac, submitted, seen, n * CONTRIBUTIONS_EACH))
                await asyncio.gather(*(contribute(pg, [f"Student {i:02d} point {k}: harbour tides stop"
                                                       for k in range(CONTRIBUTIONS_EACH)], submitted, sent_paused,
                                                  gate) for i, (_, pg) in enumerate(people, 1)))
                log("contributions sent; " + phase_figures(sent_paused, submitted, seen, "Student "))
                missing = await own_missing([(pg, [f"Student {i:02d} point {k}: harbour tides stop"
                                                   for k in range(CONTRIBUTIONS_EACH)])
                                             for i, (_, pg) in enumerate(people, 1)])
                log(f"{missing} sent texts missing from their own phone's room list 15 s later")
                ws = load_workshop(run_id, store=store)
                by_name: dict[str, list[str]] = {}
                for c in ws.contributions:
                    by_name.setdefault(c.name, []).append(c.id)
                names = [f"Student {i:02d}" for i in range(1, n + 1)]
                targets = [[by_name.get(names[(i + d) % n], [""])[0] for d in range(1, 1 + VOTES_EACH)]
                           for i in range(n)]
                began = time.perf_counter()
                await asyncio.gather(*(vote(pg, set(by_name.get(names[i], [])), targets[i], gate)
                                       for i, (_, pg) in enumerate(people)))
                log(f"votes sent in {time.perf_counter() - began:.1f} s (each landed: its button said so)")
                await asyncio.wait_for(watcher, timeout=600)
                log(f"{sum(t in seen for t in submitted)} of {len(submitted)} contributions seen by the facilitator; "
                    + phase_figures(sent_paused, submitted, seen, "Student "))
                phone_median, phone_max, fac_bytes = await idle_bytes([pg for _, pg in people], fac)
                log(f"idle {IDLE_S:.0f} s: kB per minute: phone median {phone_median / 1e3:.2f}, phone max "
                    f"{phone_max / 1e3:.2f}, facilitator {fac_bytes / 1e3:.2f}")
                paused_texts = set(submitted)
                sent_running, running = await while_a_round_runs(fac, people, settings, store, db, run_id,
                                                                 submitted, seen, fake, gate)
                service.run({}, settings=settings, store=store, run_id=run_id, answer={"action": "continue"})
                log("round 3 and the report done")
                reveal_s, reveal_stored = await reveal(fac, [pg for _, pg in people], store, run_id)
                log(f"revealed: in the store after {reveal_stored:.2f} s; on the phones p95 "
                    f"{_p95(sorted(reveal_s)):.2f} s, the last after {max(reveal_s):.2f} s")
                said = Counter(m for _, pg in people for m in CONSOLE.get(pg, [])
                               if not m.startswith(("debug:", "log:", "info:")))
                log(f"the phones' consoles said: {dict(said.most_common(8)) or 'nothing but debug/log/info'}")
                for browser in browsers:
                    await browser.close()
                await own.close()
        finally:
            for proc, _, _ in apps:
                proc.terminate()
            for proc, _, _ in apps:
                proc.wait(timeout=20)
        ws = load_workshop(run_id, store=store)
        texts = Counter(c.text for c in ws.contributions)
        vote_pairs = Counter((v.participant_id, v.contribution_id) for v in ws.votes)
        expected_votes = n * min(VOTES_EACH, n - 1)  # never one's own; a class of 3 has 2 others each
        # each phone sends CONTRIBUTIONS_EACH while paused and one while round 2 runs: a text never pressed is lost
        lost = (sum(1 for t in submitted if t not in texts) + (n * (CONTRIBUTIONS_EACH + 1) - len(submitted))
                + max(0, expected_votes - len(vote_pairs)) + sum(1 for t in submitted if t not in seen))
        duplicated = sum(c - 1 for c in texts.values() if c > 1) + sum(c - 1 for c in vote_pairs.values() if c > 1)
        delays = sorted(seen[t] - submitted[t] for t in seen if t in paused_texts)
        delays_running = sorted(seen[t] - submitted[t] for t in seen if t not in paused_texts)
        p95 = _p95(delays)
        # where the time goes: the participant's Send until the store has it, then until the facilitator sees it
        stored = {c.text: c.at - WALL_MINUS_PERF for c in ws.contributions}
        to_store = sorted(stored[t] - submitted[t] for t in seen if t in stored and t in paused_texts)
        to_screen = sorted(seen[t] - stored[t] for t in seen if t in stored and t in paused_texts)
        repeated = ",".join(f"{k.replace(' ', '_')}:{v}" for k, v in sorted(RETRIES.items())) or "0"
        print(f"joined={len(ws.participants)} predictions={len(ws.predictions)} "
              f"median_visible_s={statistics.median(delays) if delays else float('nan'):.2f} "
              f"max_visible_s={max(delays) if delays else float('nan'):.2f} concurrency={concurrency} "
              f"clicks_repeated={repeated} p95_send_to_store_s={_p95(to_store):.2f} "
              f"p95_store_to_facilitator_s={_p95(to_screen):.2f} idle_kb_per_min_phone_median={phone_median / 1e3:.2f} "
              f"idle_kb_per_min_phone_max={phone_max / 1e3:.2f} idle_kb_per_min_facilitator={fac_bytes / 1e3:.2f} "
              f"reveal_in_store_s={reveal_stored:.2f}")
        print(f"targets (#42): p95_join_s={_p95(join_s):.2f} (<= 3, {n} arriving over {arrive_s:.0f} s, "
              f"at most {concurrency} loading; p95_join_wait_s={_p95(sorted(WAITED)):.2f}; CPU s app "
              f"{join_cpu[0]:.0f} browsers {join_cpu[1]:.0f} in {join_cpu[2]:.0f} s) "
              f"p95_sent_s={_p95(sorted(sent_paused)):.2f} (<= 1) p95_visible_s={p95:.2f} (<= 2) "
              f"while_running: rounds_running={running} p95_sent_s={_p95(sorted(sent_running)):.2f} (<= 1) "
              f"p95_visible_s={_p95(delays_running):.2f} (<= 2) "
              f"reveal_p95_s={_p95(sorted(reveal_s)):.2f} reveal_last_s={max(reveal_s):.2f} (<= 3) "
              f"own_texts_missing_from_own_list={missing}")
        backend = store.backend
        store.close()
        return (f"participants={len(ws.participants)} contributions={len(ws.contributions)} votes={len(ws.votes)} "
                f"lost={lost} duplicated={duplicated} p95_visible_s={p95:.2f} processes={processes} store={backend}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=30)
    ap.add_argument("--concurrency", type=int, default=10, help="participants acting at the same moment")
    ap.add_argument("--processes", type=int, default=1, help="ifworld app processes on the one store")
    ap.add_argument("--store", help="postgresql:// URL (an empty database) or SQLite file; default: a new file")
    ap.add_argument("--arrive-s", type=float, default=10.0, help="the phones arrive evenly over these seconds")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit("Chromium is not installed (scripts/browser.sh installs Debian's chromium)")
    print(asyncio.run(bench(args.participants, args.concurrency, args.processes, args.store, args.arrive_s)))


if __name__ == "__main__":
    main()
