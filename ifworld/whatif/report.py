"""Assemble the final :class:`Report` and render it to Markdown deterministically.

The renderer only reads the structured report, so the same record always gives the same Markdown and a
saved run can be re-rendered (or re-judged) without calling a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ifworld.safe_text import demote_headings
from ifworld.whatif.consistency import CHECKS, Repair, reconcile
from ifworld.whatif.numbers import confidence, interval, num, pct
from ifworld.whatif.schemas import ADJUDICATION_RULES, Report

REPORT_SECTIONS: tuple[str, ...] = (
    "Summary", "Executive verdict", "Core conclusions", "Uncertainty analysis", "Assumptions and claims",
    "Causal integration matrix", "Feasibility", "Calibration ranges", "Alignment summary", "Decision table",
    "Causal map", "Multi-scenario analysis", "Timeline", "Consistency checks",
)
MATRIX_MAX_EDGES = 10
NATURAL_HEADING_FLOOR = 3
"""A baseline's own text sits under the export's title and beside its level-2 sections: its headings start at 3."""
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


def _branch_label(branches: dict[str, dict], bid: str) -> str:
    b = branches.get(str(bid).lower())
    return f"{b['id']} {b['name']}" if b else (bid or "all branches")


def _opening(r: dict[str, Any], proposition: str) -> list[str]:
    ev = r["executive_verdict"]
    md = [f"# {_cell(proposition)}", ""] if proposition else []
    return md + [f"**Verdict.** {_cell(ev['verdict']) or '—'}", ""]


def _scenario_sections(r: dict[str, Any], branches: dict[str, dict]) -> list[str]:
    md = ["## Multi-scenario analysis", ""] + _table(
        ["Branch", "Scenario", "Condition", "Probability", "Drivers", "Pros", "Cons", "Indicators"],
        [[s["id"], s["name"], s["condition"], pct(s["probability_pct"]), s["drivers"], s["pros"], s["cons"],
          s["indicators"]] for s in r["scenarios"]])
    timeline = sorted(r["timeline"], key=lambda t: HORIZON_ORDER.get(t["horizon"], 3))
    md += ["## Timeline", ""] + _table(["Horizon", "Event", "Branch"],
                                       [[t["horizon"], t["event"], _branch_label(branches, t["branch_id"])]
                                        for t in timeline])
    return md


JUDGED_CONFLICTS_HEADING = "Conflicts and residual disagreements"
"""The judge's view of A.5's last section: how conflicts were resolved and what stays open (no check table)."""


KIND_TAG_RE = re.compile(r"^\[(?:hard|soft|granularity)\]\s*")
"""The resolver's conflict kind at the head of a resolution line: our schema's word, left out of the judged copy."""


def _consistency_section(cc: dict[str, Any], judged: bool = False) -> list[str]:
    if judged:  # the paper's content of the section; our check table and repair notes are the pipeline's tell
        return ([f"## {JUDGED_CONFLICTS_HEADING}", "", "**How conflicts were resolved**", ""]
                + _bullets([KIND_TAG_RE.sub("", r) for r in cc["resolutions"]]) + ["**Residual disagreements**", ""]
                + _bullets(cc["residual_disagreements"]))
    md = ["## Consistency checks", ""]
    if cc["checks"]:
        md += _table(["Check", "Result", "Details"],
                     [[CHECKS.get(c["name"], c["name"]), "passed" if c["passed"] else "FAILED", c["details"]]
                      for c in cc["checks"]])
    if cc["repaired"]:
        md += ["**Repaired by the repair turn**", ""] + _bullets(cc["repaired"])
    if cc["normalised"]:
        md += ["**Normalised without a model**", ""] + _bullets(cc["normalised"])
    md += ["**How conflicts were resolved**", ""] + _bullets(cc["resolutions"])
    md += ["**Residual disagreements**", ""] + _bullets(cc["residual_disagreements"])
    return md


JUDGED_DISAGREEMENTS = "Disagreements"
"""The judged copy's name for the conflicts table: plain words any analysis may use (§3.1, blind). The export's
"Conflicts and how they were adjudicated", its "Positions (experts)", "Kind", "Rule applied" and "Treatment"
columns are our resolver's schema — a tell that only IF-World's report would carry."""


def _conflict_table(conflicts: list[dict], judged: bool = False) -> list[str]:
    if judged:
        return [f"**{JUDGED_DISAGREEMENTS}**", ""] + _table(
            ["Question", "Positions", "Resolution"],
            [[c["topic"], "; ".join(s["position"] for s in c["sides"]), c["resolution"]] for c in conflicts])
    rows = [[c["topic"], c["kind"],
             "; ".join(f"{s['position']} ({', '.join(s['experts']) or '?'})" for s in c["sides"]),
             ADJUDICATION_RULES.get(c["rule"], c["rule"]), c["treatment"], c["resolution"]] for c in conflicts]
    return ["**Conflicts and how they were adjudicated**", ""] + _table(
        ["Conflict", "Kind", "Positions (experts)", "Rule applied", "Treatment", "Resolution"], rows)


def strip_degraded(markdown: str) -> str:
    """A natural (baseline) report's text without the "Degraded steps" section the pipeline appends."""
    return markdown.split("\n## Degraded steps\n", 1)[0].rstrip() + "\n"


def render_report_markdown(report: dict[str, Any], proposition: str = "", *, judged: bool = False) -> str:
    """Markdown for a report dict: the proposition and verdict first, then every section of
    :data:`REPORT_SECTIONS` (empty ones say so). Numbers go through :mod:`ifworld.whatif.numbers`.

    ``judged=True`` is what the judge reads (§3.1, blind): the report's content without what only our pipeline
    writes — the consistency-check table and its repair / normalisation notes, the adjudication-rule column,
    degraded-step notes — so no method is recognisable by its bookkeeping. Exports keep all of it."""
    r = Report.model_validate(report).model_dump(mode="json")
    if r["natural"]:  # the title line is ours; the model's headings go below the export's own
        if judged:  # the text as the method wrote it, headings and all
            return strip_degraded(r["markdown"])
        title, sep, body = r["markdown"].partition("\n") if r["markdown"].startswith("# ") else ("", "", r["markdown"])
        return title + sep + demote_headings(body, NATURAL_HEADING_FLOOR)
    branches = {s["id"].lower(): s for s in r["scenarios"] if s["id"]}
    ev = r["executive_verdict"]
    md = _opening(r, proposition) + ["## Summary", ""] + _bullets(r["summary_bullets"])
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
        [[f["constraint"], num(f["estimate"]), f["unit"], f["bottleneck"], f["mitigation"]]
         for f in r["feasibility_table"]])
    md += ["## Calibration ranges", ""] + _table(
        ["Quantity", "Unit", "50 % interval", "80 % interval", "95 % interval"],
        [[c["quantity"], c["unit"], interval(c["ci50"]), interval(c["ci80"]), interval(c["ci95"])]
         for c in r["calibration_ranges"]])
    md += ["## Alignment summary", "", "**Consensus**", ""]
    md += _bullets([f"{c['point']} (confidence {confidence(c['confidence'])})" for c in r["alignment"]["consensus"]])
    md += _conflict_table(r["alignment"]["conflicts"], judged)
    md += ["**Retained branches**", ""] + _table(
        ["Branch", "Condition", "Probability"],
        [[f"{s['id']} {s['name']}", s["condition"], pct(s["probability_pct"])] for s in r["scenarios"]])
    md += ["## Decision table", ""] + _table(
        ["Indicator", "Threshold", "Branch", "Action", "Who acts", "Lead time"],
        [[d["indicator"], d["threshold"], _branch_label(branches, d["branch_id"]), d["action"], d["actor"],
          d["lead_time"]] for d in r["decision_table"]])
    cmap = r["causal_map"]
    md += ["## Causal map", "", f"{len(cmap['nodes'])} nodes, {len(cmap['edges'])} edges.", ""]
    md += _table(["Source", "Target", "Sign", "Strength", "Domains"],
                 [[e["source"], e["target"], e["sign"], e["strength"], e["domains"]] for e in cmap["edges"]])
    md += _scenario_sections(r, branches)
    md += _consistency_section(r["consistency_checks"], judged)
    if r["degraded"] and not judged:
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


FALLBACK_NOTES = {
    "analysis": "its tables are the experts' own feasibility and calibration rows and their strongest causal "
                "edges, not a cross-domain synthesis",
    "scenarios": "scenarios and decision rules are the resolver's adjudicated branches and rules; no timeline",
}


def fallback_part(part: str, experts: dict[str, dict]) -> dict[str, Any]:
    """What stands in for a report part whose writer failed. ``analysis``: every expert's own feasibility and
    calibration rows (the causal matrix is filled from their edges by :func:`finish_report`); ``scenarios``:
    nothing, so :func:`assemble_report` takes the final synthesis' branches and rules."""
    if part != "analysis":
        return {}
    return {"feasibility_table": [row for o in experts.values() for row in o.get("feasibility_table", [])],
            "calibration_ranges": [c for o in experts.values() for c in o.get("calibration", [])]}


def _scenarios_from(synthesis: dict) -> list[dict]:
    return [{"id": b.get("id", ""), "name": b.get("name") or b.get("description") or b.get("condition", ""),
             "condition": b.get("condition", ""), "probability_pct": b.get("probability_pct", 0),
             "drivers": list(b.get("domains", []))} for b in synthesis.get("branches", [])]


def assemble_report(parts: dict[str, dict], synthesis: dict | None) -> dict[str, Any]:
    """Merge report parts with the final synthesis (alignment, consistency notes) into a Report dict
    (not yet checked: :func:`finish_report` does that).

    The scenarios part is written from the final synthesis' branches (same ids); if it came back without
    branches or rules, the synthesis' own are used, so the report always has one scenario structure."""
    merged: dict[str, Any] = {}
    for part in ("core", "analysis", "scenarios"):
        merged.update(parts.get(part) or {})
    if synthesis:
        merged["alignment"] = {"consensus": synthesis.get("consensus", []),
                               "conflicts": synthesis.get("conflicts", [])}
        if not merged.get("scenarios"):
            merged["scenarios"] = _scenarios_from(synthesis)
        if not merged.get("decision_table"):
            merged["decision_table"] = synthesis.get("decision_rules", [])
        merged["consistency_checks"] = {
            "resolutions": [f"[{c['kind']}] {c['topic']}: {c['resolution']}" for c in synthesis.get("conflicts", [])]
            + list(synthesis.get("treatment_notes", [])),
            "residual_disagreements": [f"{u['description']} (watch: {u['indicator']})"
                                       for u in synthesis.get("uncertainties", [])],
        }
    return Report.model_validate(merged).model_dump(mode="json")


def finish_report(report: dict[str, Any], degraded: list[str], expert_edges: list[dict] | None = None, *,
                  repair: Repair | None = None, proposition: str = "",
                  variant_ids: Sequence[str] = ()) -> dict[str, Any]:
    """Validate, fill an empty causal map/matrix from available edges, run the consistency check (with
    ``repair`` as its one repair turn; ``variant_ids`` are the scenario's variants, each of which must get the
    panel's probability), record degradation, render Markdown."""
    r = Report.model_validate(report).model_dump(mode="json")
    if not r["causal_matrix"] and expert_edges:
        r["causal_matrix"] = sorted(expert_edges, key=lambda e: -e["strength"])[:MATRIX_MAX_EDGES]
    if not r["causal_map"]["edges"] and r["causal_matrix"]:
        r["causal_map"] = causal_map_from_edges(r["causal_matrix"])
    r = Report.model_validate(reconcile(r, repair, variant_ids)).model_dump(mode="json")
    r["degraded"] = list(dict.fromkeys([*r["degraded"], *degraded]))
    r["markdown"] = render_report_markdown(r, proposition)
    return r


def with_degraded(report: dict[str, Any], degraded: list[str], proposition: str) -> dict[str, Any]:
    """``report`` listing ``degraded`` (the run's whole list) under "Degraded steps", Markdown re-rendered."""
    r = Report.model_validate(report).model_dump(mode="json")
    r["degraded"] = list(dict.fromkeys([*r["degraded"], *degraded]))
    if not r["natural"]:
        r["markdown"] = render_report_markdown(r, proposition)
    else:  # a baseline's own text: replace its degraded section
        body = r["markdown"].split("\n## Degraded steps\n", 1)[0].rstrip() + "\n"
        r["markdown"] = body + "\n## Degraded steps\n\n" + "\n".join(f"- {_cell(d)}" for d in r["degraded"]) + "\n"
    return r


def natural_report(text: str, proposition: str, degraded: list[str]) -> dict[str, Any]:
    """A baseline's own output as a report: the text as written (no structure is imposed or checked)."""
    body = f"# {_cell(proposition)}\n\n{text.strip()}\n" if proposition else text.strip() + "\n"
    if degraded:
        body += "\n## Degraded steps\n\n" + "\n".join(f"- {_cell(d)}" for d in degraded) + "\n"
    return Report(natural=True, markdown=body, degraded=list(degraded)).model_dump(mode="json")
