"""What the what-if agents read, as named parts for the packer (:mod:`ifworld.llm.packing`).

Every input is rendered whole here — every section, every item, every field — and the packer alone decides,
from the role's context window, whether and how much to shorten. The names are the ones the call record and
the run page use: ``scenario``, ``expert:<domain>`` (one expert's structured output, A.3), ``synthesis`` (Ψ, the
resolver's frame, A.4), ``debate`` (D_r, the debate brief with its summary), ``frames`` (the rounds' frames, for
the report writers, A.5), ``final_synthesis``, ``transcript`` / ``answer`` / ``report`` (baselines and judge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ifworld.llm import Part, Section, section
from ifworld.whatif.numbers import pct
from ifworld.whatif.schemas import numbered_variants


def _ci(values: list[Any]) -> str:
    return "–".join(f"{v:g}" if isinstance(v, int | float) else str(v) for v in values) or "?"


def _range(r: Mapping[str, Any]) -> str:
    return f"{r.get('quantity', '')} {r.get('low', '')}–{r.get('high', '')} {r.get('unit', '')}".strip()


def scenario_part(scenario: Mapping[str, Any] | None) -> Part:
    """The refined scenario (A.2) whole: restated proposition, premises, constants, timescales, uncertainties,
    the expert plan, the variants the room predicts on and the indicators."""
    if not scenario:
        return Part("scenario", (Section("(no refined scenario: reason directly from the proposition)"),),
                    label="scenario")
    ts = scenario.get("timescales") or {}
    variants = numbered_variants(scenario.get("variants"))  # with ids, old records' by position
    return Part("scenario", (
        section("Restated", [scenario.get("restated")], bullets=False),
        section("Premises", scenario.get("premises")),
        section("Held constant", scenario.get("constants")),
        section("Timescales", [f"{k}: {ts.get(k)}" for k in ("short", "medium", "long") if ts.get(k)]),
        section("Key uncertainties", scenario.get("key_uncertainties")),
        section("Expert plan", scenario.get("expert_plan")),
        section("Variants", [f"{v.id} {v.name}: {v.description}" for v in variants]),
        section("Indicators", [f"{i.get('name')} [{i.get('unit', '')}] {i.get('threshold', '')}".strip()
                               for i in scenario.get("indicators", [])]),
    ), joiner="\n", label="scenario")


def expert_sections(o: Mapping[str, Any]) -> tuple[Section, ...]:
    """Every section of one expert's structured output (A.3), in the order A.3 lists them."""
    audit = o.get("feasibility_audit") or {}
    return (
        section("Verdict", [o.get("verdict")], bullets=False),
        section("Reasoning steps", [f"{r.get('cause')} -> {r.get('effect')} via {r.get('mechanism', '')}"
                                    + (f" ({', '.join(r['domains'])})" if r.get("domains") else "")
                                    for r in o.get("reasoning_steps", [])]),
        section("Conclusions", [str(x.get("statement", "")) + "".join(f" [{_range(r)}]" for r in x.get("ranges", []))
                                for x in o.get("conclusions", [])]),
        section("Feasibility audit", [f"{k}: {audit.get(k)}" for k in ("resources", "technology", "policy")
                                      if audit.get(k)]),
        section("Feasibility table", [
            f"{f.get('constraint')} | {f.get('estimate')} | {f.get('unit', '')} | bottleneck: "
            f"{f.get('bottleneck', '')} | mitigation: {f.get('mitigation', '')}"
            for f in o.get("feasibility_table", [])]),
        section("Assumptions", [f"{a.get('id')}: {a.get('text')}" for a in o.get("assumptions", [])]),
        section("Uncertainties (lever)", [f"{u.get('description')} (lever: {u.get('lever', '')})"
                                          for u in o.get("uncertainties", [])]),
        section("Calibration ranges (50 % / 80 % / 95 %)", [
            f"{r.get('quantity')} [{r.get('unit', '')}]: {_ci(r.get('ci50', []))} / {_ci(r.get('ci80', []))} / "
            f"{_ci(r.get('ci95', []))}" for r in o.get("calibration", [])]),
        section("Dependencies", [f"{d.get('domain')}: {d.get('note', '')}" for d in o.get("dependencies", [])]),
        section("Minimal-change variant", [o.get("minimal_change")], bullets=False),
        section("Scenarios", [f"{x.get('name')} ({pct(x.get('probability_pct', 0))}): {x.get('description', '')}"
                              for x in o.get("scenarios", [])]),
        section("Timeline", [f"{t.get('horizon')}: {t.get('event')} ({pct(t.get('probability_pct', 0))})"
                             for t in o.get("timeline", [])]),
        section("Indicators", [f"{i.get('name')} {i.get('threshold', '')} -> {i.get('flips_to', '')}"
                               for i in o.get("indicators", [])]),
        section("Assumption -> claim", [f"{t.get('assumption_id')} -> {t.get('claim')}" for t in o.get("trace", [])]),
        section("Causal integration matrix", [f"{m.get('mechanism')} x {m.get('domain')}: {m.get('sign')}"
                                              f"{m.get('strength')}" for m in o.get("causal_matrix", [])]),
        section("Key causal edges", [f"{e.get('source')} -> {e.get('target')} ({e.get('sign')}{e.get('strength')}): "
                                     f"{e.get('mechanism', '')}" for e in o.get("key_causal_edges", [])]),
        section("Alignment notes", o.get("alignment_notes")),
    )


def expert_part(domain: str, output: Mapping[str, Any], name: str | None = None) -> Part:
    """One expert's whole structured output, headed by its domain."""
    return Part(name or f"expert:{domain}", (Section(f"[{domain}]"), *expert_sections(output)), joiner="\n",
                label=f"{domain} expert's output")


def experts_parts(outputs: Mapping[str, Mapping[str, Any]], prefix: str = "expert") -> dict[str, Part]:
    """One part per expert (``outputs_0``, ``outputs_1`` … for the template's joined block)."""
    return {d: expert_part(d, o, f"{prefix}:{d}") for d, o in outputs.items()}


def synthesis_sections(s: Mapping[str, Any]) -> tuple[Section, ...]:
    """Ψ whole (A.4): consensus, conflicts with both sides' positions, rule and treatment, branches, decision
    rules with action, actor and lead time, remaining uncertainties, treatment notes, degraded experts."""
    def side(x: Mapping[str, Any]) -> str:
        return f"{x.get('position')} ({', '.join(x.get('experts') or []) or 'unnamed'})"
    return (
        section("Consensus", [f"{c.get('point')} (confidence {float(c.get('confidence', 0.5)):.2f})"
                              for c in s.get("consensus", [])]),
        section("Conflicts", [
            f"[{c.get('kind', 'soft')}; rule: {c.get('rule', 'none')}; treatment: {c.get('treatment', 'open')}] "
            f"{c.get('topic')}: " + " vs ".join(side(x) for x in c.get("sides") or [])
            + (f" -> {c.get('resolution')}" if c.get("resolution") else "") for c in s.get("conflicts", [])]),
        section("Conditional branches (keep these ids)", [
            f"{b.get('id') or '?'} {b.get('name', '')}: IF {b.get('condition')} THEN {b.get('description', '')} "
            f"({pct(b.get('probability_pct', 0))}; {', '.join(b.get('domains') or [])})"
            for b in s.get("branches", [])]),
        section("Decision rules", [
            f"{d.get('indicator')} {d.get('threshold', '')} -> {d.get('branch_id', '')}"
            + "".join(f"; {k}: {d[k]}" for k in ("action", "actor", "lead_time") if d.get(k))
            for d in s.get("decision_rules", [])]),
        section("Open uncertainties", [f"{u.get('description')} [watch: {u.get('indicator', '')}]"
                                       for u in s.get("uncertainties", [])]),
        section("Treatment notes", s.get("treatment_notes")),
        section("Degraded: no output from", s.get("degraded")),
    )


def synthesis_part(frame: Mapping[str, Any], name: str = "synthesis", title: str | None = None) -> Part:
    """Ψ of a frame (or a bare synthesis) as a part."""
    head = title if title is not None else f"Shared frame after round {frame.get('round', '?')}."
    return Part(name, (Section(head), *synthesis_sections(frame)), label="shared frame (Ψ)")


def debate_part(frame: Mapping[str, Any], name: str = "debate") -> Part:
    """D_r whole: every point with both positions and its crux, then the summary."""
    points = [f"{p.get('issue')}: pro — {p.get('pro') or '?'}; con — {p.get('con') or '?'}; "
              f"crux — {p.get('crux') or '?'}" for p in frame.get("debate_points", [])]
    summary = frame.get("debate_summary") or ""
    if not points and not summary:
        return Part(name, (), empty="", label="debate brief (D_r)")
    return Part(name, (section("Debate brief", points), section("Summary", [summary], bullets=False)),
                joiner="\n", label="debate brief (D_r)")


def frame_parts(frame: Mapping[str, Any]) -> dict[str, Part]:
    """F_r = Ψ ⊕ D_r as two parts (each trimmed in proportion, never one pushing the other out)."""
    return {"synthesis": synthesis_part(frame), "debate": debate_part(frame)}


def frame_text(frame: Mapping[str, Any]) -> str:
    """F_r whole, as text (the record's ``text``, the review page, exports)."""
    texts = [p.render()[0] for p in frame_parts(frame).values()]
    return "\n\n".join(t for t in texts if t)


def history_part(frames: Sequence[Mapping[str, Any]]) -> Part:
    """The frames of every round (A.5's joined round summaries), each Ψ then D_r."""
    sections: list[Section] = []
    for f in frames:
        sections += [Section(f"Shared frame after round {f.get('round', '?')}."), *synthesis_sections(f)]
        d = debate_part(f)
        sections += list(d.sections)
    return Part("frames", tuple(sections), empty="(none)", label="shared frames of the rounds")


def text_part(name: str, label: str, heading: str, text: str) -> Part:
    """A free text (a baseline's answer, a transcript turn) as a part, one paragraph per item, so the packer
    can shorten it in proportion like any list."""
    paragraphs = tuple(p for p in (text or "").split("\n\n") if p.strip())
    return Part(name, (Section(heading, paragraphs, bullets=False, sep="\n\n"),), label=label)
