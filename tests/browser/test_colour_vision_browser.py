"""Colour-blind-safe and legible figures, checked on the figures as Chromium draws them (issue #35).

The product's figures are built by the engines' own front doors and drawn by plotly.js in Chromium, then:

* **colour vision** — the screenshot's series colours are *sampled from its pixels* (the most frequent distinct
  saturated colours, not the palette list), simulated under deuteranopia, protanopia and tritanopia (Machado et
  al. 2009 at full severity, via ``colorspacious``), and every pair must stay at least :data:`MIN_DELTA_E`
  CIEDE2000 apart (2.3 is a just-noticeable difference; 10 reads as "clearly another colour" at a glance);
* **never by colour alone** — in the drawn SVG, the line series differ by marker shape or dash too, the bars by
  fill pattern, the causal map's edges carry their sign as text;
* **legibility** — no text in a drawn figure is smaller than ``figstyle.MIN_TEXT_PX`` (the projector minimum
  derived in docs/accessibility.md).

Two simulated screenshots (deuteranopia) are written for the docs when ``IFWORLD_UPDATE_SCREENSHOTS`` is set.
"""

from __future__ import annotations

import io
import itertools
import math
import os
from pathlib import Path

import networkx as nx
import numpy as np
import plotly.graph_objects as go
import pytest

from ifworld import beliefs, whatif
from ifworld.figstyle import MIN_TEXT_PX, styled

colorspacious = pytest.importorskip("colorspacious")  # the [test] extra
Image = pytest.importorskip("PIL.Image")

ROOT = Path(__file__).resolve().parents[2]
PLOTLY_JS = Path(go.__file__).resolve().parents[1] / "package_data/plotly.min.js"
SHOTS = ROOT / ("docs/screenshots" if os.environ.get("IFWORLD_UPDATE_SCREENSHOTS") else "test-artifacts/screenshots")
DEFICIENCIES = {"deuteranopia": "deuteranomaly", "protanopia": "protanomaly", "tritanopia": "tritanomaly"}
MIN_DELTA_E = 10.0
MEASURED: dict[str, dict[str, float]] = {}


def belief_figure() -> go.Figure:
    """Collective F1, precision, recall and the STOP share over rounds (the Belief exchange page)."""
    rec = beliefs.simulate(beliefs.BeliefConfig(), seed=0, runs=2, record=True)
    return beliefs.metrics_figure(rec.recording, 0)


def whatif_figure() -> go.Figure:
    """Judge points per dimension for three methods (the Runs page's comparison)."""
    scored = {method: {k: m * share for k, m in whatif.JUDGE_MAXIMA.items()} | {"overall": 100 * share}
              for method, share in (("IF-World", 0.8), ("Single agent", 0.55), ("Debate", 0.65))}
    return whatif.judge_bars(scored)


def causal_figure() -> go.Figure:
    g = nx.DiGraph()
    for n, dom in (("flood", "hydrology"), ("bridges closed", "transport"), ("traffic", "transport"),
                   ("school days lost", "education")):
        g.add_node(n, label=n, domain=dom, domains={dom: 1}, mentions=1)
    for u, v, sign in (("flood", "bridges closed", "+"), ("bridges closed", "traffic", "+"),
                       ("traffic", "school days lost", "+"), ("school days lost", "flood", "-")):
        g.add_edge(u, v, sign=sign, strength=2, domains=[], sources=["physics"], count=1, mechanisms=["m"],
                   cross_domain=False, weight=1.0)
    return whatif.causal_figure(g)


FIGURES = {"belief metrics": (belief_figure, 4), "what-if judge bars": (whatif_figure, 3),
           "causal map signs": (causal_figure, 2)}  # figure, how many colours carry meaning in it


@pytest.fixture(scope="module")
def drawn(browser) -> dict[str, tuple[bytes, dict]]:  # noqa: ANN001
    """Each figure drawn by plotly.js in Chromium: its PNG and what its SVG says (text sizes, series styles)."""
    ctx = browser.new_context(viewport={"width": 1100, "height": 700})
    page = ctx.new_page()
    out = {}
    try:
        for name, (build, _) in FIGURES.items():
            fig = styled(build())
            page.set_content("<html><body style='margin:0;background:#fff'>"
                             "<div id='f' style='width:1000px;height:600px'></div></body></html>")
            page.add_script_tag(path=str(PLOTLY_JS))
            page.evaluate("async (spec) => { const f = JSON.parse(spec); "
                          "await Plotly.newPlot('f', f.data, f.layout, {staticPlot: true}); }", fig.to_json())
            page.wait_for_timeout(300)
            out[name] = (page.locator("#f").screenshot(), page.evaluate(SVG_FACTS))
    finally:
        ctx.close()
    return out


SVG_FACTS = """() => {
    const texts = [...document.querySelectorAll('#f svg text')].filter(t => t.textContent.trim()
        && getComputedStyle(t).fill !== 'rgba(0, 0, 0, 0)' && getComputedStyle(t).opacity !== '0');
    const lines = [...document.querySelectorAll('#f .scatterlayer .trace')].map(g => {
        const line = g.querySelector('.js-line'); const point = g.querySelector('.point');
        return {dash: line ? getComputedStyle(line).strokeDasharray : '', marker: point ? point.getAttribute('d') : '',
                width: line ? getComputedStyle(line).strokeWidth : '', shown: !!(line || point),
                text: [...g.querySelectorAll('.textpoint text')].map(t => t.textContent)}; });
    const bars = [...document.querySelectorAll('#f .barlayer .trace')].map(g => {
        const p = g.querySelector('.point path'); return p ? (p.style.fill || getComputedStyle(p).fill) : ''; });
    const patterned = [...document.querySelectorAll('#f .barlayer .trace')].map(g =>
        [...g.querySelectorAll('.point path')].some(p => (p.getAttribute('style') || '').includes('url(')));
    return {sizes: texts.map(t => [t.textContent.slice(0, 30), parseFloat(getComputedStyle(t).fontSize)]),
            lines, bars, patterned}; }"""


def _lab(rgb: np.ndarray) -> np.ndarray:
    return colorspacious.cspace_convert(np.clip(rgb, 0, 1), "sRGB1", "CIELab")


def _simulate(rgb: np.ndarray, deficiency: str) -> np.ndarray:
    cvd = {"name": "sRGB1+CVD", "cvd_type": DEFICIENCIES[deficiency], "severity": 100}
    return np.clip(colorspacious.cspace_convert(rgb, cvd, "sRGB1"), 0, 1)


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), kL = kC = kH = 1."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p, h2p = math.degrees(math.atan2(b1, a1p)) % 360, math.degrees(math.atan2(b2, a2p)) % 360
    dh = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_l, d_c, d_h = l2 - l1, c2p - c1p, 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    r_t = -math.sin(math.radians(60 * math.exp(-(((h_bar - 275) / 25) ** 2)))) * r_c
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


def series_colours(png: bytes, n: int) -> np.ndarray:
    """The ``n`` most frequent saturated colours of a screenshot that differ from each other (anti-aliased edges
    and tints are few pixels each and fall within ΔE 12 of a colour already taken), as sRGB in 0..1."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    lab = _lab(colours / 255)
    keep = (np.hypot(lab[:, 1], lab[:, 2]) > 30) & (lab[:, 0] < 85)  # saturated: not text, grid, tints
    colours, counts, lab = colours[keep], counts[keep], lab[keep]
    picked: list[int] = []
    for i in np.argsort(-counts):
        if all(ciede2000(lab[i], lab[j]) > 12 for j in picked):
            picked.append(int(i))
        if len(picked) == n:
            break
    assert len(picked) == n, f"found {len(picked)} series colours, expected {n}"
    return colours[picked] / 255


@pytest.mark.parametrize("name", list(FIGURES))
def test_series_colours_stay_apart_under_colour_vision_deficiencies(drawn, name: str) -> None:
    png, _ = drawn[name]
    rgb = series_colours(png, FIGURES[name][1])
    hexes = ["#%02x%02x%02x" % tuple(int(round(255 * c)) for c in col) for col in rgb]
    for deficiency in DEFICIENCIES:
        lab = _lab(_simulate(rgb, deficiency))
        worst = min(ciede2000(lab[i], lab[j]) for i, j in itertools.combinations(range(len(lab)), 2))
        MEASURED.setdefault(name, {})[deficiency] = round(worst, 1)
        assert worst >= MIN_DELTA_E, f"{name} ({hexes}) under {deficiency}: closest pair ΔE2000 {worst:.1f}"
    print(f"\n{name}: sampled {hexes}; smallest ΔE2000 {MEASURED[name]}")


def test_meaning_is_never_carried_by_colour_alone(drawn) -> None:
    _, facts = drawn["belief metrics"]
    series = [(s["dash"], s["marker"]) for s in facts["lines"] if s["shown"]]
    assert len(series) == 4 and len(set(series)) == 4, series  # each line has its own dash or marker shape
    _, facts = drawn["what-if judge bars"]
    assert len(set(facts["patterned"][1:])) == 1 and all(facts["patterned"][1:]), facts["patterned"]
    _, facts = drawn["causal map signs"]
    signs = [t for s in facts["lines"] for t in s["text"] if t in ("+", "−", "±")]
    assert sorted(signs) == ["+", "+", "+", "−"], signs  # every edge says its sign in words


@pytest.mark.parametrize("name", list(FIGURES))
def test_no_figure_text_below_the_projector_minimum(drawn, name: str) -> None:
    _, facts = drawn[name]
    small = [(text, size) for text, size in facts["sizes"] if size < MIN_TEXT_PX]
    assert facts["sizes"] and not small, f"{name}: text under {MIN_TEXT_PX} px: {small[:8]}"


def test_simulated_screenshots_for_the_docs(drawn) -> None:
    """Deuteranopia as it looks: the belief figure and the what-if figure, simulated pixel by pixel."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, file in (("belief metrics", "cvd_deuteranopia_belief.png"),
                       ("what-if judge bars", "cvd_deuteranopia_whatif.png")):
        png, _ = drawn[name]
        rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) / 255
        seen = (_simulate(rgb, "deuteranopia") * 255).round().astype("uint8")
        Image.fromarray(seen).save(SHOTS / file)
        assert (SHOTS / file).stat().st_size > 10_000
