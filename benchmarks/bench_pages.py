"""Page loads in Chromium: seconds from opening each page's address to its first paint and to the page being idle.

A store is filled first the way a user fills it — what-if runs against the demo server (``ifworld whatif run``),
a saved belief simulation, a belief sweep — then ``streamlit run app.py`` serves it and every page is opened in
a fresh tab (the server is warm: the first page of the run pays the imports, as it does for a class that opened
Home first). "Paint" is the page's title on screen; "idle" is Streamlit's running indicator gone. Two
interactions are timed too: switching the run shown on the Causal map, and clicking a node of the belief
player until its inspector shows. Target: every page's first paint under 3 s on the 2-core machine.

    python benchmarks/bench_pages.py [--runs 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402

PAGES = {  # address: (text that marks the first paint, text that marks the page's content)
    "": ("IF-World Studio", "Reasoning With a Star"),
    "whatif": ("What-if", "Proposition"),
    "causal_map": ("Causal map", "Causal map"),
    "runs": ("Runs", "Runs"),
    "rws_browse": ("RWS browse", "Grade"),
    "rws_benchmark": ("RWS benchmark", "RWS benchmark"),
    "beliefs": ("Belief exchange", "Run simulation"),
    "belief_sweep": ("Belief sweep", "Define the grid"),
    "settings": ("About & settings", "Model connection"),
}
PROPOSITIONS = ("What if the Moon disappeared?", "What if sea level rose by one metre by 2050?",
                "What if every car were electric by 2030?", "What if the Gulf Stream stopped?")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout_s: float = 90) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer within {timeout_s:.0f} s")


def fill_store(env: dict[str, str], runs: int) -> None:
    """What-if runs through the CLI against the demo server, a belief simulation and a small sweep."""
    for proposition in PROPOSITIONS[:runs]:
        subprocess.run([sys.executable, "-m", "ifworld.cli", "whatif", "run", proposition, "--out", os.devnull],
                       cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    code = ("from ifworld import beliefs\nfrom ifworld.beliefs import BeliefConfig, simulate\n"
            "beliefs.save_simulation(simulate(BeliefConfig(), seed=0, runs=20, record=True))\n"
            "rid = beliefs.start_sweep({'grid': {'agents': [10, 20], 'bandwidth': [1, 3]}, 'seeds': [0], 'runs': 10})\n"
            "beliefs.run_sweep_run(rid)\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)


def idle(page, timeout_s: float = 120) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if page.locator("[data-testid=stStatusWidget]").count() == 0:
            time.sleep(0.1)
            if page.locator("[data-testid=stStatusWidget]").count() == 0:
                return
        time.sleep(0.05)


def load(context, url: str, path: str) -> tuple[float, float]:
    paint_text, content_text = PAGES[path]
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(f"{url}/{path}")
    main = page.locator("[data-testid=stMain]")
    main.get_by_text(paint_text).first.wait_for(timeout=120_000)
    paint = time.perf_counter() - t0
    main.get_by_text(content_text).first.wait_for(timeout=120_000)
    idle(page)
    ready = time.perf_counter() - t0
    page.close()
    return paint, ready


def causal_switch(context, url: str) -> float:
    page = context.new_page()
    page.goto(f"{url}/causal_map")
    box = page.locator("[data-testid=stMain] [data-testid=stSelectbox]").first
    box.wait_for(timeout=120_000)
    idle(page)
    box.click()
    options = page.locator("[role=option]")
    options.first.wait_for()
    t0 = time.perf_counter()
    options.nth(options.count() - 1).click()
    time.sleep(0.3)  # the rerun starts after the click reaches the server
    idle(page)
    took = time.perf_counter() - t0
    page.close()
    return took


def node_click(context, url: str) -> float:
    page = context.new_page()
    page.goto(f"{url}/beliefs")
    page.get_by_role("button", name="Run simulation").click()
    page.get_by_text(re.compile(r"Round 0 of \d+")).first.wait_for(timeout=120_000)
    idle(page)
    page.get_by_role("button", name="End").click()
    idle(page)
    nodes = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace").last.locator("path.point")
    times = []
    for agent in (3, 6, 9):  # the first click of a session is timed like the others
        t0 = time.perf_counter()
        nodes.nth(agent).click(force=True)
        page.get_by_text(f"Agent {agent}: confidence per fact").first.wait_for(timeout=120_000)
        times.append(time.perf_counter() - t0)
        idle(page)
    page.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="what-if runs in the store (at most 4)")
    parser.add_argument("--repeats", type=int, default=3, help="loads of each page (median kept)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    home = Path(tempfile.mkdtemp())
    demo_port, app_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_DB": str(home / "runs.sqlite"), "IFWORLD_BASE_URL": f"http://127.0.0.1:{demo_port}/v1",
                "IFWORLD_MODEL": "ifworld-demo", "PYTHONPATH": str(ROOT)})
    demo = subprocess.Popen([sys.executable, "-m", "ifworld.cli", "demo-server", "--port", str(demo_port)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    app = None
    try:
        wait_http(f"http://127.0.0.1:{demo_port}/v1/models")
        t0 = time.perf_counter()
        fill_store(env, min(args.runs, len(PROPOSITIONS)))
        print(f"store filled in {time.perf_counter() - t0:.1f} s")
        app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(app_port),
                                "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{app_port}"
        wait_http(f"{url}/_stcore/health")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            load(context, url, "")  # the server's first page pays the imports
            print(f"{'page':<15} {'paint s':>8} {'idle s':>8}   (median of {args.repeats})")
            worst = 0.0
            for path in PAGES:
                paints, readies = zip(*(load(context, url, path) for _ in range(args.repeats)), strict=True)
                paint, ready = statistics.median(paints), statistics.median(readies)
                worst = max(worst, paint)
                print(f"/{path:<14} {paint:>8.2f} {ready:>8.2f}")
            switch = causal_switch(context, url)
            click = node_click(context, url)
            print(f"causal map: switch run {switch:.2f} s; belief player: node click to inspector {click:.2f} s "
                  "(median of 3)")
            print(f"SUMMARY worst_first_paint_s={worst:.2f} causal_switch_s={switch:.2f} node_click_s={click:.2f} "
                  f"load_avg={os.getloadavg()[0]:.1f}")
            browser.close()
    finally:
        for proc in (app, demo):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)


if __name__ == "__main__":
    main()
