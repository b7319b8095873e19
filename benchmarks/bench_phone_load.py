"""What the phone page's server does for a big class: N phones as HTTP clients (no browsers) on one or more
``ifworld app`` processes sharing one store — #42's "100 phones over 2 processes on PostgreSQL".

Each phone is an ``httpx`` client with its own device cookie and its own address (``X-Forwarded-For`` through
``IFWORLD_TRUSTED_PROXIES``, as behind docs/deploy.md's proxy), speaking the page's own protocol
(ui/phone_server.py): it enters the code, joins, holds the server-sent-event stream open and rebuilds its view
from the patches, as ``ifworld/web/phone.js`` does. Browsers are left out on purpose: on one 2-core machine 100
Chromium pages would measure the browsers (``bench_workshop.py`` measures real pages, 30 at most). The
facilitator's moves are engine calls from this process (continue, reveal), on the same store. Timed:

1. join: phones arrive evenly over ``--arrive-s``; each from its first request until its stream brings its view;
2. predict (an even split), then the run continues to round 1; how long until every phone's view offers the
   contribution form;
3. two contributions each (one each past 50 phones: a phone lists the latest 100), the POST's answer (the page
   says "Sent" on it), and until the text is in every other phone's view (p95 over phones × texts);
4. the same while round 2 runs on a model that takes ``ROUND_CALL_S`` a call;
5. the reveal: until every phone's view holds the revealed table;
6. idle: the bytes each stream brings in ``IDLE_S`` while nobody acts, per minute.

``--facilitator`` adds the facilitator's own page in one Chromium (signed in, on the run's page), which stamps
each text when it first draws it, as in ``bench_workshop.py``: the facilitator's screen under the load of N
phones, without N browsers on the same two cores.

``--browsers K`` makes K of the N phones real phone pages in one Chromium (390×844,
``benchmarks/browser_phones.py``), spread over the arrivals and timed where a person sees each moment — open →
in the room, Send → "Sent", a text drawn in the other real pages' rooms, the reveal's table — under the load of
the other N − K: #42's targets "with browsers on the same machine", without 30 Chromium pages taking the two
cores from the server they measure (a page's join costs the browser 1.2–1.3 CPU s: ``bench_browser_cost.py``).

    python benchmarks/bench_phone_load.py --phones 30 --browsers 5 --facilitator
    python benchmarks/bench_phone_load.py --phones 30 --browsers 5 --facilitator --pulse both   # without, then with
    python benchmarks/bench_phone_load.py --phones 100 --processes 2 --store postgres   # a throwaway cluster
    python benchmarks/bench_phone_load.py --phones 100 --processes 2 --store postgresql://user:pw@host/db
    python benchmarks/bench_phone_load.py --phones 30                    # a new SQLite store, one process

The last line: ``phones=N processes=P store=… p95_join_s=… p95_send_s=… p95_seen_s=… p95_seen_round_s=…
reveal_last_s=… idle_bytes_per_min_median=… lost=…``, then the facilitator's and the real pages' figures when asked.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_workshop import SEEN_JS, WALL_MINUS_PERF, cpu_s, start_app, stop_app  # noqa: E402
from benchmarks.browser_phones import BrowserPhone  # noqa: E402
from ifworld import whatif  # noqa: E402
from ifworld.access import OPERATOR  # noqa: E402
from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402
from ui.workshop_rows import PARTICIPANT_ROWS  # noqa: E402

HEADERS = {"content-type": "application/json", "x-ifworld-phone": "1"}
FAST_CALL_S, ROUND_CALL_S = 0.05, 4.0
IDLE_S = 30.0
WARM_S = 10.0
WAIT_S = 180.0
T0 = time.perf_counter()
STEPS: dict[str, list[float]] = {"page": [], "code": [], "name": [], "first view": []}  # a join's steps, timed


def log(message: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {message}", file=sys.stderr, flush=True)


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * len(values)))] if values else float("nan")


class Phone:
    """One participant's phone: its client, its stream's view and when each text first appeared in it."""

    def __init__(self, i: int, url: str) -> None:
        self.i, self.name = i, f"Student {i}"
        # idle connections are let go after 5 s: the server closes one idle for IFWORLD_HEAD_TIMEOUT_S (10 s), and a
        # request sent on it as it closes fails (a browser sends it again; httpx does not)
        self.client = httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(keepalive_expiry=5.0),
                                        headers={"x-forwarded-for": f"10.42.{i // 250}.{i % 250 + 1}"})
        self.view: dict = {"rows": []}
        self.token = ""
        self.bytes = 0
        self.first_view = asyncio.Event()
        self.seen: dict[str, float] = {}  # text -> when this phone's view first held it
        self.changed = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def post(self, action: str, body: dict) -> dict:
        reply = await self.client.post(f"/p/{action}", content=json.dumps(body), headers=HEADERS)
        data = reply.json()
        if not data.get("ok"):
            raise RuntimeError(f"{self.name}: {action} refused ({reply.status_code}): {data.get('message')}")
        return data

    async def join(self, code: str) -> float:
        began = time.perf_counter()
        await self.client.get("/p/")  # the device cookie, as a page's first visit gets it (the code screen)
        STEPS["page"].append(time.perf_counter() - began)
        mark = time.perf_counter()
        self.token = (await self.post("find", {"code": code}))["token"]
        await self.client.get(f"/p/?w={self.token}")  # the page the code leads to: the name form
        STEPS["code"].append(time.perf_counter() - mark)
        mark = time.perf_counter()
        await self.post("join", {"token": self.token, "given": self.name})
        STEPS["name"].append(time.perf_counter() - mark)
        mark = time.perf_counter()
        self.task = asyncio.create_task(self.listen())
        await asyncio.wait_for(self.first_view.wait(), WAIT_S)
        STEPS["first view"].append(time.perf_counter() - mark)
        return time.perf_counter() - began

    async def listen(self) -> None:
        event = ""
        async with self.client.stream("GET", f"/p/events?w={self.token}", timeout=None) as stream:
            async for line in stream.aiter_lines():
                self.bytes += len(line) + 1
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "patch":
                    self.apply(json.loads(line[6:]))

    def apply(self, patch: dict) -> None:
        rows = patch.pop("rows", None)
        self.view.update(patch)
        if rows is not None:
            by_id = {r["id"]: r for r in self.view["rows"]}
            by_id.update({r["id"]: r for r in rows["changed"]})
            self.view["rows"] = [by_id[i] for i in rows["order"] if i in by_id]
        now = time.perf_counter()
        for row in self.view["rows"]:
            self.seen.setdefault(row["text"], now)
        self.first_view.set()
        self.changed.set()

    async def until(self, test, what: str) -> float:  # noqa: ANN001
        """Seconds until ``test(view)`` holds (waiting on the stream's changes)."""
        began = time.perf_counter()
        while not test(self.view):
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), WAIT_S - (time.perf_counter() - began))
            except asyncio.TimeoutError:
                raise RuntimeError(f"{self.name}: {what} not seen in {WAIT_S:.0f} s") from None
        return time.perf_counter() - began

    async def close(self) -> None:
        if self.task:
            self.task.cancel()
        await self.client.aclose()


async def send_all(phones: list[Phone], texts: dict, fac=None,  # noqa: ANN001
                   kind: str = "claim", pages: list[BrowserPhone] = ()) -> tuple[list[float], list[float], int,
                                                                               list[float], dict[str, list[float]]]:
    """Every phone sends its texts (``pages``, the real phone pages, through their own form); (answer seconds,
    seconds until in every other phone's view, texts lost, seconds until on the facilitator's screen — when
    ``fac``, the facilitator's page, is given —, and the real pages' figures: "sent" until the page said so,
    "seen" until a text was drawn in another real page's room)."""
    sent_at: dict[str, float] = {}
    answers: list[float] = []
    on_pages: dict[str, list[float]] = {"sent": [], "seen": []}

    async def send(phone: Phone) -> None:
        for text in texts[phone]:
            began = time.perf_counter()
            await phone.post("send", {"token": phone.token, "text": text, "kind": kind, "tag": ""})
            answers.append(time.perf_counter() - began)
            sent_at[text] = began

    async def press(page: BrowserPhone) -> None:
        for text in texts[page]:
            sent_at[text], took = await page.send(text)
            on_pages["sent"].append(took)

    await asyncio.gather(*(send(p) for p in phones), *(press(p) for p in pages))
    everything = {t for ts in texts.values() for t in ts}
    deadline = time.perf_counter() + WAIT_S
    while time.perf_counter() < deadline and not all(everything <= set(p.seen) for p in phones):
        await asyncio.sleep(0.2)
    seen = [p.seen[t] - sent_at[t] for p in phones for t in everything if t in p.seen and t not in texts[p]]
    lost = sum(t not in p.seen for p in phones for t in everything)
    for page in pages:
        drawn = await page.seen()
        on_pages["seen"] += [drawn[t] - sent_at[t] for t in everything if t in drawn and t not in texts[page]]
        lost += sum(t not in drawn for t in everything)
    on_screen: list[float] = []
    stamps: dict[str, float] = {}
    if fac is not None:  # the facilitator's page stamps each text as it first draws it (bench_workshop's SEEN_JS)
        while time.perf_counter() < deadline:
            stamps = await fac.evaluate("() => window.__seen") or {}
            if everything <= set(stamps):
                break
            await asyncio.sleep(1)
        on_screen = [stamps[t] / 1000 - WALL_MINUS_PERF - sent_at[t] for t in everything if t in stamps]
        lost += len(everything) - len(on_screen)
    return answers, seen, lost, on_screen, on_pages


async def facilitator_page(p, signin: str, url: str, run_id: str, pulse: bool = True):  # noqa: ANN001, ANN201
    """The facilitator's own browser on the run's page (the last process), stamping texts as they appear;
    ``pulse=False`` refuses the page its room's pulse (ui/room_pulse.py): the room is then redrawn on its timer alone,
    as before the pulse, or behind a proxy that holds the stream back."""
    browser = await p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    page = await (await browser.new_context(viewport={"width": 1400, "height": 1000})).new_page()
    page.set_default_timeout(180_000)
    if not pulse:
        await page.route("**/p/pulse*", lambda route: route.abort())
    await page.goto(signin)
    await page.goto(f"{url}/whatif?run={run_id}")
    await page.get_by_text("Scan to join").first.wait_for()
    await page.evaluate(SEEN_JS)
    return page


async def bench(n: int, processes: int, where: str | None, arrive_s: float, with_facilitator: bool = False,
                browsers: int = 0, pulse: bool = True) -> str:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        return await _bench(p, n, processes, where, arrive_s, with_facilitator, browsers, pulse)


def _pages_at(n: int, browsers: int) -> set[int]:
    """Which of the phones 1..n are real pages: spread evenly over the arrivals."""
    return {min(n, max(1, round((j + 0.5) * n / browsers))) for j in range(browsers)} if browsers else set()


async def _bench(p, n: int, processes: int, where: str | None, arrive_s: float,  # noqa: ANN001
                 with_facilitator: bool, browsers: int, pulse: bool) -> str:
    home = Path(tempfile.mkdtemp(prefix="bench-phone-load-"))
    db = where or str(home / "runs.sqlite")
    with FakeOpenAI(latency=FAST_CALL_S) as fake:
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0,
                                  "max_concurrency": 16})
        store = RunStore(db)
        params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"],
                                rounds=3, review=True, pause_between_rounds=True)
        run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
        room = whatif.open_workshop(run_id, caller=OPERATOR, store=store)
        token = secrets.token_urlsafe(24)  # one facilitator credential for every process
        apps = [start_app(db, home, fake.url, token, f"app{i}") for i in range(processes)]
        # each process opens the join link once before the class comes, as the facilitator trying it would: its
        # first read of the run (the workflow's imports, 3 s on a loaded machine) is not a phone's wait
        for _, url, _ in apps:
            httpx.get(f"{url}/p/?w={room.token}", timeout=120)
        time.sleep(WARM_S)
        log(f"{processes} app process(es) on {store.label}; {n} phones")
        real = _pages_at(n, browsers)
        phones = [Phone(i, apps[i % processes][1]) for i in range(1, n + 1) if i not in real]
        pages: list[BrowserPhone] = []
        app_pids = [proc.pid for proc, _, _ in apps]
        try:
            fac = await facilitator_page(p, f"{apps[-1][1]}/signin?token={token}", apps[-1][1], run_id, pulse) \
                if with_facilitator else None
            if real:  # one Chromium for the real pages, apart from the facilitator's
                chromium = await p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
                pages = [BrowserPhone(i, apps[i % processes][1], chromium) for i in sorted(real)]
            cpu0 = cpu_s(app_pids)

            async def arrive(phone: Phone | BrowserPhone) -> float:
                await asyncio.sleep(arrive_s * (phone.i - 1) / n)
                return await phone.join(room.code)

            arrived = await asyncio.gather(*(arrive(p) for p in [*phones, *pages]))
            join_s, page_join_s = arrived[:len(phones)], arrived[len(phones):]
            log(f"joined: p95 {p95(join_s):.2f} s, max {max(join_s):.2f} s; app CPU {cpu_s(app_pids) - cpu0:.1f} s; "
                "each step, p95: " + ", ".join(f"{k} {p95(v):.2f} s" for k, v in STEPS.items()) +
                (f"; the real pages, open → in the room: {', '.join(f'{s:.2f}' for s in page_join_s)} s"
                 if pages else ""))
            names = phones[0].view["branches"]
            await asyncio.gather(*(p.post("predict", {"token": p.token, "probabilities": whatif.even_split(names)})
                                   for p in phones), *(pg.predict() for pg in pages))
            began = time.perf_counter()
            service.run({}, settings=settings, store=store, run_id=run_id, answer={"action": "continue"})
            ran = time.perf_counter() - began
            form_s = await asyncio.gather(*(p.until(lambda v: v.get("form") == "contribute", "the contribution form")
                                            for p in phones))
            await asyncio.gather(*(pg.contribute_form() for pg in pages))
            log(f"round 1 ran {ran:.1f} s; every phone offered the form {max(form_s):.2f} s after")
            # a phase's new texts fit a phone's list (its latest PARTICIPANT_ROWS) and the facilitator's (a page of
            # PAGE_ROWS per kind: the paused phase's are claims, the round's evidence), so each can be seen by all
            each = max(1, min(2, PARTICIPANT_ROWS // n))
            texts = {p: [f"Point {k} from student {p.i}: tides matter" for k in range(1, each + 1)]
                     for p in [*phones, *pages]}
            answers, seen, lost, fac_s, on_pages = await send_all(phones, texts, fac, pages=pages)
            log(f"paused: answer p95 {p95(answers):.2f} s; in every other phone p95 {p95(seen):.2f} s; on the "
                f"facilitator's screen p95 {p95(fac_s):.2f} s; lost {lost}" + _pages_said(on_pages))
            fake.latency = ROUND_CALL_S
            driver = threading.Thread(target=lambda: [None for _ in whatif.continue_workshop(
                run_id, OPERATOR, store=store, settings=settings, background=False) or ()], daemon=True)
            driver.start()
            await asyncio.gather(*(p.until(lambda v: v.get("form") == "contribute" and "running" in
                                           v.get("status_line", ""), "round 2 running") for p in phones))
            during = {p: [f"During round 2, student {p.i}: harbours"] for p in [*phones, *pages]}
            answers2, seen2, lost2, fac2_s, on_pages2 = await send_all(phones, during, fac, "evidence", pages)
            still = driver.is_alive()
            log(f"round 2 (running to the end: {still}): answer p95 {p95(answers2):.2f} s; in every other phone "
                f"p95 {p95(seen2):.2f} s; on the facilitator's screen p95 {p95(fac2_s):.2f} s; lost {lost2}" +
                _pages_said(on_pages2))
            fake.latency = FAST_CALL_S
            await asyncio.to_thread(driver.join)
            for _ in whatif.continue_workshop(run_id, OPERATOR, store=store, settings=settings,
                                              background=False) or ():
                pass
            await asyncio.gather(*(p.until(lambda v: (v.get("reveal") or {}).get("revealed") is False,
                                           "the report") for p in phones))
            at_rest = [p.bytes for p in phones]
            await asyncio.sleep(IDLE_S)  # nobody acts: what each stream still brings
            idle_per_min = [(p.bytes - b) * 60 / IDLE_S for p, b in zip(phones, at_rest, strict=True)]
            pressed = time.perf_counter()
            whatif.reveal_workshop(run_id, OPERATOR, store=store)
            reveal_s = await asyncio.gather(*(p.until(lambda v: (v.get("reveal") or {}).get("revealed"),
                                                      "the reveal") for p in phones))
            page_reveal_s = [await pg.revealed() - pressed for pg in pages]
            log(f"reveal: on every phone within {max(reveal_s):.2f} s; idle bytes a minute per phone: median "
                f"{statistics.median(idle_per_min):.0f}, max {max(idle_per_min):.0f}")
            return (f"phones={n} processes={processes} store={'postgres' if db.startswith('postgres') else 'sqlite'} "
                    f"p95_join_s={p95(join_s):.2f} p95_send_s={p95(answers + answers2):.2f} "
                    f"p95_seen_s={p95(seen):.2f} p95_seen_round_s={p95(seen2):.2f} reveal_last_s={max(reveal_s):.2f} "
                    f"idle_bytes_per_min_median={statistics.median(idle_per_min):.0f} lost={lost + lost2}" +
                    (f" pulse={'on' if pulse else 'off'} p95_facilitator_s={p95(fac_s):.2f} "
                     f"p95_facilitator_round_s={p95(fac2_s):.2f}" if fac else "") +
                    (f" pages={len(pages)} pages_p95_join_s={p95(page_join_s):.2f} "
                     f"pages_p95_sent_s={p95(on_pages['sent'] + on_pages2['sent']):.2f} "
                     f"pages_p95_seen_s={p95(on_pages['seen']):.2f} "
                     f"pages_p95_seen_round_s={p95(on_pages2['seen']):.2f} "
                     f"pages_reveal_last_s={max(page_reveal_s):.2f}" if pages else ""))
        finally:
            await asyncio.gather(*(p.close() for p in [*phones, *pages]), return_exceptions=True)
            for proc, _, _ in apps:
                stop_app(proc)
            store.close()


def _pages_said(figures: dict[str, list[float]]) -> str:
    if not figures["sent"]:
        return ""
    return (f"; the real pages: Sent p95 {p95(figures['sent']):.2f} s, drawn in the other pages' rooms p95 "
            f"{p95(figures['seen']):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=30)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--store", default=None, help="postgresql://… (an empty database) or a SQLite file")
    parser.add_argument("--arrive-s", type=float, default=10.0)
    parser.add_argument("--facilitator", action="store_true",
                        help="also the facilitator's page in a browser (Chromium), timed as bench_workshop.py does")
    parser.add_argument("--browsers", type=int, default=0,
                        help="how many of the phones are real phone pages in Chromium (benchmarks/browser_phones.py)")
    parser.add_argument("--pulse", choices=["on", "off", "both"], default="on",
                        help="the facilitator's page with its room's pulse, without it (the room on its timer "
                             "alone), or a run of each, one after the other (with --facilitator)")
    args = parser.parse_args()
    if not 0 <= args.browsers < args.phones:
        sys.exit("--browsers: from 0 to one less than --phones (the HTTP phones carry the class's load)")
    if args.pulse != "on" and not args.facilitator:
        sys.exit("--pulse: the pulse is the facilitator's page's; add --facilitator")
    for pulse in {"on": [True], "off": [False], "both": [False, True]}[args.pulse]:
        _one_run(args, pulse)


def _one_run(args: argparse.Namespace, pulse: bool) -> None:
    if args.store != "postgres":
        print(asyncio.run(bench(args.phones, args.processes, args.store, args.arrive_s, args.facilitator,
                                args.browsers, pulse)), flush=True)
        return
    from tests.fixtures.postgres import PgServer, pg_bindir

    bindir = pg_bindir()
    if bindir is None:
        sys.exit("PostgreSQL's server binaries are missing (scripts/postgres.sh installs them)")
    cluster = PgServer(bindir, durable=True)  # the product's durable defaults, as docs/deploy.md sizes them
    cluster.start()
    try:
        print(asyncio.run(bench(args.phones, args.processes, cluster.create_db(), args.arrive_s, args.facilitator,
                                args.browsers, pulse)), flush=True)
    finally:
        cluster.remove()


if __name__ == "__main__":
    main()
