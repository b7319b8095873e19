"""axe-core in Chromium: the WCAG 2 A/AA rules run over a page Playwright has open (issue #35).

axe-core comes from the npm registry, installed by ``scripts/browser.sh`` into ``.cache/axe`` (the project's own
setup; nothing global). Used by ``tests/browser/test_a11y_browser.py``, ``tests/browser/test_a11y_states_browser.py``
and ``benchmarks/a11y_audit.py``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / ".cache/axe/node_modules/axe-core/axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")

# address: the page's title in the navigation (what the audit prints) — the facilitator's Streamlit pages
PAGES = {
    "": "Home",
    "whatif": "What-if",
    "causal_map": "Causal map",
    "runs": "Runs",
    "rws_browse": "RWS browse",
    "rws_benchmark": "RWS benchmark",
    "beliefs": "Belief exchange",
    "belief_sweep": "Belief sweep",
    "settings": "About & settings",
}
# what a participant or visitor meets: address (under the app's) → what it is (what the audit prints)
ROOM_PAGES = {
    "p/": "Phone page: code",
    "whatif": "Visitor's notice",
    "no_such_page": "Page not found",
}


@dataclass(frozen=True)
class Violation:
    """One axe rule that failed on a page: its id, impact, how many elements, and a sample of them."""

    rule: str
    impact: str
    count: int
    help: str
    targets: tuple[str, ...]
    notes: tuple[str, ...] = ()  # axe's message per element (for colour contrast: the two colours and the ratio)

    def line(self) -> str:
        sample = "; ".join(f"{t} [{n}]" for t, n in zip(self.targets[:4], self.notes[:4], strict=False))
        return f"{self.rule} ({self.impact}, {self.count}): {self.help} — e.g. {sample}"


def axe_available() -> bool:
    return AXE_JS.exists()


def settle(page, timeout_s: float = 120) -> None:
    """Wait until Streamlit has drawn the page: the app is there and its running indicator has stayed gone."""
    page.wait_for_selector("[data-testid=stApp]")
    deadline = time.time() + timeout_s
    quiet = 0
    while time.time() < deadline and quiet < 3:
        quiet = quiet + 1 if page.locator("[data-testid=stStatusWidget]").count() == 0 else 0
        time.sleep(0.3)
    page.wait_for_timeout(500)  # late paints (charts, iframes' own layout)


def settle_phone(page) -> None:
    """Wait until the phone page (``/p/``, no Streamlit) has drawn a screen in place of its "Loading…"."""
    page.wait_for_function("() => { const a = document.querySelector('#app');"
                           " return a && a.querySelector('h1') && !a.innerText.includes('Loading…'); }")


def run_axe(page, blocking_only: bool = True) -> list[Violation]:
    """Run axe-core's WCAG 2.0/2.1 A and AA rules on the page as it is now; serious and critical ones by default."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
    result = page.evaluate(
        """async (tags) => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help,
                                           targets: v.nodes.map(n => n.target.join(' ')),
                                           notes: v.nodes.map(n => ((n.any[0] || n.all[0] || n.none[0] || {}).message
                                                                    || '').slice(0, 160))}));
        }""",
        WCAG_TAGS,
    )
    out = [Violation(v["id"], v["impact"], len(v["targets"]), v["help"], tuple(v["targets"]), tuple(v["notes"]))
           for v in result]
    return [v for v in out if v.impact in BLOCKING] if blocking_only else out


def start_app(home: Path, fake_url: str, participant: bool = False, app: str | None = None,
              timeout_s: float = 90) -> tuple[subprocess.Popen, str]:
    """``ifworld app`` (the app as users start it: its server also serves the phone page, ``/p/``) on a free port
    with its own store in ``home``, talking to the fake model server. ``participant`` asks for the sign-in link
    (``--require-signin``), so every browser is a participant or visitor: on the Streamlit pages it reads only the
    facilitator-only notice. ``app``: another entry file served with ``streamlit run`` instead (to compare a
    layout; it has no phone page)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = app_env(home, fake_url)
    if app is None:
        cmd = [str(Path(sys.executable).parent / "ifworld"), "app", "--port", str(port),
               *(["--require-signin"] if participant else [])]
    else:
        if participant:
            env["IFWORLD_REQUIRE_SIGNIN"] = "1"
        cmd = [sys.executable, "-m", "streamlit", "run", app, "--server.port", str(port), "--server.headless", "true"]
    log = (home / f"app-{port}.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the app did not start: {(home / f'app-{port}.log').read_text()[-2000:]}")


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def app_env(home: Path, fake_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": fake_url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": "sk-a11y-fake",
                "IFWORLD_DB": str(home / "runs.sqlite"), "IFWORLD_MAX_RETRIES": "0", "PYTHONPATH": str(ROOT)})
    return env


def fill_store(home: Path, fake_url: str) -> Path:
    """What a class leaves in the store: a what-if run (through the CLI), a saved belief simulation and a small
    sweep; returns the what-if run's self-contained HTML export (``ifworld runs export --format html``)."""
    env = app_env(home, fake_url)
    cli = [sys.executable, "-m", "ifworld.cli"]
    subprocess.run([*cli, "whatif", "run", "What if the Moon disappeared?", "--rounds", "1", "--out",
                    str(home / "run.json")], cwd=ROOT, env=env, check=True, capture_output=True)
    code = ("from ifworld import beliefs\nfrom ifworld.beliefs import BeliefConfig, simulate\n"
            "beliefs.save_simulation(simulate(BeliefConfig(), seed=0, runs=10, record=True))\n"
            "rid = beliefs.start_sweep({'grid': {'agents': [10, 20], 'bandwidth': [1, 3]}, 'seeds': [0], 'runs': 5})\n"
            "beliefs.run_sweep_run(rid)\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
    listed = subprocess.run([*cli, "runs", "list", "--kind", "whatif", "--json"], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True).stdout
    run_id = json.loads(listed)[0]["id"]
    out = home / "export.html"
    subprocess.run([*cli, "runs", "export", run_id, "--format", "html", "--out", str(out)], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    return out
