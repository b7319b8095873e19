"""IF-World agents: prompt assembly and one model call each (through ``ifworld.llm`` by role).

Every role has one prompt file ``prompts/whatif/<role>.yaml``; all share the system text of
``prompts/whatif/common.yaml`` and put their role last (shared prefix first, see README "How prompts are laid
out"); the proposition is always delimited by ``<proposition>`` tags as user data. What an agent reads of the
run so far (the scenario, the experts' outputs, the frame, the history) goes in as named parts
(:mod:`ifworld.whatif.inputs`) that :func:`ifworld.llm.pack_messages` fits to the role's context window —
whole when they fit — and the call's record keeps the share of each that reached the prompt. Functions
return plain JSON-able dicts/strings so graph state stays checkpointable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from ifworld import llm, prompts
from ifworld.config import Settings
from ifworld.llm import Joined, Part, Section, Slot
from ifworld.runs.events import emit
from ifworld.whatif.experts import persona_text
from ifworld.whatif.frame import clip
from ifworld.whatif.inputs import (
    expert_part,
    experts_parts,
    frame_parts,
    history_part,
    scenario_part,
    synthesis_part,
    text_part,
)
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

REPORT_PARTS: dict[str, type] = {"core": ReportCore, "analysis": ReportAnalysis, "scenarios": ReportScenarios}
REPAIR_PARTS: dict[str, type] = {"scenarios": ReportScenarios, "analysis": CalibrationPart}
NO_OUTPUTS = "(no expert output available)"
_DELIM_RE = re.compile(r"<\s*/?\s*proposition\s*>", re.I)


def structured_call(role: str, messages: list[tuple[str, str]], schema: type[BaseModel], settings: Settings,
                    round_no: int | None, on_partial: Any = None, meta: dict[str, Any] | None = None,
                    variant: str = "") -> dict[str, Any]:
    """``llm.structured`` → JSON dict. The model layer keeps JSON tokens out of the "messages" stream (tag
    ``nostream``); ``on_partial`` gets the throttled partial object instead. ``variant`` names the kind of call
    on the wire when a role makes several (a report part)."""
    value = llm.structured(role, messages, schema, settings=settings, meta=meta or _meta(round_no),
                           on_partial=on_partial, variant=variant)
    return value.model_dump(mode="json")


def packed(role: str, template: str, settings: Settings, round_no: int | None, parts: dict[str, Slot],
           user: str = "user", schema: type[BaseModel] | None = None,
           **fixed: Any) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """``template``'s messages with ``parts`` fitted to ``role``'s window (``schema``: a structured reply's, which
    the model layer shows in the prompt), and the call's meta carrying what share of each part reached it."""
    msgs, report = llm.pack_messages(role, template, settings, parts, fixed, user, schema=schema)
    return msgs, {**_meta(round_no), "inputs": report.record()}


def outputs_slot(outputs: dict[str, dict]) -> Joined:
    """Every expert's whole structured output, joined by ``---`` as A.4 joins them."""
    return Joined(tuple(experts_parts(outputs).values()), empty=NO_OUTPUTS)


def proposition_block(proposition: str, language: str = "auto") -> str:
    """The proposition wrapped as data (delimiter look-alikes inside it neutralised), followed by the answer
    language when the run names one. The rule that uses it is stated once, in the shared system text, for
    every method alike."""
    block = prompts.render("whatif/common", "wrap_proposition",
                           proposition=_DELIM_RE.sub("[tag removed]", proposition))
    if language and language != "auto":
        block += "\n" + prompts.render("whatif/common", "answer_language", language=clip(language, 40))
    return block


def _meta(round_no: int | None) -> dict[str, Any]:
    return {"round": round_no, "system": "whatif"}


def refine(proposition: str, experts: list[str], settings: Settings, language: str = "auto") -> dict[str, Any]:
    msgs = prompts.messages("whatif/refiner", proposition_block=proposition_block(proposition, language),
                            experts=", ".join(experts))
    return structured_call("whatif.refiner", msgs, Scenario, settings, 0)


def expert(domain: str, round_no: int, proposition: str, scenario: dict | None, settings: Settings, *,
           frame: dict | None = None, own_previous: dict | None = None, memory: bool = False,
           language: str = "auto", persona: dict[str, str] | None = None, room: str = "") -> dict[str, Any]:
    """One expert's structured output (A.3). Round 1 is independent; later rounds read the whole shared frame
    F_r = Ψ ⊕ D_r (``frame``: the frame record), or nothing more than round 1 did when the frame is ablated.
    ``room``: the room's fenced contributions (:func:`~ifworld.whatif.room.room_block`), placed after the frame
    by the prompt file. ``persona``: the run's recorded entry for this domain. ``memory`` (the ``expert_memory``
    option, ours) adds the expert's own previous output (``own_previous``; None when it failed) at the end."""
    parts: dict[str, Slot] = {"scenario": scenario_part(scenario)}
    fixed: dict[str, Any] = {"proposition_block": proposition_block(proposition, language), "round": round_no,
                             "domain": domain, "persona": persona_text(persona, domain)}
    if memory and round_no > 1:
        parts["memory"] = _memory_part(own_previous, round_no - 1)
    else:
        fixed["memory"] = ""
    user = "user"
    if round_no > 1 and frame is not None:
        user = "user_refine"
        parts.update(frame_parts(frame))
        fixed["room"] = room
    elif round_no > 1:
        user = "user_solo"
    msgs, meta = packed("whatif.expert", "whatif/expert", settings, round_no, parts, user, ExpertOutput, **fixed)

    def partial(value: dict) -> None:  # the page shows the expert's text growing while the call streams
        emit("expert_partial", node="expert", domain=domain, round=round_no, partial=value)

    out = structured_call("whatif.expert", msgs, ExpertOutput, settings, round_no, on_partial=partial, meta=meta)
    out["domain"] = domain
    return out


def _memory_part(previous: dict | None, previous_round: int) -> Part:
    heading = f"Your own analysis of round {previous_round}"
    if previous is None:
        return text_part("memory", "own previous output", heading, "(your previous attempt failed)")
    part = expert_part(str(previous.get("domain") or "you"), previous, "memory")
    return Part(part.name, (Section(heading + ":"), *part.sections[1:]), joiner=part.joiner,
                label="own previous output")


def resolve(round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict], failed: list[str],
            settings: Settings, language: str = "auto", room: str = "") -> dict[str, Any]:
    """The conflict resolver's synthesis Ψ over every expert's whole structured output (A.4), then the room's
    fenced contributions (``room``: :func:`~ifworld.whatif.room.room_block`, bounded where they enter)."""
    msgs, meta = packed("whatif.resolver", "whatif/resolver", settings, round_no,
                        {"scenario": scenario_part(scenario), "outputs": outputs_slot(outputs)}, schema=Synthesis,
                        proposition_block=proposition_block(proposition, language), round=round_no, room=room,
                        failed=", ".join(failed) or "none")
    return structured_call("whatif.resolver", msgs, Synthesis, settings, round_no, meta=meta)


def debate_side(side: str, round_no: int, proposition: str, scenario: dict | None, outputs: dict[str, dict],
                settings: Settings, language: str = "auto") -> str:
    """A concise Pro (``side="pro"``) or Con argument over the round's whole expert outputs, as text."""
    role = f"whatif.debate.{side}"
    msgs, meta = packed(role, "whatif/debate_side", settings, round_no,
                        {"scenario": scenario_part(scenario), "outputs": outputs_slot(outputs)},
                        proposition_block=proposition_block(proposition, language), round=round_no, history="",
                        side=side, side_title=side.upper(),
                        duties=prompts.render("whatif/debate_side", f"duties_{side}"))
    return llm.complete(role, msgs, settings=settings, meta=meta)


def debate_judge(round_no: int, proposition: str, pro: str, con: str, settings: Settings,
                 language: str = "auto") -> dict[str, Any]:
    """The debate brief D_r from both sides' whole arguments."""
    msgs, meta = packed("whatif.debate.judge", "whatif/debate_judge", settings, round_no,
                        {"pro": text_slot("pro", "Pro argument", pro), "con": text_slot("con", "Con argument", con)},
                        schema=DebateBrief, proposition_block=proposition_block(proposition, language))
    return structured_call("whatif.debate.judge", msgs, DebateBrief, settings, round_no, meta=meta)


def text_slot(name: str, label: str, text: str) -> Part:
    """A free text (an argument, an answer, a transcript) as one part the packer can shorten in proportion."""
    return text_part(name, label, "", text)


def report_part(part: str, proposition: str, scenario: dict | None, frames: list[dict], outputs: dict[str, dict],
                settings: Settings, round_no: int, final_synthesis: dict | None = None,
                language: str = "auto", room: str = "") -> dict[str, Any]:
    """One part (core / analysis / scenarios) of the final report, written over the whole history (A.5): the
    scenario, the frames of every round, the final synthesis Ψ (its branch ids and probabilities are the
    structure every part shares) and the final round's whole expert outputs, whose numbers its tables take."""
    final = synthesis_part(final_synthesis or {}, "final_synthesis",
                           "Final adjudicated synthesis (keep its branch ids and probabilities; the timeline and "
                           "decision table refer to branches by id):") if final_synthesis else \
        Part("final_synthesis", (), empty="(no final synthesis)", label="final synthesis (Ψ)")
    msgs, meta = packed("whatif.report", "whatif/report", settings, round_no,
                        {"scenario": scenario_part(scenario), "frames": history_part(frames),
                         "final_synthesis": final, "outputs": outputs_slot(outputs)}, schema=REPORT_PARTS[part],
                        proposition_block=proposition_block(proposition, language), room=room, part=part,
                        part_instructions=prompts.render("whatif/report", f"part_{part}"))
    return structured_call("whatif.report", msgs, REPORT_PARTS[part], settings, round_no, meta=meta, variant=part)


def repair_part(part: str, proposition: str, current: dict[str, Any], violations: list[str], settings: Settings,
                round_no: int, language: str = "auto") -> dict[str, Any]:
    """The one targeted repair turn: the part at fault, its whole current JSON and the violations to fix."""
    msgs = prompts.messages("whatif/repair", proposition_block=proposition_block(proposition, language), part=part,
                            current=json.dumps(current, ensure_ascii=False, indent=1),
                            violations="\n".join(f"- {v}" for v in violations))
    return structured_call("whatif.repair", msgs, REPAIR_PARTS[part], settings, round_no, variant=part)


def answer(role: str, prompt: str, settings: Settings, round_no: int | None = None, *, user: str = "user",
           call_variant: str = "", **values: Any) -> str:
    """A baseline's natural output (its own words and structure, not IF-World's report schema), so the
    judge scores what each method really produces; ``prompt`` names its file under prompts/."""
    msgs = prompts.messages(prompt, user, **values)
    return llm.complete(role, msgs, settings=settings, meta=_meta(round_no), variant=call_variant)


def answer_packed(role: str, prompt: str, settings: Settings, round_no: int | None, parts: dict[str, Slot], *,
                  user: str = "user", call_variant: str = "", **values: Any) -> str:
    """:func:`answer` whose named ``parts`` (a transcript, a candidate) are fitted to the role's window.
    ``call_variant`` names the kind of call on the wire when a role makes several (the debate judge's
    ``synthesis``)."""
    msgs, meta = packed(role, prompt, settings, round_no, parts, user, **values)
    return llm.complete(role, msgs, settings=settings, meta=meta, variant=call_variant)
