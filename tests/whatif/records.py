"""Hand-built what-if run records that follow the engine's record contract (for causal and page tests)."""

from __future__ import annotations

from typing import Any


def edge(source: str, target: str, sign: str = "+", strength: int = 2, domains: list[str] | None = None,
         mechanism: str = "") -> dict[str, Any]:
    return {"source": source, "target": target, "sign": sign, "strength": strength,
            "domains": domains or [], "mechanism": mechanism}


def expert(verdict: str, edges: list[dict]) -> dict[str, Any]:
    """An ExpertOutput-shaped dict (see ifworld/whatif/schemas.py)."""
    return {"verdict": verdict, "reasoning_steps": [{"cause": "a", "effect": "b", "mechanism": "m"}],
            "conclusions": [{"statement": f"{verdict}: costs rise",
                             "ranges": [{"quantity": "GDP change", "low": -4, "high": -1, "unit": "%"}]}],
            "calibration": [{"quantity": "GDP change", "unit": "%", "ci50": [-3, -1], "ci80": [-4, 0],
                             "ci95": [-6, 1]}],
            "scenarios": [{"name": "adapt", "probability_pct": 60}], "minimal_change": "remove the Moon",
            "key_causal_edges": edges}


def sample_record(method: str = "ifworld", proposition: str = "What if the Moon disappeared?",
                  judge: dict | None = None) -> dict[str, Any]:
    """Two experts over two rounds and a report with a causal map.

    Contains a two-node feedback loop (Ocean mixing ⇄ Climate stability), duplicate labels differing in
    case/whitespace ("Tides" / " tides ", "Ocean mixing" / "ocean  mixing") and cross-domain edges."""
    r1 = {
        "round": 1,
        "experts": {
            "geophysics": expert("plausible", [
                edge("Tides", "Ocean mixing", "+", 3, ["geophysics"], "tidal energy drives mixing"),
                edge("Ocean mixing", "Climate stability", "+", 2, ["geophysics", "climate"],
                     "heat transport"),
            ]),
            "economics": expert("costly", [
                edge("Coastal flooding", "GDP", "-", 2, ["economics"], "damage to assets"),
                edge(" tides ", "Coastal flooding", "+", 1, ["geophysics", "economics"], "tidal range"),
            ]),
        },
        "failed": {},
        "frame": {"round": 1, "text": "Round 1 frame: tides vanish; mixing weakens.",
                  "consensus": [{"point": "tides vanish", "confidence": 0.8}], "conflicts": [],
                  "branches": [{"condition": "abrupt shift", "description": "fast", "probability_pct": 30}]},
        "debate": None,
    }
    r2 = {
        "round": 2,
        "experts": {
            "geophysics": expert("plausible", [
                edge("Climate Stability", "ocean  mixing", "+", 2, ["climate", "geophysics"], "feedback"),
                edge("Tides", "Ocean mixing", "+", 3, ["geophysics"], "tidal energy drives mixing"),
            ]),
        },
        "failed": {"economics": "TimeoutError: model did not answer"},
        "frame": {"round": 2, "text": "Round 2 frame: mixing–climate loop; economic costs uncertain.",
                  "consensus": [{"point": "tides vanish", "confidence": 0.9},
                                {"point": "mixing weakens", "confidence": 0.7}],
                  "conflicts": [], "branches": []},
        "debate": {"pro": "The loop is real.", "con": "Magnitudes are unclear.",
                   "brief": {"points": [{"issue": "loop strength", "pro": "strong", "con": "weak",
                                         "crux": "ocean models"}], "summary": "Keep both."}},
    }
    report = {
        "summary_bullets": ["Tides shrink to the solar component.", "Coastal ecosystems reorganise."],
        "executive_verdict": {"verdict": "Survivable but costly", "feasibility": "n/a",
                              "minimal_change": "the Moon vanishes"},
        "core_conclusions": ["Tidal range falls by about two thirds."],
        "uncertainty_analysis": ["Climate feedback magnitude is unknown."],
        "assumptions": [{"id": "A1", "text": "The Moon vanishes instantly"}],
        "claims": [{"id": "C1", "text": "Tides shrink", "assumptions": ["A1"]}],
        "trace_table": [{"assumption_id": "A1", "claim_id": "C1", "note": "direct"}],
        "causal_matrix": [edge("Tides", "Ocean mixing", "+", 3, ["geophysics"], "tidal energy")],
        "causal_map": {
            "nodes": [{"id": "n1", "label": "Ocean mixing", "domain": "geophysics"},
                      {"id": "n2", "label": "Climate stability", "domain": "climate"},
                      {"id": "n3", "label": "GDP", "domain": "economics"}],
            "edges": [{"source": "n2", "target": "n3", "sign": "+", "strength": 1, "domains": ["climate"],
                       "mechanism": "stable climate supports output"}],
        },
        "feasibility_table": [{"constraint": "sea walls", "estimate": "10", "unit": "bn EUR",
                               "bottleneck": "concrete", "mitigation": "phase it"}],
        "calibration_ranges": [
            {"quantity": "Tidal range change", "unit": "%", "ci50": [-70, -60], "ci80": [-75, -55],
             "ci95": [-80, -50]},
            {"quantity": "GDP change", "unit": "%", "ci50": [-3, -1], "ci80": [-4, 0], "ci95": [-6, 1]},
        ],
        "scenarios": [
            {"name": "Gradual adaptation", "probability_pct": 55, "drivers": ["slow shift"], "pros": ["time"],
             "cons": ["cost"], "indicators": ["sea level"]},
            {"name": "Abrupt climate shift", "probability_pct": 30},
            {"name": "Little change", "probability_pct": 15},
        ],
        "timeline": [{"horizon": "short", "event": "Tides drop to solar-only range", "probability_pct": 95},
                     {"horizon": "long", "event": "Coastal ecosystems reorganise", "probability_pct": 70}],
        "decision_table": [{"indicator": "Tidal range", "threshold": "< 40 %",
                            "branch": "Abrupt climate shift"}],
        "alignment": {"consensus": [{"point": "tides vanish", "confidence": 0.9}], "branches": []},
        "consistency_checks": {"resolutions": ["mixing sign agreed"], "residual_disagreements": []},
        "degraded": ["economics (round 2)"],
        "markdown": "# If the Moon disappeared\n\nTides shrink.",
    }
    return {
        "proposition": proposition, "method": method,
        "params": {"proposition": proposition, "method": method, "experts": ["geophysics", "economics"],
                   "rounds": 2},
        "scenario": {"title": "Moonless Earth", "assumptions": ["the Moon vanishes instantly"]},
        "rounds": [r1, r2], "report": report,
        "calls": [{"role": "expert", "round": 1, "start": 0.0, "end": 1.0, "prompt_tokens": 100,
                   "completion_tokens": 50, "status": "ok"}],
        "usage": {"calls": 7, "prompt_tokens": 700, "completion_tokens": 350, "retries": 1, "failures": 1},
        "degraded": ["economics (round 2)"],
        "frame_diffs": [{"round": 1, "consensus_gained": ["tides vanish"], "conflicts_resolved": [],
                         "branches_added": ["abrupt shift"], "branches_dropped": []},
                        {"round": 2, "consensus_gained": ["mixing weakens"],
                         "conflicts_resolved": ["mixing sign"],
                         "branches_added": [], "branches_dropped": ["abrupt shift"]}],
        "judge": judge,
    }


LARGE_DOMAINS = {
    "macroeconomics": ["Household disposable income", "Central bank policy rate", "Consumer price inflation",
                       "Unemployment rate"],
    "energy systems": ["Regional electricity prices", "Grid storage capacity", "Natural gas imports"],
    "public health": ["Hospital admissions in winter", "Heat-related mortality", "Air quality (PM2.5)"],
    "climate science": ["Average summer temperature", "Frequency of drought years"],
    "agriculture and food": ["Crop yields per hectare", "Food price volatility"],
    "transport": ["Commuter car traffic", "Rail freight share"],
    "international relations and trade": ["Export competitiveness", "Trade agreement stability"],
}
"""Seven domains (one with a long name) and eighteen nodes with long-ish names: a causal map as big as a real run's."""


def large_record(proposition: str = "What if fuel duty doubled overnight?") -> dict[str, Any]:
    """A what-if record whose merged causal map has 18 nodes in 7 domains and 28 edges (chains within each domain,
    links between neighbouring domains and a few across), all from one expert round and the report."""
    names = [(d, n) for d, ns in LARGE_DOMAINS.items() for n in ns]
    edges: list[dict[str, Any]] = []
    for d, ns in LARGE_DOMAINS.items():
        edges += [edge(a, b, "+-"[k % 2], 1 + k % 3, [d], f"{a} moves {b}")
                  for k, (a, b) in enumerate(zip(ns, ns[1:], strict=False))]
    for k in range(len(names)):
        (da, a), (db, b) = names[k], names[(k * 7 + 3) % len(names)]
        if a != b and len(edges) < 28:
            edges.append(edge(a, b, "+-±"[k % 3], 1 + (k * 5) % 3, [da, db], f"{a} feeds {b}"))
    experts = {d: expert("plausible", [e for e in edges if e["domains"][0] == d]) for d in LARGE_DOMAINS}
    record = sample_record(proposition=proposition)
    record["params"]["experts"] = list(LARGE_DOMAINS)
    record["rounds"] = [{**record["rounds"][0], "experts": experts, "failed": {}}]
    record["report"]["causal_map"] = {"nodes": [{"id": f"n{i}", "label": n, "domain": d}
                                                for i, (d, n) in enumerate(names)], "edges": []}
    record["report"]["causal_matrix"] = []
    return record
