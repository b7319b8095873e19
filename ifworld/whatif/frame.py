"""The shared frame F_r = Ψ(O_{r-1}) ⊕ D_r, the experts' outputs as other agents read them, and digests.

Everything here is deterministic and capped by named constants so prompt size does not grow without bound
with the number of experts or rounds. The frame's two halves have a budget each
(:data:`SYNTHESIS_TEXT_MAX_CHARS` for Ψ, :data:`DEBATE_TEXT_MAX_CHARS` for D_r), so a long synthesis can never
push the debate brief out (§2.2: F_r is their concatenation). The resolver and the report writers read each
expert's whole structured output (A.4 "joined domain outputs"), bounded per expert by
:func:`expert_output_text`, which drops the least needed sections first and keeps the assumptions,
uncertainties, feasibility table and calibration ranges. Short digests remain for the debaters and the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ifworld.whatif.numbers import pct

ITEM_MAX_CHARS = 220
DIGEST_MAX_CHARS = 1_200
DIGESTS_MAX_CHARS = 9_000
SYNTHESIS_TEXT_MAX_CHARS = 3_500
"""Ψ's share of the frame text (consensus, conflicts, branches, rules, uncertainties)."""
DEBATE_TEXT_MAX_CHARS = 2_000
"""D_r's share of the frame text (the debate brief: its points with both positions and the crux, its summary)."""
FRAME_TEXT_MAX_CHARS = SYNTHESIS_TEXT_MAX_CHARS + DEBATE_TEXT_MAX_CHARS + 2
EXPERT_OUTPUT_MAX_CHARS = 4_000
"""One expert's structured output as the resolver and the report writers read it (at most)."""
EXPERT_OUTPUT_MIN_CHARS = 2_500
"""…and at least, however many experts share :data:`OUTPUTS_MAX_CHARS`."""
OUTPUTS_MAX_CHARS = 36_000
OUTPUT_ITEM_CHARS = 200
FRAME_CAPS: dict[str, int] = {
    "consensus": 8, "conflicts": 6, "branches": 5, "decision_rules": 6, "uncertainties": 5, "debate_points": 5,
    "treatment_notes": 4, "degraded": 12,
}
MAX_SIDES = 4
NOTES_PER_EXPERT = 4
_KEY_RE = re.compile(r"[^a-z0-9]+")


def clip(text: Any, limit: int = ITEM_MAX_CHARS) -> str:
    """One line of at most ``limit`` characters (an ellipsis marks a cut)."""
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _key(text: Any) -> str:
    return _KEY_RE.sub(" ", str(text).lower()).strip()[:60]


def _range(r: dict) -> str:
    return f"{r.get('quantity', '')} {r.get('low', '')}–{r.get('high', '')} {r.get('unit', '')}".strip()


def expert_digest(domain: str, output: dict[str, Any], limit: int = DIGEST_MAX_CHARS) -> str:
    """A compact, bounded summary of one expert's output for other agents' prompts."""
    lines = [f"[{domain}] verdict: {clip(output.get('verdict'))}"]
    for c in output.get("conclusions", [])[:3]:
        ranges = "; ".join(_range(r) for r in c.get("ranges", [])[:2])
        lines.append(f"- {clip(c.get('statement'), 160)}" + (f" ({ranges})" if ranges else ""))
    edges = [f"{e['source']} -> {e['target']} ({e['sign']}{e['strength']})"
             for e in output.get("key_causal_edges", [])[:4]]
    if edges:
        lines.append("edges: " + "; ".join(edges))
    scen = [f"{s.get('name')} {pct(s.get('probability_pct', 0))}" for s in output.get("scenarios", [])[:3]]
    if scen:
        lines.append("scenarios: " + ", ".join(scen))
    inds = [f"{i.get('name')} {i.get('threshold', '')}".strip() for i in output.get("indicators", [])[:3]]
    if inds:
        lines.append("indicators: " + "; ".join(inds))
    if output.get("minimal_change"):
        lines.append(f"minimal change: {clip(output['minimal_change'], 160)}")
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def digests_text(outputs: dict[str, dict], limit: int = DIGESTS_MAX_CHARS) -> str:
    """All experts' digests; each gets an equal share of ``limit`` so the total stays bounded."""
    if not outputs:
        return "(no expert output available)"
    share = max(200, min(DIGEST_MAX_CHARS, limit // len(outputs)))
    return "\n\n".join(expert_digest(d, o, share) for d, o in outputs.items())


def _cap(items: Iterable[Any] | None, name: str) -> list[Any]:
    return list(items or [])[: FRAME_CAPS[name]]


def build_frame(round_no: int, synthesis: dict | None, brief: dict | None, failed: list[str]) -> dict[str, Any]:
    """The structured shared frame after ``round_no`` (capped lists, clipped items) plus its text."""
    syn = synthesis or {}
    frame: dict[str, Any] = {
        "round": round_no,
        "consensus": [{"point": clip(c.get("point")), "confidence": round(float(c.get("confidence", 0.5)), 2)}
                      for c in _cap(syn.get("consensus"), "consensus")],
        "conflicts": [{"topic": clip(c.get("topic"), 120), "kind": c.get("kind", "soft"),
                       "sides": [{"position": clip(s.get("position"), 120), "experts": list(s.get("experts", []))[:6]}
                                 for s in list(c.get("sides") or [])[:MAX_SIDES]],
                       "rule": c.get("rule", "none"), "treatment": c.get("treatment", "open"),
                       "resolution": clip(c.get("resolution"))} for c in _cap(syn.get("conflicts"), "conflicts")],
        "branches": [{"id": str(b.get("id") or f"B{i}"), "name": clip(b.get("name"), 80),
                      "condition": clip(b.get("condition"), 160), "description": clip(b.get("description")),
                      "domains": list(b.get("domains", []))[:4], "probability_pct": b.get("probability_pct", 0)}
                     for i, b in enumerate(_cap(syn.get("branches"), "branches"), start=1)],
        "decision_rules": [{"indicator": clip(d.get("indicator"), 120), "threshold": clip(d.get("threshold"), 80),
                            "branch_id": clip(d.get("branch_id") or d.get("branch"), 80)}
                           for d in _cap(syn.get("decision_rules"), "decision_rules")],
        "uncertainties": [{"description": clip(u.get("description")), "indicator": clip(u.get("indicator"), 120)}
                          for u in _cap(syn.get("uncertainties"), "uncertainties")],
        "treatment_notes": [clip(n) for n in _cap(syn.get("treatment_notes"), "treatment_notes")],
        "debate_points": [{"issue": clip(p.get("issue"), 120), "pro": clip(p.get("pro"), 160),
                           "con": clip(p.get("con"), 160), "crux": clip(p.get("crux"), 160)}
                          for p in _cap((brief or {}).get("points"), "debate_points")],
        "debate_summary": clip((brief or {}).get("summary"), 2 * ITEM_MAX_CHARS),
        "degraded": _cap(sorted(failed), "degraded"),
        "has_synthesis": synthesis is not None,
        "has_debate": brief is not None,
    }
    frame["text"] = frame_text(frame)
    return frame


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def frame_text(frame: dict[str, Any]) -> str:
    """The frame as prompt text: Ψ within :data:`SYNTHESIS_TEXT_MAX_CHARS`, then D_r within
    :data:`DEBATE_TEXT_MAX_CHARS` — each half has its own budget, so both always arrive."""
    debate = debate_text(frame)
    return _cut(synthesis_text(frame), SYNTHESIS_TEXT_MAX_CHARS) + ("\n\n" + debate if debate else "")


def debate_text(frame: dict[str, Any]) -> str:
    """D_r, the debate brief, as prompt text (empty without a debate), within :data:`DEBATE_TEXT_MAX_CHARS`."""
    points = frame.get("debate_points") or []
    if not points and not frame.get("debate_summary"):
        return ""
    lines = ["Debate brief:"]
    for p in points:
        lines.append(f"- {p['issue']}: pro — {p.get('pro') or '?'}; con — {p.get('con') or '?'}; "
                     f"crux — {p.get('crux') or '?'}")
    if frame.get("debate_summary"):
        lines.append(f"Summary: {frame['debate_summary']}")
    return _cut("\n".join(lines), DEBATE_TEXT_MAX_CHARS)


def synthesis_text(frame: dict[str, Any]) -> str:
    """Ψ, the resolver's synthesis, as prompt text (not yet cut)."""
    parts = [f"Shared frame after round {frame['round']}."]
    if frame["consensus"]:
        parts.append("Consensus:\n" + "\n".join(f"- {c['point']} (confidence {c['confidence']:.2f})"
                                               for c in frame["consensus"]))
    if frame["conflicts"]:
        parts.append("Conflicts:\n" + "\n".join(
            f"- [{c['kind']}; rule: {c.get('rule', 'none')}] {c['topic']}: {c['resolution']}"
            for c in frame["conflicts"]))
    if frame["branches"]:
        parts.append("Conditional branches (keep these ids):\n" + "\n".join(
            f"- {b.get('id', '?')} {b.get('name', '')}: IF {b['condition']} THEN {b['description']} "
            f"({pct(b['probability_pct'])}; {', '.join(b['domains'])})" for b in frame["branches"]))
    if frame["decision_rules"]:
        parts.append("Decision rules:\n" + "\n".join(
            f"- {d['indicator']} {d['threshold']} -> {d.get('branch_id', d.get('branch', ''))}"
            for d in frame["decision_rules"]))
    if frame["uncertainties"]:
        parts.append("Open uncertainties:\n" + "\n".join(f"- {u['description']} [watch: {u['indicator']}]"
                                                        for u in frame["uncertainties"]))
    if frame["degraded"]:
        parts.append("Degraded: no output from " + ", ".join(frame["degraded"]) + ".")
    return "\n\n".join(parts)


def _branch_key(b: dict) -> str:
    return str(b.get("id") or "").lower() or _key(b.get("condition"))


def _branch_label(b: dict) -> str:
    return " ".join(x for x in (b.get("id"), b.get("name") or b.get("condition")) if x)


def frame_diff(previous: dict | None, current: dict, outputs: dict[str, dict] | None = None) -> dict[str, Any]:
    """What changed between two frames (consensus gained; conflicts resolved / opened; branches added,
    dropped, re-weighted) and, from this round's ``outputs``, each expert's notes on how the previous frame
    changed their view."""
    prev = previous or {"consensus": [], "conflicts": [], "branches": []}
    prev_cons = {_key(c["point"]) for c in prev["consensus"]}
    prev_conf = {_key(c["topic"]) for c in prev["conflicts"]}
    cur_conf = {_key(c["topic"]) for c in current["conflicts"]}
    prev_br = {_branch_key(b): b for b in prev["branches"]}
    cur_br = {_branch_key(b): b for b in current["branches"]}
    reweighted = [f"{_branch_label(b)}: {pct(prev_br[k]['probability_pct'])} → {pct(b['probability_pct'])}"
                  for k, b in cur_br.items() if k in prev_br
                  and abs(float(prev_br[k]["probability_pct"] or 0) - float(b["probability_pct"] or 0)) >= 0.5]
    notes = {d: [clip(n) for n in (o.get("alignment_notes") or [])[:NOTES_PER_EXPERT]]
             for d, o in (outputs or {}).items() if o.get("alignment_notes")}
    return {
        "consensus_gained": [c["point"] for c in current["consensus"] if _key(c["point"]) not in prev_cons],
        "conflicts_resolved": [c["topic"] for c in prev["conflicts"] if _key(c["topic"]) not in cur_conf],
        "conflicts_opened": [c["topic"] for c in current["conflicts"] if _key(c["topic"]) not in prev_conf]
        if previous else [],
        "branches_added": [_branch_label(b) for k, b in cur_br.items() if k not in prev_br],
        "branches_dropped": [_branch_label(b) for k, b in prev_br.items() if k not in cur_br],
        "branches_reweighted": reweighted,
        "expert_notes": notes,
    }


def _ci(values: list[Any]) -> str:
    return "–".join(f"{v:g}" if isinstance(v, int | float) else str(v) for v in values) or "?"


def _section(title: str, items: list[str]) -> str:
    return f"{title}:\n" + "\n".join(f"- {i}" for i in items) if items else ""


def _output_sections(o: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, text) of one expert output's sections, most needed first (what a cut drops last)."""
    c = OUTPUT_ITEM_CHARS
    audit = o.get("feasibility_audit") or {}
    return [
        ("verdict", f"Verdict: {clip(o.get('verdict'), 2 * c)}"),
        ("conclusions", _section("Conclusions", [
            clip(x.get("statement"), c) + "".join(f" [{_range(r)}]" for r in x.get("ranges", []))
            for x in o.get("conclusions", [])])),
        ("assumptions", _section("Assumptions", [f"{a.get('id')}: {clip(a.get('text'), c)}"
                                                 for a in o.get("assumptions", [])])),
        ("uncertainties", _section("Uncertainties (lever)", [
            f"{clip(u.get('description'), c)} (lever: {clip(u.get('lever'), c)})"
            for u in o.get("uncertainties", [])])),
        ("feasibility", _section("Feasibility audit and table", [
            *(f"{k}: {clip(audit.get(k), c)}" for k in ("resources", "technology", "policy") if audit.get(k)),
            *(f"{clip(f.get('constraint'), 80)} | {clip(f.get('estimate'), 40)} | {f.get('unit', '')} | "
              f"bottleneck: {clip(f.get('bottleneck'), 80)} | mitigation: {clip(f.get('mitigation'), 80)}"
              for f in o.get("feasibility_table", []))])),
        ("calibration", _section("Calibration ranges (50 % / 80 % / 95 %)", [
            f"{clip(r.get('quantity'), 80)} [{r.get('unit', '')}]: {_ci(r.get('ci50', []))} / "
            f"{_ci(r.get('ci80', []))} / {_ci(r.get('ci95', []))}" for r in o.get("calibration", [])])),
        ("scenarios", _section("Scenarios and timeline", [
            *(f"{clip(x.get('name'), 80)} ({pct(x.get('probability_pct', 0))}): {clip(x.get('description'), c)}"
              for x in o.get("scenarios", [])),
            *(f"{t.get('horizon')}: {clip(t.get('event'), c)} ({pct(t.get('probability_pct', 0))})"
              for t in o.get("timeline", []))])),
        ("indicators", _section("Indicators", [
            f"{clip(i.get('name'), 80)} {clip(i.get('threshold'), 60)} -> {clip(i.get('flips_to'), 60)}"
            for i in o.get("indicators", [])])),
        ("minimal_change", f"Minimal-change variant: {clip(o['minimal_change'], c)}" if o.get("minimal_change")
         else ""),
        ("dependencies", _section("Dependencies", [f"{d.get('domain')}: {clip(d.get('note'), c)}"
                                                   for d in o.get("dependencies", [])])),
        ("edges", _section("Causal edges", [
            f"{e['source']} -> {e['target']} ({e['sign']}{e['strength']}): {clip(e.get('mechanism'), 120)}"
            for e in o.get("key_causal_edges", [])])),
        ("reasoning", _section("Reasoning steps", [
            f"{clip(r.get('cause'), 80)} -> {clip(r.get('effect'), 80)} via {clip(r.get('mechanism'), 120)}"
            for r in o.get("reasoning_steps", [])])),
        ("trace", _section("Assumption -> claim", [f"{t.get('assumption_id')} -> {clip(t.get('claim'), c)}"
                                                    for t in o.get("trace", [])])),
        ("matrix", _section("Causal integration matrix", [
            f"{clip(m.get('mechanism'), 80)} x {m.get('domain')}: {m.get('sign')}{m.get('strength')}"
            for m in o.get("causal_matrix", [])])),
    ]


def expert_output_text(domain: str, output: dict[str, Any], limit: int = EXPERT_OUTPUT_MAX_CHARS) -> str:
    """One expert's whole structured output as text, within ``limit`` characters: sections are kept in order
    of need and the first that does not fit ends the text (named in a closing note), so the verdict,
    conclusions, assumptions, uncertainties, feasibility and calibration arrive before anything else."""
    head = f"[{domain}]"
    parts, used, dropped = [head], len(head), list[str]()
    for name, text in _output_sections(output):
        if not text:
            continue
        if dropped or used + len(text) + 1 > limit - 60:
            dropped.append(name)
            continue
        parts.append(text)
        used += len(text) + 1
    if dropped:
        parts.append(f"(left out for length: {', '.join(dropped)})")
    return _cut("\n".join(parts), limit)


def outputs_text(outputs: dict[str, dict], limit: int = OUTPUTS_MAX_CHARS) -> str:
    """Every expert's structured output (:func:`expert_output_text`), separated by ``---`` as A.4 joins them;
    each gets an equal share of ``limit``, between :data:`EXPERT_OUTPUT_MIN_CHARS` and
    :data:`EXPERT_OUTPUT_MAX_CHARS`."""
    if not outputs:
        return "(no expert output available)"
    share = max(EXPERT_OUTPUT_MIN_CHARS, min(EXPERT_OUTPUT_MAX_CHARS, limit // len(outputs)))
    return "\n---\n".join(expert_output_text(d, o, share) for d, o in outputs.items())
