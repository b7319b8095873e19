"""Demo answers for every IF-World role (``whatif.*``) and the baselines, varied by topic, domain and round.

Replies are built from small topic profiles so that a demo run exercises every part of the pipeline (ranges
that tighten in round 2, branches the report keeps, decision rules, a causal map); they all parse into
``ifworld.whatif.schemas``. They are invented examples, not analysis: the server puts the demo label in front
of every free-text field listed in :data:`LABEL_KEYS`. :data:`ANSWERS` is keyed by the role (and variant) each
request names in its header; the replies read the proposition, round and expert domain from the prompt.

The model layer imports no engine: what it says for an expert (:class:`ExpertWords`) and the panel a refiner
offers when its prompt names none come from whoever owns the experts — the package ``ifworld.whatif`` hands them
over with :func:`use_expert_words` when it is imported. Without them (a process that never imported the engine)
every expert gets words made from its domain.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ifworld.llm.demo_answers import last_user, prompt_text

TOPICS = {
    "gravity": ("surface gravity ×10", "g", "m/s²", 90.0, 105.0),
    "cloud": ("persistent global cloud layer", "surface insolation", "W/m²", 80.0, 140.0),
    "supervolcano": ("supervolcanic eruption", "global mean temperature", "°C change", -6.0, -2.0),
    "insect": ("loss of all insects", "pollinated crop output", "% change", -60.0, -30.0),
    "tilt": ("larger axial tilt", "seasonal temperature range", "°C", 25.0, 45.0),
    "magnetic": ("magnetic field collapse", "surface UV-B and particle dose", "% change", 10.0, 40.0),
    "rotation": ("slower rotation", "day length", "h", 26.0, 36.0),
    "sea level": ("10 m sea-level rise", "displaced population", "million people", 400.0, 800.0),
    "oxygen": ("higher atmospheric oxygen", "wildfire burned area", "% change", 50.0, 300.0),
    "moon": ("loss of lunar tides", "tidal range", "m", 0.3, 1.2),
    "superconduct": ("lossless power transmission", "grid losses", "%", 0.5, 2.0),
    "photosynth": ("doubled crop photosynthesis", "cereal yield", "t/ha", 4.0, 7.5),
    "antibiotic": ("end of antibiotic efficacy", "sepsis mortality", "%", 20.0, 45.0),
    "internet": ("month-long Internet outage", "GDP loss", "% of monthly GDP", 8.0, 25.0),
    "fossil": ("abrupt end of fossil extraction", "primary energy supply", "EJ/yr", 120.0, 250.0),
    "lifespan": ("150-year healthy lifespan", "old-age dependency ratio", "%", 30.0, 70.0),
    "overturning": ("AMOC collapse", "NW-Europe winter temperature", "°C change", -8.0, -2.0),
    "sleep": ("no need for sleep", "waking hours", "h/day", 20.0, 24.0),
    "water": ("two-week tap-water loss", "daily water need", "L/person", 3.0, 15.0),
    "grid": ("72-hour winter blackout", "indoor temperature", "°C", 5.0, 14.0),
    "heatwave": ("ten-day 45 °C heatwave", "excess deaths", "per million", 50.0, 400.0),
    "virus": ("doubled respiratory admissions", "ICU occupancy", "%", 85.0, 130.0),
    "school": ("four-day school week", "instruction hours", "h/week", 24.0, 30.0),
}
DEFAULT_TOPIC = ("the hypothetical shock", "headline impact", "% change", 5.0, 30.0)
GENERIC_DOWNSTREAM = "economics"
FALLBACK_PANEL = ("physics", "engineering", "economics")
"""The refiner's plan when neither its prompt nor the experts' owner names a panel."""


@dataclass(frozen=True)
class ExpertWords:
    """What the demo model writes for one expert: its mechanism, the quantity it estimates with its unit, and the
    domain (label) of the expert its effects flow to ("" when that expert is unknown)."""

    mechanism: str
    indicator: str
    unit: str
    downstream: str = ""


WordsOf = Callable[[str], "ExpertWords | None"]
"""An expert's words by its domain (the label prompts use), or None for an expert without any."""


def _no_words(domain: str) -> ExpertWords | None:
    return None


def _fallback_panel() -> list[str]:
    return list(FALLBACK_PANEL)


_source: dict[str, Any] = {"words": _no_words, "panel": _fallback_panel}


def use_expert_words(words: WordsOf, panel: Callable[[], list[str]]) -> None:
    """Hand the demo model the experts' words and the default panel (both asked on every answer, so experts
    registered later are seen). Called by the owner of the experts — the what-if engine — never by this layer."""
    _source.update(words=words, panel=panel)


def _hints(domain: str) -> ExpertWords | None:
    """The words of the expert whose domain this is, or None."""
    found: ExpertWords | None = _source["words"](domain)
    return found


def _demo(domain: str) -> tuple[tuple[str, str, str], str]:
    """((mechanism, indicator, unit), downstream domain) of an expert; words made from its name without hints."""
    hints = _hints(domain)
    if hints is None:
        return (f"{domain} mechanisms", f"{domain} indicator", "index"), GENERIC_DOWNSTREAM
    return (hints.mechanism, hints.indicator, hints.unit), hints.downstream or GENERIC_DOWNSTREAM


def _n(*parts: object) -> int:
    return int(hashlib.md5("|".join(map(str, parts)).encode()).hexdigest()[:6], 16)


def proposition(body: dict[str, Any]) -> str:
    m = re.search(r"<proposition>\s*(.*?)\s*</proposition>", last_user(body), re.S)
    return m.group(1) if m else last_user(body)[:200]


def topic(body: dict[str, Any]) -> tuple[str, str, str, float, float]:
    text = proposition(body).lower()
    return next((v for k, v in TOPICS.items() if k in text), DEFAULT_TOPIC)


def _domain(body: dict[str, Any]) -> str:
    m = re.search(r"You are the (.+?) expert on the panel", prompt_text(body))
    return m.group(1) if m else "physics"


def _round(body: dict[str, Any]) -> int:
    m = re.search(r"Round (\d+)\.", last_user(body))
    return int(m.group(1)) if m else 1


def expert(body: dict[str, Any]) -> dict[str, Any]:
    shock, qty, unit, lo, hi = topic(body)
    domain, r = _domain(body), _round(body)
    (mech, var, vunit), down = _demo(domain)
    down_hints = _hints(down)
    dvar = down_hints.indicator if down_hints is not None else f"{down} outcome"
    h = _n(shock, domain, r)
    width = 0.6 if r == 1 else 0.4  # later rounds tighten ranges
    a, b = 5 + h % 20, 5 + h % 20 + 10 * width * (1 + h % 3)
    p_fast = 20 + h % 25
    sign = "-" if h % 3 == 0 else "+"
    return {
        "domain": domain,
        "reasoning_steps": [
            {"cause": shock, "effect": f"change in {var}", "mechanism": mech, "domains": [domain]},
            {"cause": f"change in {var}", "effect": f"shift in {dvar}", "mechanism": f"{domain} drives {down}",
             "domains": [domain, down]},
            {"cause": f"shift in {dvar}", "effect": "adaptation response", "mechanism": "substitution and policy",
             "domains": [down, "politics"]},
        ],
        "verdict": f"From a {domain} view, {shock} changes {var} by {a:.0f}–{b:.0f} {vunit} within 5 years, "
                   f"testable by tracking {qty}.",
        "conclusions": [
            {"statement": f"{var.capitalize()} moves by {a:.0f}–{b:.0f} {vunit} in the medium term.",
             "ranges": [{"quantity": var, "low": a, "high": b, "unit": vunit}]},
            {"statement": f"{qty.capitalize()} settles between {lo:g} and {hi:g} {unit}.",
             "ranges": [{"quantity": qty, "low": lo, "high": hi, "unit": unit}]},
        ],
        "feasibility_audit": {"resources": f"{var} buffers last 2–6 months", "technology": "existing technology "
                              "covers 60–80 % of needs", "policy": "emergency powers needed within 4–12 weeks"},
        "feasibility_table": [
            {"constraint": f"{var} capacity", "estimate": f"{a:.0f}-{b:.0f}", "unit": vunit,
             "bottleneck": "skilled labour", "mitigation": "phased retraining"},
            {"constraint": "capital", "estimate": f"{1 + h % 9}-{3 + h % 9}", "unit": "% of GDP",
             "bottleneck": "financing terms", "mitigation": "public guarantees"},
        ],
        "assumptions": [{"id": "A1", "text": f"{shock} persists for the whole horizon"},
                        {"id": "A2", "text": "no coordinated global policy response in year 1"},
                        {"id": "A3", "text": f"{down} reacts with a 6–18 month lag"}],
        "uncertainties": [{"description": f"elasticity of {var}", "lever": "substitution by alternatives"},
                          {"description": "speed of behavioural change", "lever": "adaptation via norms and prices"}],
        "calibration": [{"quantity": qty, "unit": unit, "ci50": [lo + (hi - lo) * 0.35, lo + (hi - lo) * 0.65],
                         "ci80": [lo + (hi - lo) * 0.15, lo + (hi - lo) * 0.85], "ci95": [lo, hi]}],
        "dependencies": [{"domain": down, "note": f"{down} amplifies or damps the {var} shift"},
                         {"domain": "physics" if domain != "physics" else "engineering", "note": "sets hard limits"}],
        "minimal_change": f"The conclusions need one extra assumption to hold: {down} reacts within 6–18 months "
                          f"rather than adapting ahead of the shock.",
        "scenarios": [{"name": "fast adaptation", "description": "substitutes scale within 2 years",
                       "probability_pct": 100 - p_fast - 25},
                      {"name": "slow adaptation", "description": "lock-in delays response", "probability_pct": 25},
                      {"name": "cascade", "description": f"{down} failure propagates", "probability_pct": p_fast}],
        "timeline": [{"horizon": "short", "event": f"{var} shock peaks", "probability_pct": 70},
                     {"horizon": "medium", "event": f"{down} adjusts", "probability_pct": 55},
                     {"horizon": "long", "event": "new equilibrium", "probability_pct": 40}],
        "indicators": [{"name": qty, "threshold": f"> {hi:g} {unit}", "flips_to": "cascade"},
                       {"name": var, "threshold": f"< {a:.0f} {vunit}", "flips_to": "fast adaptation"},
                       {"name": "policy response time", "threshold": "> 6 months", "flips_to": "slow adaptation"}],
        "trace": [{"assumption_id": "A1", "claim": f"{var} moves by {a:.0f}–{b:.0f} {vunit}"},
                  {"assumption_id": "A3", "claim": f"{dvar} lags by 6–18 months"}],
        "causal_matrix": [{"mechanism": mech, "domain": domain, "sign": sign, "strength": 1 + h % 3},
                          {"mechanism": f"{domain} drives {down}", "domain": down, "sign": "+", "strength": 2}],
        "key_causal_edges": [
            {"source": shock, "target": var, "sign": sign, "strength": 1 + h % 3, "domains": [domain],
             "mechanism": mech},
            {"source": var, "target": dvar, "sign": "+", "strength": 1 + (h // 3) % 3, "domains": [domain, down],
             "mechanism": f"{domain} drives {down}"},
        ],
        "alignment_notes": [] if r == 1 else [f"narrowed {var} range to the frame's consensus band",
                                              "adopted the shared decision threshold"],
    }


def refiner(body: dict[str, Any]) -> dict[str, Any]:
    shock, qty, unit, lo, hi = topic(body)
    m = re.search(r"Expert panel available: (.+)", last_user(body))
    panel = [p.strip() for p in m.group(1).split(",")] if m else list(_source["panel"]())
    return {
        "restated": f"Assume {shock} starts now and persists; study consequences over 50 years.",
        "premises": [f"{shock} occurs abruptly", "all other physical constants unchanged",
                     "current population and technology at onset"],
        "constants": ["laws of physics", "global population at onset", "existing treaties"],
        "timescales": {"short": "0-1 year", "medium": "1-10 years", "long": "10-50 years"},
        "key_uncertainties": [f"magnitude of {qty}", "speed of adaptation", "policy coordination"],
        "expert_plan": panel,
        "variants": [{"name": "fast onset", "description": f"{shock} within weeks"},
                     {"name": "gradual onset", "description": f"{shock} over a decade"}],
        "indicators": [{"name": qty, "unit": unit, "threshold": f"> {hi:g}"},
                       {"name": "food price index", "unit": "index", "threshold": "> 150"},
                       {"name": "policy response time", "unit": "months", "threshold": "> 6"}],
    }


def resolver(body: dict[str, Any]) -> dict[str, Any]:
    shock, qty, unit, lo, hi = topic(body)
    r = _round(body) if "Round" in last_user(body) else 1
    m = re.search(r"round (\d+):", last_user(body))
    r = int(m.group(1)) if m else r
    cascade = {"id": "B1", "name": "cascade", "condition": f"{qty} > {hi:g} {unit}",
               "description": "cascade across supply chains", "domains": ["economics", "engineering"],
               "probability_pct": 25 if r == 1 else 30}
    managed = {"id": "B2", "name": "managed adaptation", "condition": "policy response < 6 months",
               "description": "managed adaptation", "domains": ["politics", "sociology"],
               "probability_pct": 55 if r == 1 else 70}
    tipping = {"id": "B3", "name": "ecosystem tipping", "condition": "ecosystem tipping", "description":
               "habitat loss", "domains": ["biology/ecology"], "probability_pct": 20}
    return {
        "consensus": [{"point": f"{shock} shifts {qty} to {lo:g}–{hi:g} {unit}", "confidence": 0.8},
                      {"point": "adaptation halves the medium-term impact", "confidence": 0.6 + 0.1 * (r > 1)}]
        + ([{"point": "policy lag is the main amplifier", "confidence": 0.7}] if r > 1 else []),
        "conflicts": [{"topic": "speed of economic substitution", "kind": "hard",
                       "sides": [{"position": "1-2 years", "experts": ["economics"]},
                                 {"position": "5-10 years", "experts": ["engineering", "physics"]}],
                       "rule": "physics", "treatment": "prioritised",
                       "resolution": "physics-limited build rate caps substitution at ~15 %/yr"}]
        + ([{"topic": "health impact units", "kind": "granularity",
             "positions": ["medicine: per million", "economics: % of capacity"], "rule": "evidence weight",
             "treatment": "reconciled", "resolution": "converted to % of ICU capacity"}] if r == 1 else []),
        "branches": [cascade, managed] + ([tipping] if r == 1 else []),
        "decision_rules": [{"indicator": qty, "threshold": f"> {hi:g} {unit}", "branch_id": "B1",
                            "action": "activate supply-chain contingency plans", "actor": "national crisis cell",
                            "lead_time": "2 weeks"},
                           {"indicator": "policy response time", "threshold": "< 6 months", "branch_id": "B2",
                            "action": "fund substitution programmes", "actor": "government", "lead_time": "3 months"}],
        "uncertainties": [{"description": "elasticity of substitution", "indicator": "price pass-through %"}],
        "treatment_notes": ["physics limits overrode economic optimism (priority rule)",
                            "survival needs (water, food) ranked before economic output"],
    }


def report_core(body: dict[str, Any]) -> dict[str, Any]:
    shock, qty, unit, lo, hi = topic(body)
    return {
        "summary_bullets": [f"Rigour: every claim traces to assumptions A1–A3 about {shock}.",
                            "Integration: physics and engineering limits propagate to economics and politics.",
                            "Feasibility: mitigation needs 1–4 % of GDP over a decade.",
                            f"Uncertainty: {qty} 50 % interval {lo:g}–{hi:g} {unit}.",
                            f"Decisions: watch {qty} and policy response time."],
        "executive_verdict": {"verdict": f"{shock.capitalize()} is disruptive but largely absorbable within "
                                         "10 years (probability ~60 %).",
                              "feasibility": "feasible with existing technology; bottleneck is skilled labour",
                              "minimal_change": "holds with one extra assumption: no second shock within 10 years"},
        "core_conclusions": [f"{qty.capitalize()} moves to {lo:g}–{hi:g} {unit}.",
                             "Adaptation halves medium-term losses."],
        "uncertainty_analysis": ["Largest uncertainty: speed of substitution (factor 3).",
                                 "Policy lag dominates the tail risk."],
        "assumptions": [{"id": "A1", "text": f"{shock} persists"}, {"id": "A2", "text": "no global coordination in "
                        "year 1"}, {"id": "A3", "text": "downstream lags 6–18 months"}],
        "claims": [{"id": "C1", "text": f"{qty} within {lo:g}–{hi:g} {unit}", "assumptions": ["A1"]},
                   {"id": "C2", "text": "cascade probability ~25 %", "assumptions": ["A2", "A3"]}],
        "trace_table": [{"assumption_id": "A1", "claim_id": "C1", "note": "direct"},
                        {"assumption_id": "A2", "claim_id": "C2", "note": "via policy lag"}],
    }


def report_analysis(body: dict[str, Any]) -> dict[str, Any]:
    shock, qty, unit, lo, hi = topic(body)
    edges: list[dict[str, Any]] = [{"source": shock, "target": qty, "sign": "+", "strength": 3, "domains": ["physics"],
              "mechanism": "direct forcing"},
             {"source": qty, "target": "output", "sign": "-", "strength": 2, "domains": ["economics"],
              "mechanism": "productivity loss"},
             {"source": "output", "target": "policy response time", "sign": "-", "strength": 1,
              "domains": ["politics"], "mechanism": "fiscal pressure"},
             {"source": qty, "target": "hospital load", "sign": "+", "strength": 2, "domains": ["medicine"],
              "mechanism": "health stress"},
             {"source": "retrofit cost", "target": "output", "sign": "-", "strength": 1,
              "domains": ["engineering", "economics"], "mechanism": "capital diversion"},
             {"source": "public compliance", "target": "hospital load", "sign": "-", "strength": 2,
              "domains": ["sociology", "medicine"], "mechanism": "behavioural adaptation"}]
    nodes: dict[str, dict[str, Any]] = {}
    for e in edges:
        for end in (e["source"], e["target"]):
            nodes.setdefault(end, {"id": end, "label": end, "domain": e["domains"][0]})
    return {"causal_matrix": edges, "causal_map": {"nodes": list(nodes.values()), "edges": edges},
            **_expert_tables(body, qty, unit, lo, hi)}


_FEASIBILITY_ROW = re.compile(r"^- (.+?) \| (.+?) \| (.*?) \| bottleneck: (.*?) \| mitigation: (.*)$", re.M)
_CALIBRATION_ROW = re.compile(r"^- (.+?) \[(.*?)\]: ([-\d.e]+)–([-\d.e]+) / ([-\d.e]+)–([-\d.e]+) / "
                              r"([-\d.e]+)–([-\d.e]+)$", re.M)


def _expert_tables(body: dict[str, Any], qty: str, unit: str, lo: float, hi: float) -> dict[str, Any]:
    """The report's feasibility rows and calibration ranges, taken from the experts' outputs in the prompt (as
    the writer is told), so every number can be traced to an expert; a topic default when none are given."""
    text = last_user(body)
    rows = [{"constraint": c, "estimate": e, "unit": u, "bottleneck": b, "mitigation": m}
            for c, e, u, b, m in _FEASIBILITY_ROW.findall(text)[:2]]
    cals = [{"quantity": q, "unit": u, "ci50": [float(a), float(b)], "ci80": [float(c), float(d)],
             "ci95": [float(e), float(f)]} for q, u, a, b, c, d, e, f in _CALIBRATION_ROW.findall(text)[:1]]
    return {"feasibility_table": rows or [{"constraint": "capital", "estimate": "1-4", "unit": "% of GDP",
                                           "bottleneck": "financing", "mitigation": "public guarantees"}],
            "calibration_ranges": cals or [{"quantity": qty, "unit": unit,
                                            "ci50": [lo + (hi - lo) * .35, lo + (hi - lo) * .65],
                                            "ci80": [lo + (hi - lo) * .15, lo + (hi - lo) * .85], "ci95": [lo, hi]}]}


_BRANCH_LINE = re.compile(r"^- (B\d+) (.*?): IF (.*?) THEN .*? \(([\d.]+) %;", re.M)
FINAL_SYNTHESIS = "Final adjudicated synthesis"


def report_scenarios(body: dict[str, Any]) -> dict[str, Any]:
    """Keeps the final branches given in the prompt (ids, probabilities), so the report's parts agree."""
    shock, qty, unit, lo, hi = topic(body)
    text = last_user(body)
    final = text.split(FINAL_SYNTHESIS, 1)[1].split("The experts' outputs", 1)[0] if FINAL_SYNTHESIS in text else ""
    given = _BRANCH_LINE.findall(final)
    rows = [(bid, name, cond, float(p)) for bid, name, cond, p in given] or [
        ("B1", "cascade", f"{qty} > {hi:g} {unit}", 20.0), ("B2", "managed adaptation", "policy response < 6 months",
                                                            55.0), ("B3", "slow muddle", "lock-in", 25.0)]
    indicators = {"B1": [f"{qty} > {hi:g} {unit}"], "B2": ["policy response time < 6 months"]}
    scenarios = [{"id": bid, "name": name, "condition": cond, "probability_pct": p,
                  "drivers": [f"{qty} overshoot"] if bid == "B1" else ["fast policy", "substitution"],
                  "pros": [] if bid == "B1" else ["losses contained"], "cons": ["systemic failure"],
                  "indicators": indicators.get(bid, ["output gap > 3 %"])} for bid, name, cond, p in rows]
    out = {"scenarios": scenarios,
           "timeline": [{"horizon": "short", "event": f"{shock} felt in {qty}", "branch_id": ""},
                        {"horizon": "medium", "event": "substitution scales", "branch_id": rows[-1][0]},
                        {"horizon": "long", "event": "supply chains fail", "branch_id": rows[0][0]}],
           "decision_table": [{"indicator": qty, "threshold": f"> {hi:g} {unit}", "branch_id": rows[0][0],
                               "action": "activate contingency plans", "actor": "crisis cell", "lead_time": "2 weeks"}],
           "variant_probabilities": variant_probabilities(variant_ids(body))}
    return out


_VARIANT_LINE = re.compile(r"^- (V\d+) ", re.M)


def variant_ids(body: dict[str, Any]) -> list[str]:
    """The variant ids the scenario section of the prompt lists ("- V1 fast onset: …"), in order."""
    text = prompt_text(body)
    section = text.split("Variants:\n", 1)[1] if "Variants:\n" in text else ""
    return list(dict.fromkeys(_VARIANT_LINE.findall(section.split("\n\n", 1)[0])))


def variant_probabilities(ids: list[str]) -> list[dict[str, Any]]:
    """A probability per variant id, falling with position (two variants: 60 / 40), summing to 100."""
    weights = [len(ids) - i + 1 for i in range(len(ids))]
    shares = [round(100 * w / sum(weights)) for w in weights]
    if shares:
        shares[0] += 100 - sum(shares)
    return [{"variant_id": i, "probability_pct": float(p)} for i, p in zip(ids, shares, strict=True)]


def repair(body: dict[str, Any]) -> dict[str, Any]:
    """The repair turn: rescales probabilities, drops dangling references and unlisted indicators
    (the scenarios part); the calibration part is returned unchanged, so its violation stays listed."""
    m = re.search(r"currently written \(JSON\):\n(.*?)\n\nConsistency violations", last_user(body), re.S)
    current = json.loads(m.group(1)) if m else {}
    if "scenarios" not in current:
        return current
    total = sum(s["probability_pct"] for s in current["scenarios"]) or 1
    for s in current["scenarios"]:
        s["probability_pct"] = round(100 * s["probability_pct"] / total, 1)
    ids = {s["id"] for s in current["scenarios"]}
    listed = " ".join(i for s in current["scenarios"] for i in s["indicators"]).lower()
    current["timeline"] = [t for t in current["timeline"] if not t["branch_id"] or t["branch_id"] in ids]
    current["decision_table"] = [d for d in current["decision_table"] if d["indicator"].lower() in listed]
    wanted = re.findall(r"variant (V\d+) has no probability", last_user(body))
    unknown = set(re.findall(r"'([^']*)' is not a variant id", last_user(body)))
    given = [v for v in current.get("variant_probabilities") or [] if str(v.get("variant_id")) not in unknown]
    if wanted:  # the scenario's ids, from the violations: a fresh probability for each, the old ones dropped
        known = sorted({*wanted, *(str(v["variant_id"]) for v in given)}, key=lambda i: int(i[1:]))
        given = variant_probabilities(known)
    current["variant_probabilities"] = given
    return current


def direct_answer(body: dict[str, Any]) -> str:
    """A baseline's natural output: prose with a few numbers, no IF-World schema."""
    shock, qty, unit, lo, hi = topic(body)
    return (f"**Short answer.** {shock.capitalize()} would move {qty} to roughly {lo:g}–{hi:g} {unit} within a "
            "few years.\n\n- Mechanism: the shock propagates from physical limits to supply chains and prices.\n"
            "- Likelihood: a managed adaptation is more likely (about 60 %) than a cascade (about 25 %).\n"
            f"- Watch: {qty} and the time to a first policy response.")


def debate_pro(body: dict[str, Any]) -> str:
    shock, qty, unit, lo, hi = topic(body)
    return (f"1. {shock.capitalize()} pushes {qty} to the top of its range ({hi:g} {unit}) within a year.\n"
            "2. Supply chains are tightly coupled: a 10 % input loss cuts output 20–30 %.\n"
            "3. Institutions react in 6–18 months, too slowly to stop the first cascade.")


def debate_con(body: dict[str, Any]) -> str:
    shock, qty, unit, lo, hi = topic(body)
    return (f"1. Substitution absorbs 40–70 % of the {qty} shock within two years.\n"
            f"2. Historical analogues show recovery to {lo:g} {unit} within 5 years.\n"
            "3. Emergency policy has been enacted in weeks when the threat was visible.")


def debate_brief(body: dict[str, Any]) -> dict[str, Any]:
    return {"points": [{"issue": "speed of substitution", "pro": "too slow (>5 yr)", "con": "fast (<2 yr)",
                        "crux": "observed price pass-through in the first 6 months"},
                       {"issue": "institutional lag", "pro": "6–18 months", "con": "weeks",
                        "crux": "time to first emergency measure"}],
            "summary": "The debate turns on adaptation speed; both sides agree the first-year shock is large."}


def critic(body: dict[str, Any]) -> dict[str, Any]:
    h = _n(last_user(body))
    return {"score": 5 + h % 5, "reason": "clear causal chain; ranges could be tighter"}


def judge(body: dict[str, Any]) -> dict[str, Any]:
    text = last_user(body)
    h = _n(text)
    rich = text.count("|") / 400  # more tables → more traceable
    scores = {"rigor_traceability": min(25, 14 + int(rich * 4) + h % 4),
              "integration_causality": min(25, 13 + int(rich * 4) + (h // 4) % 4),
              "feasibility_minimality": min(20, 11 + int(rich * 3) + (h // 16) % 3),
              "uncertainty_adaptation": min(15, 8 + int(rich * 2) + (h // 64) % 3),
              "decisionability": min(15, 8 + int(rich * 2) + (h // 256) % 3)}
    return {**scores, "overall": sum(scores.values()), "rationale": "Traceable assumptions; indicators usable."}


# JSON keys whose strings are free text (labelled by the demo server); ids, names, indicators and enum
# values are left alone so that the report's consistency checks still line up.
LABEL_KEYS = frozenset({
    "verdict", "statement", "minimal_change", "restated", "point", "resolution", "treatment_notes",
    "summary_bullets", "core_conclusions", "uncertainty_analysis", "feasibility", "summary", "reason", "rationale",
})

ANSWERS: dict[str, Any] = {
    "whatif.refiner": refiner,
    "whatif.expert": expert,
    "whatif.resolver": resolver,
    "whatif.debate.pro": debate_pro,
    "whatif.debate.con": debate_con,
    "whatif.debate.judge#synthesis": direct_answer,
    "whatif.debate.judge": debate_brief,
    "whatif.report#core": report_core,
    "whatif.report#analysis": report_analysis,
    "whatif.report#scenarios": report_scenarios,
    "whatif.repair": repair,
    "whatif.single": direct_answer,
    "whatif.tree.draft": direct_answer,
    "whatif.tree.expand": direct_answer,
    "whatif.tree.critic": critic,
    "whatif.judge": judge,
}
"""Answers by call name (:mod:`ifworld.llm.wire`): a report part and the debate judge's closing synthesis are
variants of their roles."""
