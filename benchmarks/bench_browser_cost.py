"""What one Chromium page costs the machine, apart from the app: why ``bench_workshop.py``'s 30 browser phones on
one 2-core machine measure the browsers, and why ``bench_phone_load.py --browsers K`` mixes a few real pages
into HTTP phones instead.

CPU seconds of the browser's processes (and Playwright's driver), per phone: a blank page opened in a new context
(no app at all), the phone page's whole join (code, name, in the room) one phone after another, and 12 phones
joining at once (does a phone's cost grow with the class?). The app's own CPU seconds are printed beside.

    python benchmarks/bench_browser_cost.py [--phones 12]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import bench_phone  # noqa: E402
from benchmarks.bench_workshop import cpu_s, start_app, stop_app  # noqa: E402
from ifworld.access import OPERATOR  # noqa: E402
from ifworld.config import load_settings  # noqa: E402
from ifworld.runs.store import RunStore  # noqa: E402
from ifworld.whatif import open_workshop, service  # noqa: E402
from ifworld.whatif.params import default_params  # noqa: E402
from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402

PHONE = {"width": 390, "height": 844}
BLANK = "data:text/html;charset=utf-8,<h1>👥 Join a workshop</h1><p>Loading…</p>"


def browsers_cpu(app_pid: int) -> float:
    """CPU seconds so far of this process's children but the app: Playwright's driver and the browser under it."""
    return cpu_s([c.pid for c in psutil.Process().children() if c.pid != app_pid])


async def measure(phones: int) -> None:
    from playwright.async_api import async_playwright

    home = Path(tempfile.mkdtemp(prefix="bench-browser-cost-"))
    db = str(home / "runs.sqlite")
    with FakeOpenAI(latency=0.05) as fake:
        store = RunStore(db)
        settings = load_settings({"base_url": fake.url, "model": "fake-model", "db_path": db})
        params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"],
                                rounds=2, review=True, pause_between_rounds=True)
        run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
        room = open_workshop(run_id, caller=OPERATOR, store=store)
        proc, url, _ = start_app(db, home, fake.url, secrets.token_urlsafe(24))
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)

                async def phone(i: int) -> None:
                    ctx = await browser.new_context(viewport=PHONE, is_mobile=True,
                                                    extra_http_headers={"X-Forwarded-For": f"10.44.0.{i}"})
                    await bench_phone.join(await ctx.new_page(), url, room.code, f"Student {i}")

                async def blank() -> None:
                    page = await (await browser.new_context(viewport=PHONE, is_mobile=True)).new_page()
                    await page.goto(BLANK)
                    await page.get_by_text("Loading").wait_for()

                await blank()
                await phone(1)  # warm: the first context and the app's first read are not a phone's cost
                for what, make in (("a blank page, each in a new context", lambda i: blank()),
                                   ("the phone page's join, one after another", phone)):
                    before, app = browsers_cpu(proc.pid), cpu_s([proc.pid])
                    for i in range(2, 8):
                        await make(i)
                    print(f"{what}: {(browsers_cpu(proc.pid) - before) / 6:.2f} CPU s per phone (browser and driver), "
                          f"the app {(cpu_s([proc.pid]) - app) / 6:.2f}")
                before, app = browsers_cpu(proc.pid), cpu_s([proc.pid])
                await asyncio.gather(*(phone(i) for i in range(10, 10 + phones)))
                each = (browsers_cpu(proc.pid) - before) / phones
                print(f"{phones} phones joining at once: {each:.2f} CPU s per phone, "
                      f"the app {(cpu_s([proc.pid]) - app) / phones:.2f}")
        finally:
            stop_app(proc)
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=12)
    asyncio.run(measure(parser.parse_args().phones))


if __name__ == "__main__":
    main()
