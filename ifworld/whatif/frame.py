"""The shared frame F_r = Ψ(O_{r-1}) ⊕ D_r and the bounded digests that feed prompts.

Everything here is deterministic and capped by named constants so prompt size does not grow with the
number of experts or rounds: the frame keeps at most a few items per list, each item is truncated, and the
text rendering has a hard character ceiling. Raw expert outputs are never pasted; digests are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ifworld.whatif.numbers import pct

ITEM_MAX_CHARS = 220
DIGEST_MAX_CHARS = 1_200
DIGESTS_MAX_CHARS = 9_000
FRAME_TEXT_MAX_CHARS = 3_500
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
        "debate_points": [{"issue": clip(p.get("issue"), 120), "crux": clip(p.get("crux"))}
                          for p in _cap((brief or {}).get("points"), "debate_points")],
        "debate_summary": clip((brief or {}).get("summary"), 2 * ITEM_MAX_CHARS),
        "degraded": _cap(sorted(failed), "degraded"),
        "has_synthesis": synthesis is not None,
        "has_debate": brief is not None,
    }
    frame["text"] = frame_text(frame)
    return frame


def frame_text(frame: dict[str, Any], limit: int = FRAME_TEXT_MAX_CHARS) -> str:
    """The frame as prompt text, hard-capped at ``limit`` characters."""
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
    if frame["debate_points"]:
        parts.append("Debate contention points:\n" + "\n".join(f"- {p['issue']} — crux: {p['crux']}"
                                                              for p in frame["debate_points"]))
    if frame["degraded"]:
        parts.append("Degraded: no output from " + ", ".join(frame["degraded"]) + ".")
    text = "\n\n".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
