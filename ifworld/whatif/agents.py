"""IF-World agents: prompt assembly and one model call each (through ``ifworld.llm`` by role).

Every role has one prompt file ``prompts/whatif/<role>.yaml``; all share the system text of
``prompts/whatif/common.yaml`` and put their role last (shared prefix first, see README "How prompts are laid
out"); the proposition is always delimited by ``<proposition>`` tags as user data. Functions return plain
JSON-able dicts/strings so graph state stays checkpointable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from ifworld import llm, prompts
from ifworld.config import Settings
from ifworld.runs.events import emit
from ifworld.whatif.experts import persona_text
from ifworld.whatif.frame import clip, digests_text, outputs_text
from ifworld.whatif.schemas import (
    CalibrationPart,
    DebateBrief,
    ExpertOutput,
    ReportAnalysis,
    ReportCore,
    ReportScenarios,
    Scenario,
    Synthesis,
)

SCENARIO_MAX_CHARS = 2_000
DEBATE_SIDE_MAX_CHARS = 2_500
REPORT_PARTS: dict[str, type] = {"core": ReportCore, "analysis": ReportAnalysis, "scenarios": ReportScenarios}
REPAIR_PARTS: dict[str, type] = {"scenarios": ReportScenarios, "analysis": CalibrationPart}
REPAIR_MAX_CHARS = 6_000
ANSWER_MAX_CHARS = 20_000
_DELIM_RE = re.compile(r"<\s*/?\s*proposition\s*>", re.I)


def structured_call(role: str, messages: list[tuple[str, str]], schema: type[BaseModel], settings: Settings,
                    round_no: int | None, on_partial: Any = None) -> dict[str, Any]:
    """``llm.structured`` → JSON dict. The model layer keeps JSON tokens out of the "messages" stream (tag
    ``nostream``); ``on_partial`` gets the throttled partial object instead."""
    value = llm.structured(role, messages, schema, settings=settings, meta=_meta(round_no), on_partial=on_partial)
    return value.model_dump(mode="json")


def proposition_block(proposition: str, language: str = "auto") -> str:
    """The proposition wrapped as data (delimiter look-alikes inside it neutralised), followed by the answer
    language when the run names one. The rule that uses it is stated once, in the shared system text, for
    every method alike."""
    block = prompts.render("whatif/common", "wrap_proposition",
                           proposition=_DELIM_RE.sub("[tag removed]", proposition))
    if language and language != "auto":
        block += "\n" + prompts.render("whatif/common", "answer_language", language=clip(language, 40))
    return block


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


def refine(proposition: str, experts: list[str], settings: Settings, language: str = "auto") -> dict[str, Any]:
    msgs = prompts.messages("whatif/refiner", proposition_block=proposition_block(proposition, language),
                            experts=", ".join(experts))
    return structured_call("whatif.refiner", msgs, Scenario, settings, 0)


def expert(domain: str, round_no: int, proposition: str, scenario: dict | None, settings: Settings, *,
           frame: str | None = None, own_digest: str | None = None, language: str = "auto",
           persona: dict[str, str] | None = None, room: str = "") -> dict[str, Any]:
    """One expert's structured output (A.3). Round 1 is independent; later rounds see the shared frame, or
    nothing more than round 1 did when the frame is ablated. ``room``: the room's fenced contributions
    (:func:`~ifworld.whatif.room.room_block`), placed after the frame by the prompt file. ``persona``: the
    run's recorded entry for this domain (:func:`~ifworld.whatif.experts.personas_for`; looked up now when
    absent). ``own_digest`` (the ``expert_memory`` option, ours) adds the expert's own previous output at the
    end."""
    memory = "" if own_digest is None else prompts.render(
        "whatif/expert", "memory_text", previous_round=round_no - 1, own_digest=own_digest)
    common: dict[str, Any] = {"proposition_block": proposition_block(proposition, language),
                              "scenario": scenario_text(scenario), "round": round_no, "domain": domain,
                              "persona": persona_text(persona, domain), "memory": memory}
    if round_no <= 1:
        msgs = prompts.messages("whatif/expert", **common)
    elif frame is not None:
        if room:
            frame = prompts.render("whatif/expert", "frame_and_room", frame=frame, room=room)
        msgs = prompts.messages("whatif/expert", "user_refine", frame=frame, **common)
    else:
        msgs = prompts.messages("whatif/expert", "user_solo", **common)
    def partial(value: dict) -> None:  # the page shows the expert's text growing while the call streams
        emit("expert_partial", node="expert", domain=domain, round=round_no, partial=value)

    out = structured_call("whatif.expert", msgs, ExpertOutput, settings, round_no, on_partial=partial)
    out["domain"] = domain
    return out


def resolve(round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict], failed: list[str],
            settings: Settings, language: str = "auto", room: str = "") -> dict[str, Any]:
    """The conflict resolver's synthesis Ψ over the experts' whole structured outputs (A.4), then the room's
    fenced contributions (``room``: :func:`~ifworld.whatif.room.room_block`, whole, outside any per-expert cut)."""
    msgs = prompts.messages("whatif/resolver", proposition_block=proposition_block(proposition, language),
                            scenario=scenario_text(scenario), round=round_no,
                            outputs=outputs_text(outputs) + (f"\n\n{room}" if room else ""),
                            failed=", ".join(failed) or "none")
    return structured_call("whatif.resolver", msgs, Synthesis, settings, round_no)


def debate_side(side: str, round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict],
                settings: Settings, language: str = "auto") -> str:
    """A concise Pro (``side="pro"``) or Con argument, as text."""
    role = f"whatif.debate.{side}"
    msgs = prompts.messages("whatif/debate_side", proposition_block=proposition_block(proposition, language),
                            scenario=scenario_text(scenario), round=round_no, digests=digests_text(outputs, 4_000),
                            history="", side=side,
                            side_title=side.upper(), duties=prompts.render("whatif/debate_side", f"duties_{side}"))
    return llm.complete(role, msgs, settings=settings, meta=_meta(round_no))[:DEBATE_SIDE_MAX_CHARS]


def debate_judge(round_no: int, proposition: str, pro: str, con: str, settings: Settings,
                 language: str = "auto") -> dict[str, Any]:
    msgs = prompts.messages("whatif/debate_judge", proposition_block=proposition_block(proposition, language),
                            pro=pro, con=con)
    return structured_call("whatif.debate.judge", msgs, DebateBrief, settings, round_no)


def branches_text(synthesis: dict | None) -> str:
    """The final adjudicated branches and rules, as the canonical structure the scenarios part must keep."""
    if not synthesis or not synthesis.get("branches"):
        return ""
    lines = ["Final adjudicated branches (keep these ids and probabilities; the timeline and decision table "
             "refer to branches by id):"]
    lines += [f"- {b.get('id') or '?'}: {clip(b.get('name') or b.get('description'), 80)} | IF "
              f"{clip(b.get('condition'), 160)} | {b.get('probability_pct', 0):g} %" for b in synthesis["branches"]]
    lines += [f"- rule: {clip(d.get('indicator'), 100)} {clip(d.get('threshold'), 60)} -> {d.get('branch_id')}"
              for d in synthesis.get("decision_rules", [])]
    return "\n".join(lines)


def report_part(part: str, proposition: str, scenario: dict | None, frames: list[dict], outputs: dict[str, dict],
                settings: Settings, round_no: int, final_synthesis: dict | None = None,
                language: str = "auto", room: str = "") -> dict[str, Any]:
    """One part (core / analysis / scenarios) of the final report, written over the whole history (A.5): the
    frames of the rounds and the final round's whole expert outputs, whose numbers its tables take; the
    scenarios part also gets the final synthesis' branches so every part shares one branch structure."""
    frames_txt = "\n\n".join(f["text"] for f in frames) or "(none)"
    if branches_text(final_synthesis):
        frames_txt += "\n\n" + branches_text(final_synthesis)
    msgs = prompts.messages("whatif/report", proposition_block=proposition_block(proposition, language),
                            scenario=scenario_text(scenario), frames=frames_txt,
                            outputs=outputs_text(outputs) + (f"\n\n{room}" if room else ""), part=part,
                            part_instructions=prompts.render("whatif/report", f"part_{part}"))
    return structured_call("whatif.report", msgs, REPORT_PARTS[part], settings, round_no)


def repair_part(part: str, proposition: str, current: dict[str, Any], violations: list[str], settings: Settings,
                round_no: int, language: str = "auto") -> dict[str, Any]:
    """The one targeted repair turn: the part at fault, its current JSON and the violations to fix."""
    msgs = prompts.messages("whatif/repair", proposition_block=proposition_block(proposition, language), part=part,
                            current=json.dumps(current, ensure_ascii=False)[:REPAIR_MAX_CHARS],
                            violations="\n".join(f"- {v}" for v in violations))
    return structured_call("whatif.repair", msgs, REPAIR_PARTS[part], settings, round_no)


def answer(role: str, prompt: str, settings: Settings, round_no: int | None = None, *, user: str = "user",
           **values: Any) -> str:
    """A baseline's natural output (its own words and structure, not IF-World's report schema), so the
    judge scores what each method really produces; ``prompt`` names its file under prompts/."""
    msgs = prompts.messages(prompt, user, **values)
    return llm.complete(role, msgs, settings=settings, meta=_meta(round_no))[:ANSWER_MAX_CHARS]
