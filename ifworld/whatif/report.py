"""Assemble the final :class:`Report` and render it to Markdown deterministically.

The renderer only reads the structured report, so the same record always gives the same Markdown and a
saved run can be re-rendered (or re-judged) without calling a model.
"""

from __future__ import annotations

from typing import Any

from ifworld.whatif.schemas import Report

REPORT_SECTIONS: tuple[str, ...] = (
    "Summary", "Executive verdict", "Core conclusions", "Uncertainty analysis", "Assumptions and claims",
    "Causal integration matrix", "Feasibility", "Calibration ranges", "Alignment summary", "Decision table",
    "Causal map", "Multi-scenario analysis", "Timeline", "Consistency checks",
)
MATRIX_MAX_EDGES = 10
HORIZON_ORDER = {"short": 0, "medium": 1, "long": 2}


def _cell(value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    return " ".join(str(value if value is not None else "").split()).replace("|", "\\|")


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    if not rows:
        return ["_None recorded._", ""]
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out + [""]


def _bullets(items: list[Any]) -> list[str]:
    return [f"- {_cell(i)}" for i in items] + [""] if items else ["_None recorded._", ""]


def _interval(pair: list[float]) -> str:
    return f"{pair[0]:g}–{pair[1]:g}" if len(pair) >= 2 else ""


def render_report_markdown(report: dict[str, Any]) -> str:
    """Markdown for a report dict (every section of :data:`REPORT_SECTIONS`, empty ones say so)."""
    r = Report.model_validate(report).model_dump(mode="json")
    ev = r["executive_verdict"]
    md = ["## Summary", ""] + _bullets(r["summary_bullets"])
    md += ["## Executive verdict", "", f"**Verdict.** {_cell(ev['verdict'])}", "",
           f"**Feasibility.** {_cell(ev['feasibility'])}", "", f"**Minimal change.** {_cell(ev['minimal_change'])}", ""]
    md += ["## Core conclusions", ""] + _bullets(r["core_conclusions"])
    md += ["## Uncertainty analysis", ""] + _bullets(r["uncertainty_analysis"])
    md += ["## Assumptions and claims", "", "**Assumptions**", ""]
    md += _bullets([f"{a['id']}: {a['text']}" for a in r["assumptions"]])
    md += ["**Claims**", ""] + _bullets([f"{c['id']}: {c['text']} (relies on {', '.join(c['assumptions']) or '—'})"
                                          for c in r["claims"]])
    md += ["**Trace table**", ""] + _table(["Assumption", "Claim", "Note"],
                                           [[t["assumption_id"], t["claim_id"], t["note"]] for t in r["trace_table"]])
    edges = sorted(r["causal_matrix"], key=lambda e: -e["strength"])[:MATRIX_MAX_EDGES]
    md += ["## Causal integration matrix", ""] + _table(
        ["Source", "Target", "Sign", "Strength", "Domains", "Mechanism"],
        [[e["source"], e["target"], e["sign"], e["strength"], e["domains"], e["mechanism"]] for e in edges])
    md += ["## Feasibility", ""] + _table(
        ["Constraint", "Estimate", "Unit", "Bottleneck", "Mitigation"],
        [[f["constraint"], f["estimate"], f["unit"], f["bottleneck"], f["mitigation"]] for f in r["feasibility_table"]])
    md += ["## Calibration ranges", ""] + _table(
        ["Quantity", "Unit", "50 %", "80 %", "95 %"],
        [[c["quantity"], c["unit"], _interval(c["ci50"]), _interval(c["ci80"]), _interval(c["ci95"])]
         for c in r["calibration_ranges"]])
    md += ["## Alignment summary", "", "**Consensus**", ""]
    md += _bullets([f"{c['point']} (confidence {c['confidence']:.2f})" for c in r["alignment"]["consensus"]])
    md += ["**Retained branches**", ""] + _table(
        ["Condition", "Branch", "Domains", "Probability"],
        [[b["condition"], b["description"], b["domains"], f"{b['probability_pct']:.0f} %"]
         for b in r["alignment"]["branches"]])
    md += ["## Decision table", ""] + _table(
        ["Indicator", "Threshold", "Branch"],
        [[d["indicator"], d["threshold"], d["branch"]] for d in r["decision_table"]])
    cmap = r["causal_map"]
    md += ["## Causal map", "", f"{len(cmap['nodes'])} nodes, {len(cmap['edges'])} edges.", ""]
    md += _table(["Source", "Target", "Sign", "Strength", "Domains"],
                 [[e["source"], e["target"], e["sign"], e["strength"], e["domains"]] for e in cmap["edges"]])
    md += ["## Multi-scenario analysis", ""] + _table(
        ["Scenario", "Probability", "Drivers", "Pros", "Cons", "Indicators"],
        [[s["name"], f"{s['probability_pct']:.0f} %", s["drivers"], s["pros"], s["cons"], s["indicators"]]
         for s in r["scenarios"]])
    timeline = sorted(r["timeline"], key=lambda t: HORIZON_ORDER.get(t["horizon"], 3))
    md += ["## Timeline", ""] + _table(["Horizon", "Event", "Probability"],
                                       [[t["horizon"], t["event"], f"{t['probability_pct']:.0f} %"] for t in timeline])
    cc = r["consistency_checks"]
    md += ["## Consistency checks", "", "**How conflicts were resolved**", ""] + _bullets(cc["resolutions"])
    md += ["**Residual disagreements**", ""] + _bullets(cc["residual_disagreements"])
    if r["degraded"]:
        md += ["## Degraded steps", ""] + _bullets(r["degraded"])
    return "\n".join(md).rstrip() + "\n"


def causal_map_from_edges(edges: list[dict], domain_of: dict[str, str] | None = None) -> dict[str, Any]:
    """A causal map (nodes + edges) built from edge dicts, for reports whose writer left the map empty."""
    nodes: dict[str, dict] = {}
    for e in edges:
        for end in (e["source"], e["target"]):
            if end not in nodes:
                domain = (domain_of or {}).get(end) or (e.get("domains") or [""])[0]
                nodes[end] = {"id": end, "label": end, "domain": domain}
    return {"nodes": list(nodes.values()), "edges": edges}


def assemble_report(parts: dict[str, dict], synthesis: dict | None, degraded: list[str],
                    expert_edges: list[dict] | None = None) -> dict[str, Any]:
    """Merge report parts with the final synthesis (alignment, decisions, consistency) into a Report dict."""
    merged: dict[str, Any] = {}
    for part in ("core", "analysis", "scenarios"):
        merged.update(parts.get(part) or {})
    if synthesis:
        merged["alignment"] = {"consensus": synthesis.get("consensus", []), "branches": synthesis.get("branches", [])}
        if synthesis.get("decision_rules"):
            merged["decision_table"] = synthesis["decision_rules"]
        merged["consistency_checks"] = {
            "resolutions": [f"[{c['kind']}] {c['topic']}: {c['resolution']}" for c in synthesis.get("conflicts", [])]
            + list(synthesis.get("treatment_notes", [])),
            "residual_disagreements": [f"{u['description']} (watch: {u['indicator']})"
                                       for u in synthesis.get("uncertainties", [])],
        }
    return finish_report(merged, degraded, expert_edges)


def finish_report(report: dict[str, Any], degraded: list[str],
                  expert_edges: list[dict] | None = None) -> dict[str, Any]:
    """Validate, fill an empty causal map/matrix from available edges, record degradation, render Markdown."""
    r = Report.model_validate(report).model_dump(mode="json")
    if not r["causal_matrix"] and expert_edges:
        r["causal_matrix"] = sorted(expert_edges, key=lambda e: -e["strength"])[:MATRIX_MAX_EDGES]
    if not r["causal_map"]["edges"] and r["causal_matrix"]:
        r["causal_map"] = causal_map_from_edges(r["causal_matrix"])
    r["degraded"] = list(dict.fromkeys([*r["degraded"], *degraded]))
    r["markdown"] = render_report_markdown(r)
    return r
