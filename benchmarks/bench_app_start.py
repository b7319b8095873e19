"""App cold start: seconds from `streamlit run app.py` to the landing page rendered in Chromium.

Prints the server-ready time and the first-render time (median of N cold starts) and a SUMMARY line.
Usage: .venv/bin/python benchmarks/bench_app_start.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cold_start(browser) -> tuple[float, float]:
    port = free_port()
    env = {**os.environ, "IFWORLD_DB": str(Path(tempfile.mkdtemp()) / "runs.sqlite")}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                             "--server.headless", "true"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        while True:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        ready = time.perf_counter() - t0
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("IF-World Studio").first.wait_for(timeout=60_000)
        page.get_by_text("Reasoning With a Star").first.wait_for(timeout=60_000)
        rendered = time.perf_counter() - t0
        page.close()
        return ready, rendered
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        times = [cold_start(browser) for _ in range(args.repeats)]
        browser.close()
    ready = statistics.median(t[0] for t in times)
    render = statistics.median(t[1] for t in times)
    print(f"server ready:        {ready:.2f} s (median of {args.repeats})")
    print(f"first page rendered: {render:.2f} s (median of {args.repeats})")
    print("SUMMARY " + json.dumps({"app cold start to first render (s)": round(render, 2)}))


if __name__ == "__main__":
    main()
