"""Hand-built what-if run records that follow the engine's record contract (for causal and page tests)."""

from __future__ import annotations

from typing import Any


def edge(source: str, target: str, sign: str = "+", strength: int = 2, domains: list[str] | None = None,
         mechanism: str = "") -> dict[str, Any]:
    return {"source": source, "target": target, "sign": sign, "strength": strength,
            "domains": domains or [], "mechanism": mechanism}


def expert(verdict: str, edges: list[dict], confidence: float = 0.8) -> dict[str, Any]:
    return {"verdict": verdict, "confidence": confidence, "summary": f"{verdict} summary",
            "key_numbers": [{"name": "GDP change", "value": -2.5, "unit": "%"}], "key_causal_edges": edges}


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
        "frame": {"text": "Round 1 frame: tides vanish; mixing weakens.", "consensus": ["tides vanish"]},
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
        "frame": {"text": "Round 2 frame: mixing–climate loop; economic costs uncertain.",
                  "consensus": ["tides vanish", "mixing weakens"]},
        "debate": {"pro": "The loop is real.", "con": "Magnitudes are unclear.", "brief": "Keep both."},
    }
    report = {
        "title": "If the Moon disappeared",
        "summary": "Tides shrink to the solar component; coastal ecosystems and climate shift.",
        "markdown": "# If the Moon disappeared\n\nTides shrink.",
        "calibration": [
            {"quantity": "Tidal range change", "unit": "%", "median": -65,
             "p50": [-70, -60], "p80": [-75, -55], "p95": [-80, -50]},
            {"quantity": "GDP change", "unit": "%", "median": -2.0,
             "p50": [-3, -1], "p80": [-4, 0], "p95": [-6, 1]},
        ],
        "decision_table": [
            {"option": "Reinforce sea walls", "benefit": "high", "cost": "high", "when": "year 1"},
            {"option": "Relocate fisheries", "benefit": "medium", "cost": "medium", "when": "year 3"},
        ],
        "scenarios": [
            {"name": "Gradual adaptation", "probability": 0.55, "description": "Slow shift."},
            {"name": "Abrupt climate shift", "probability": 0.3, "description": "Fast."},
            {"name": "Little change", "probability": 0.15, "description": "Surprise."},
        ],
        "timeline": [
            {"when": "day 1", "event": "Tides drop to solar-only range"},
            {"when": "year 1", "event": "Coastal ecosystems reorganise"},
        ],
        "causal_map": {
            "nodes": [{"id": "n1", "label": "Ocean mixing", "domain": "geophysics"},
                      {"id": "n2", "label": "Climate stability", "domain": "climate"},
                      {"id": "n3", "label": "GDP", "domain": "economics"}],
            "edges": [{"source": "n2", "target": "n3", "sign": "+", "strength": 1, "domains": ["climate"],
                       "mechanism": "stable climate supports output"}],
        },
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
        "degraded": True,
        "frame_diffs": [{"round": 1, "consensus_gained": ["tides vanish"], "conflicts_resolved": [],
                         "branches_added": ["abrupt shift"], "branches_dropped": []},
                        {"round": 2, "consensus_gained": ["mixing weakens"],
                         "conflicts_resolved": ["mixing sign"],
                         "branches_added": [], "branches_dropped": ["abrupt shift"]}],
        "judge": judge,
    }
