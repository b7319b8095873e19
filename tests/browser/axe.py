"""axe-core in Chromium: the WCAG 2 A/AA rules run over a page Playwright has open (issue #35).

axe-core comes from the npm registry, installed by ``scripts/browser.sh`` into ``.cache/axe`` (the project's own
setup; nothing global). Used by ``tests/browser/test_a11y_browser.py`` and ``benchmarks/a11y_audit.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / ".cache/axe/node_modules/axe-core/axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")

# address: the page's title in the navigation (what the audit prints)
PAGES = {
    "": "Home",
    "whatif": "What-if",
    "causal_map": "Causal map",
    "runs": "Runs",
    "join": "Join a workshop",
    "rws_browse": "RWS browse",
    "rws_benchmark": "RWS benchmark",
    "beliefs": "Belief exchange",
    "belief_sweep": "Belief sweep",
    "settings": "About & settings",
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
