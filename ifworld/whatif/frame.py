"""The shared frame F_r = Ψ(O_{r-1}) ⊕ D_r as the record keeps it, what changed between frames, and clips for labels.

The frame keeps the resolver's synthesis and the debate brief whole (every item, every field): how much of it an
agent reads is the packer's decision, made from the agent's context window (:mod:`ifworld.whatif.inputs`,
:mod:`ifworld.llm.packing`), never a character cap here. :func:`clip` shortens text for *labels* on pages only.
"""

from __future__ import annotations

import re
from typing import Any

from ifworld.whatif.inputs import frame_text
from ifworld.whatif.numbers import pct

LABEL_MAX_CHARS = 220
NOTES_PER_EXPERT = 4
_KEY_RE = re.compile(r"[^a-z0-9]+")


def clip(text: Any, limit: int = LABEL_MAX_CHARS) -> str:
    """One line of at most ``limit`` characters (an ellipsis marks a cut) — for labels, never for prompts."""
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _key(text: Any) -> str:
    return _KEY_RE.sub(" ", str(text).lower()).strip()[:60]


def build_frame(round_no: int, synthesis: dict | None, brief: dict | None, failed: list[str]) -> dict[str, Any]:
    """The shared frame after ``round_no``: the synthesis and the debate brief whole, plus its text."""
    syn = synthesis or {}
    frame: dict[str, Any] = {
        "round": round_no,
        **{k: list(syn.get(k) or []) for k in ("consensus", "conflicts", "branches", "decision_rules",
                                               "uncertainties", "treatment_notes")},
        "debate_points": list((brief or {}).get("points") or []),
        "debate_summary": str((brief or {}).get("summary") or ""),
        "degraded": sorted(failed),
        "has_synthesis": synthesis is not None,
        "has_debate": brief is not None,
    }
    for i, b in enumerate(frame["branches"], start=1):  # a branch without an id gets its place, as before
        if not b.get("id"):
            frame["branches"][i - 1] = {**b, "id": f"B{i}"}
    frame["text"] = frame_text(frame)
    return frame


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
