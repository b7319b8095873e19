"""IF-World agents: prompt assembly and one model call each (through ``ifworld.llm`` by role).

Every agent shares the system prefix in ``prompts/whatif/system.txt`` parameterised by its role and
duties; the proposition is always delimited by ``<proposition>`` tags as user data. Functions return plain
JSON-able dicts/strings so graph state stays checkpointable.
"""

from __future__ import annotations

import re
from typing import Any

from ifworld import llm
from ifworld.config import Settings
from ifworld.prompts import render
from ifworld.whatif.frame import clip, digests_text
from ifworld.whatif.schemas import (
    DebateBrief,
    ExpertOutput,
    Report,
    ReportAnalysis,
    ReportCore,
    ReportScenarios,
    Scenario,
    Synthesis,
)

SCENARIO_MAX_CHARS = 2_000
DEBATE_SIDE_MAX_CHARS = 2_500
REPORT_PARTS: dict[str, type] = {"core": ReportCore, "analysis": ReportAnalysis, "scenarios": ReportScenarios}
_DELIM_RE = re.compile(r"<\s*/?\s*proposition\s*>", re.I)


def proposition_block(proposition: str) -> str:
    """The proposition wrapped as data; delimiter look-alikes inside it are neutralised."""
    return render("whatif/proposition", proposition=_DELIM_RE.sub("[tag removed]", proposition))


def system(role: str, title: str, duties: str, **duty_vars: Any) -> str:
    """Shared system prefix for ``role`` plus that role's duties."""
    return render("whatif/system", role=role, role_title=title, duties=render(f"whatif/duties_{duties}", **duty_vars))


def scenario_text(scenario: dict | None) -> str:
    """Bounded plain-text rendering of the refined scenario (or a note when refinement is off)."""
    if not scenario:
        return "(no refined scenario: reason directly from the proposition)"
    ts = scenario.get("timescales") or {}
    lines = [f"Restated: {clip(scenario.get('restated'), 300)}"]
    lines += [f"Premise: {clip(p)}" for p in scenario.get("premises", [])[:5]]
    lines += [f"Held constant: {clip(c)}" for c in scenario.get("constants", [])[:4]]
    lines.append(f"Timescales: short={ts.get('short', '')}; medium={ts.get('medium', '')}; long={ts.get('long', '')}")
    lines += [f"Uncertainty: {clip(u)}" for u in scenario.get("key_uncertainties", [])[:4]]
    lines += [f"Variant {v.get('name')}: {clip(v.get('description'))}" for v in scenario.get("variants", [])[:3]]
    lines += [f"Indicator: {i.get('name')} [{i.get('unit', '')}] {i.get('threshold', '')}"
              for i in scenario.get("indicators", [])[:5]]
    return "\n".join(lines)[:SCENARIO_MAX_CHARS]


def _meta(round_no: int | None) -> dict[str, Any]:
    return {"round": round_no, "system": "whatif"}


def refine(proposition: str, experts: list[str], settings: Settings) -> dict[str, Any]:
    sys = system("whatif.refiner", "the problem refiner", "refiner")
    user = render("whatif/refiner", proposition_block=proposition_block(proposition), experts=", ".join(experts))
    return llm.structured("whatif.refiner", [("system", sys), ("user", user)], Scenario, settings=settings,
                          meta=_meta(0)).model_dump(mode="json")


def expert(domain: str, round_no: int, proposition: str, scenario: dict | None, settings: Settings, *,
           frame: str | None = None, own_digest: str | None = None) -> dict[str, Any]:
    """One expert's structured output; round 1 is independent, later rounds see the frame (or only
    their own digest when the shared frame is switched off)."""
    sys = system("whatif.expert", f"the {domain} expert on the panel", "expert", domain=domain)
    common = {"proposition_block": proposition_block(proposition), "scenario": scenario_text(scenario),
              "round": round_no}
    if own_digest is None:
        user = render("whatif/expert", domain=domain, **common)
    elif frame is not None:
        user = render("whatif/expert_refine", domain=domain, previous_round=round_no - 1, own_digest=own_digest,
                      frame=frame, **common)
    else:
        user = render("whatif/expert_solo", previous_round=round_no - 1, own_digest=own_digest, **common)
    out = llm.structured("whatif.expert", [("system", sys), ("user", user)], ExpertOutput, settings=settings,
                         meta=_meta(round_no)).model_dump(mode="json")
    out["domain"] = domain
    return out


def resolve(round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict], failed: list[str],
            settings: Settings) -> dict[str, Any]:
    sys = system("whatif.resolver", "the conflict resolver", "resolver")
    user = render("whatif/resolver", proposition_block=proposition_block(proposition),
                  scenario=scenario_text(scenario), round=round_no, digests=digests_text(outputs),
                  failed=", ".join(failed) or "none")
    return llm.structured("whatif.resolver", [("system", sys), ("user", user)], Synthesis, settings=settings,
                          meta=_meta(round_no)).model_dump(mode="json")


def debate_side(side: str, round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict],
                settings: Settings, history: str = "") -> str:
    """A concise Pro (``side="pro"``) or Con argument, as text."""
    role = f"whatif.debate.{side}"
    sys = system(role, f"the {side.upper()} debater", f"debate_{side}")
    user = render("whatif/debate_side", proposition_block=proposition_block(proposition),
                  scenario=scenario_text(scenario), round=round_no, digests=digests_text(outputs, 4_000),
                  history=f"Earlier exchange:\n{history}\n" if history else "")
    return llm.complete(role, [("system", sys), ("user", user)], settings=settings,
                        meta=_meta(round_no))[:DEBATE_SIDE_MAX_CHARS]


def debate_judge(round_no: int, proposition: str, pro: str, con: str, settings: Settings) -> dict[str, Any]:
    sys = system("whatif.debate.judge", "the debate judge", "debate_judge")
    user = render("whatif/debate_judge", proposition_block=proposition_block(proposition), pro=pro, con=con)
    return llm.structured("whatif.debate.judge", [("system", sys), ("user", user)], DebateBrief,
                          settings=settings, meta=_meta(round_no)).model_dump(mode="json")


def report_part(part: str, proposition: str, scenario: dict | None, frames: list[dict], outputs: dict[str, dict],
                degraded: list[str], settings: Settings, round_no: int) -> dict[str, Any]:
    """One part (core / analysis / scenarios) of the final report, written over the whole history."""
    sys = system("whatif.report", f"the report writer (Report part: {part})", "report", part=part)
    frames_txt = "\n\n".join(f["text"] for f in frames) or "(none: single round or shared frame disabled)"
    user = render("whatif/report", proposition_block=proposition_block(proposition),
                  scenario=scenario_text(scenario), frames=frames_txt, digests=digests_text(outputs),
                  degraded=", ".join(degraded) or "none", part=part,
                  part_instructions=render(f"whatif/report_part_{part}"))
    return llm.structured("whatif.report", [("system", sys), ("user", user)], REPORT_PARTS[part],
                          settings=settings, meta=_meta(round_no)).model_dump(mode="json")


def full_report(role: str, title: str, duties: str, user: str, settings: Settings, round_no: int | None = None,
                **duty_vars: Any) -> dict[str, Any]:
    """A complete :class:`Report` from one agent (baselines)."""
    sys = system(role, title, duties, **duty_vars)
    return llm.structured(role, [("system", sys), ("user", user)], Report, settings=settings,
                          meta=_meta(round_no)).model_dump(mode="json")
