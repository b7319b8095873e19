"""The IF-World pipeline as a LangGraph ``StateGraph``.

refine → [experts of round r, fanned out with Send] → collect →
    not last round: resolver ∥ (debate pro ∥ con → judge) → frame F_r → next round
    last round:     (final resolver → scenarios part) ∥ report parts (core ∥ analysis) → assemble
                    (merge, deterministic consistency check, one targeted repair turn, render)
Ablation switches remove nodes from the graph. State is plain JSON so the SQLite checkpointer can resume a
run: finished experts of an interrupted round are not re-run.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import operator
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, NotRequired, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Send, interrupt

from ifworld.config import Settings
from ifworld.errors import StepFailed
from ifworld.llm import LLMError
from ifworld.runs.events import emit
from ifworld.whatif import agents, review
from ifworld.whatif.experts import MAX_EXPERTS, normalize_experts, personas_for
from ifworld.whatif.frame import build_frame, frame_diff
from ifworld.whatif.params import make_record
from ifworld.whatif.report import FALLBACK_NOTES, assemble_report, fallback_part, finish_report
from ifworld.whatif.room import as_room, room_block, room_line
from ifworld.whatif.schemas import numbered_variants

MAX_REFINER_ADDITIONS = 2
REPORT_NODES = ("report_core", "report_analysis", "report_scenarios")


class WhatIfState(TypedDict, total=False):
    proposition: str
    params: dict
    scenario: dict | None
    panel: list[str]
    round: int
    outputs: Annotated[list[dict], operator.add]
    syntheses: Annotated[list[dict], operator.add]
    debates: Annotated[list[dict], operator.add]
    briefs: Annotated[list[dict], operator.add]
    frames: Annotated[list[dict], operator.add]
    report_parts: Annotated[list[dict], operator.add]
    report: dict
    degraded: Annotated[list[str], operator.add]
    participants: Annotated[list[dict], operator.add]
    review_notes: Annotated[list[str], operator.add]
    review_edits: Annotated[list[dict], operator.add]
    personas: dict[str, dict[str, str]]  # of experts added at review (the params hold the panel's at start)


class ExpertTask(TypedDict):
    """What one expert's call is sent: its domain and round, the proposition, scenario and shared frame."""

    domain: str
    round: int
    proposition: str
    scenario: dict[str, Any] | None
    frame: dict[str, Any] | None
    memory: NotRequired[bool]
    own_previous: NotRequired[dict[str, Any] | None]
    room: NotRequired[str]
    persona: NotRequired[dict[str, str] | None]


def initial(params: dict[str, Any]) -> dict[str, Any]:
    return {"proposition": params["proposition"], "params": params, "scenario": None,
            "panel": list(params["experts"]), "round": 1, "outputs": [], "syntheses": [], "debates": [],
            "briefs": [], "frames": [], "report_parts": [], "degraded": [], "participants": [], "review_notes": [],
            "review_edits": []}


def round_outputs(state: Mapping[str, Any], r: int) -> tuple[dict[str, dict], dict[str, str]]:
    """(outputs by domain, errors by domain) of round ``r``, in panel order."""
    ok: dict[str, dict] = {}
    failed: dict[str, str] = {}
    for item in state.get("outputs", []):
        if item["round"] == r:
            if "output" in item:
                ok[item["domain"]] = item["output"]
                failed.pop(item["domain"], None)
            elif item["domain"] not in ok:
                failed[item["domain"]] = item["error"]
    order = {d: i for i, d in enumerate(state.get("panel", []))}
    return (dict(sorted(ok.items(), key=lambda kv: order.get(kv[0], 99))),
            dict(sorted(failed.items(), key=lambda kv: order.get(kv[0], 99))))


def room_of(state: Mapping[str, Any], up_to_round: int) -> str:
    """The room's contributions made before round ``up_to_round``, fenced and escaped for a prompt
    (:func:`~ifworld.whatif.room.room_block`; empty when there are none). The resolver and the report writers
    get it whole, after the experts' outputs: it is never cut by a per-expert budget."""
    return room_block([as_room(p) for p in state.get("participants", []) if p["round"] <= up_to_round])


def _of_round(items: list[dict], r: int, key: str) -> Any:
    return next((i.get(key) for i in reversed(items or []) if i["round"] == r), None)


def extend_panel(panel: list[str], plan: list[str]) -> tuple[list[str], list[str]]:
    """(the user's panel plus at most :data:`MAX_REFINER_ADDITIONS` domains from the refiner's plan, the
    added ones). The refiner may add experts; it never removes one the user chose."""
    try:
        planned = normalize_experts([p for p in plan if str(p).strip()] or panel)
    except ValueError:  # an unusable name in the plan: keep the user's panel as it is
        return list(panel), []
    added = [d for d in planned if d not in panel][:max(0, min(MAX_REFINER_ADDITIONS, MAX_EXPERTS - len(panel)))]
    return [*panel, *added], added


def without(params: Mapping[str, Any], switch: str) -> bool:
    """Whether ``switch`` (``no_conflict`` / ``no_debate``) is in effect. "w/o shared frame" (Table 3) removes
    the frame F_r = Ψ ⊕ D_r itself, so it removes both of its makers: no resolver and no debate in any round."""
    return bool(params.get(switch) or params.get("no_shared_frame"))


def suggested_experts(panel: list[str], plan: list[str] | None) -> list[str]:
    """Domains of the refiner's plan that are not on the panel: offered at review, never added by themselves
    (unless the ``extend_panel`` option is on)."""
    return extend_panel(panel, list(plan or []))[1]


class _Nodes:
    """Node functions bound to one run's params and settings."""

    def __init__(self, params: dict[str, Any], settings: Settings) -> None:
        self.p, self.s = params, settings
        self.last = int(params["rounds"])
        self.no_conflict, self.no_debate = without(params, "no_conflict"), without(params, "no_debate")
        self.lang = str(params.get("language") or "auto")

    def refine(self, state: WhatIfState) -> dict:
        emit("phase", node="refine", phase="refine", round=0)
        try:
            scenario = agents.refine(state["proposition"], state["panel"], self.s, self.lang)
        except LLMError as exc:
            raise StepFailed(f"the problem refiner failed: {exc}") from exc
        if self.p.get("language", "auto") != "auto":  # the user's choice overrides the proposition's language
            scenario["language"] = self.p["language"]
        if not self.p.get("extend_panel"):  # the paper's panel: exactly the experts asked for (Table 3's "two")
            return {"scenario": scenario}
        panel, added = extend_panel(state["panel"], scenario.get("expert_plan", []))
        if added:
            emit("phase", node="refine", phase="panel", round=0, part=", ".join(added))
        return {"scenario": scenario, "panel": panel, **({"personas": personas_for(added)} if added else {})}

    def review(self, state: WhatIfState) -> dict:
        """Pause after the refiner so the user can edit the scenario and the panel (no model call here:
        LangGraph re-runs an interrupted node from its start on resume)."""
        def apply(answer: Any) -> dict:
            scenario, panel, edits = review.apply_review(state.get("scenario"), state["panel"], answer)
            known = {**(self.p.get("personas") or {}), **(state.get("personas") or {})}
            added = [d for d in panel if d not in known]
            return {"scenario": scenario, "panel": panel, "review_edits": edits,
                    "review_notes": review.edit_notes(edits),
                    **({"personas": {**(state.get("personas") or {}), **personas_for(added)}} if added else {})}
        ask = review.review_ask(state.get("scenario"), state["panel"])
        ask["suggested_experts"] = suggested_experts(state["panel"], (state.get("scenario") or {}).get("expert_plan"))
        return review.ask_until_valid(ask, apply, interrupt)

    def facilitate(self, state: WhatIfState) -> dict:
        """Pause between rounds for workshop participants' contributions (``round`` is already the next one)."""
        done = state["round"] - 1
        frame = _of_round(state.get("frames", []), done, "frame") or {}

        def apply(answer: Any) -> dict:
            items = review.participant_contributions(done, answer)
            return {"participants": items} if items else {}
        return review.ask_until_valid(review.between_rounds_ask(done, frame.get("text", "")), apply, interrupt)

    def start_round(self, state: WhatIfState) -> dict:
        emit("phase", node="start_round", phase="experts", round=state["round"])
        return {}

    def fan_out(self, state: WhatIfState) -> list[Send]:
        r = state["round"]
        frame = None
        if r > 1 and not self.p.get("no_shared_frame"):
            frame = _of_round(state.get("frames", []), r - 1, "frame") or None
        # the room's contributions to this round, fenced as data; the prompt file places them (after the frame)
        room = room_block([as_room(p) for p in state.get("participants", []) if p["round"] == r]) \
            if frame is not None else ""
        personas = {**(self.p.get("personas") or {}), **(state.get("personas") or {})}
        prev_ok, _ = round_outputs(state, r - 1) if r > 1 else ({}, {})
        memory = bool(r > 1 and self.p.get("expert_memory"))  # our option; A.3 gives round 2+ the frame only
        sends = []
        for d in state["panel"]:
            sends.append(Send("expert", {"domain": d, "round": r, "proposition": state["proposition"],
                                         "scenario": state.get("scenario"), "frame": frame, "memory": memory,
                                         "own_previous": prev_ok.get(d) if memory else None,
                                         "room": room, "persona": personas.get(d)}))
        return sends

    def expert(self, state: ExpertTask) -> dict[str, Any]:
        d, r = state["domain"], state["round"]
        emit("expert_started", node="expert", domain=d, round=r)
        try:
            out = agents.expert(d, r, state["proposition"], state["scenario"], self.s, frame=state["frame"],
                                own_previous=state.get("own_previous"), memory=bool(state.get("memory")),
                                language=self.lang,
                                persona=state.get("persona"), room=state.get("room") or "")
        except LLMError as exc:
            emit("expert_failed", node="expert", domain=d, round=r, error=str(exc))
            return {"outputs": [{"round": r, "domain": d, "error": str(exc)}],
                    "degraded": [f"round {r}: {d} expert failed ({exc})"]}
        emit("expert_done", node="expert", domain=d, round=r, output=out)
        return {"outputs": [{"round": r, "domain": d, "output": out}]}

    def collect(self, state: WhatIfState) -> dict:
        r = state["round"]
        ok, failed = round_outputs(state, r)
        update: dict[str, list] = {}
        if not ok:
            # Raising alone would strand the run: a resume re-runs only this node, with the same failures in
            # its state. So every failed expert is asked once more here — on a resume, after an outage healed.
            update = self._retry_experts(state, failed)
            ok, failed = round_outputs({**state, "outputs": [*state.get("outputs", []), *update["outputs"]]}, r)
        emit("round_done", node="collect", round=r, ok=len(ok), failed=sorted(failed))
        if not ok:
            raise StepFailed(f"every expert failed in round {r}: " + "; ".join(failed.values())[:500])
        emit("phase", node="collect", phase="report" if r >= self.last else "synthesis", round=r)
        return update

    def _retry_experts(self, state: WhatIfState, failed: dict[str, str]) -> dict[str, list]:
        tasks = [send.arg for send in self.fan_out(state) if send.arg["domain"] in failed]
        workers = max(1, min(len(tasks), self.s.max_concurrency))
        with ThreadPoolExecutor(max_workers=workers) as pool:  # a copied context keeps stream writer + callbacks
            results = list(pool.map(lambda task: contextvars.copy_context().run(self.expert, task), tasks))
        return {key: [item for res in results for item in res.get(key, [])] for key in ("outputs", "degraded")}

    def route_after_collect(self, state: WhatIfState) -> list[str]:
        resolver = [] if self.no_conflict else ["resolve"]
        if state["round"] >= self.last:
            # every report writer reads the final synthesis Ψ (A.5: the whole history), so they follow the resolver
            return ["final_resolve"] if resolver else list(REPORT_NODES)
        debate = [] if self.no_debate else ["debate_pro", "debate_con"]
        return resolver + debate or ["frame"]

    def resolve(self, state: WhatIfState) -> dict:
        r = state["round"]
        ok, failed = round_outputs(state, r)
        try:
            syn = agents.resolve(r, state["proposition"], state.get("scenario"), ok, sorted(failed), self.s,
                                 self.lang, room=room_of(state, r))
        except LLMError as exc:
            raise StepFailed(f"the conflict resolver failed in round {r}: {exc}") from exc
        return {"syntheses": [{"round": r, "synthesis": syn}]}

    def debate(self, side: str):  # noqa: ANN201 — returns a node function
        def node(state: WhatIfState) -> dict:
            r = state["round"]
            ok, _ = round_outputs(state, r)
            try:
                text = agents.debate_side(side, r, state["proposition"], state.get("scenario"), ok, self.s,
                                          self.lang)
            except LLMError as exc:
                return {"debates": [{"round": r, "side": side, "text": "", "error": str(exc)}],
                        "degraded": [f"round {r}: debate {side} failed ({exc})"]}
            return {"debates": [{"round": r, "side": side, "text": text}]}
        return node

    def debate_judge(self, state: WhatIfState) -> dict:
        r = state["round"]
        sides = {d["side"]: d.get("text", "") for d in state.get("debates", []) if d["round"] == r}
        try:
            brief = agents.debate_judge(r, state["proposition"], sides.get("pro", ""), sides.get("con", ""), self.s,
                                        self.lang)
        except LLMError as exc:
            return {"degraded": [f"round {r}: debate judge failed ({exc})"]}
        return {"briefs": [{"round": r, "brief": brief}]}

    def _frame(self, state: WhatIfState, r: int) -> dict:
        ok, failed = round_outputs(state, r)
        frame = build_frame(r, _of_round(state.get("syntheses", []), r, "synthesis"),
                            _of_round(state.get("briefs", []), r, "brief"), list(failed))
        diff = frame_diff(_of_round(state.get("frames", []), r - 1, "frame"), frame, ok)
        emit("frame_built", node="frame", round=r, frame=frame, diff=diff)
        return {"round": r, "frame": frame, "diff": diff}

    def frame(self, state: WhatIfState) -> dict:
        return {"frames": [self._frame(state, state["round"])], "round": state["round"] + 1}

    def report_part(self, part: str):  # noqa: ANN201
        def node(state: WhatIfState) -> dict:
            r = state["round"]
            ok, _ = round_outputs(state, r)
            # w/o shared frame there is no frame to pass on (Table 3): the writers see the experts' outputs
            frames = [] if self.p.get("no_shared_frame") else [f["frame"] for f in state.get("frames", [])]
            final = _of_round(state.get("syntheses", []), r, "synthesis")
            try:
                data = agents.report_part(part, state["proposition"], state.get("scenario"), frames, ok, self.s, r,
                                          final_synthesis=final, language=self.lang,
                                          room=room_of(state, r + 1))  # every contribution so far, cited
            except LLMError as exc:
                if part == "core":  # the verdict and conclusions have no stand-in: the run stops (resumable)
                    raise StepFailed(f"the report writer ({part}) failed: {exc}") from exc
                # the other parts have honest stand-ins (the experts' own rows, the adjudicated branches)
                return {"report_parts": [{"part": part, "data": fallback_part(part, ok)}],
                        "degraded": [f"report {part} writer failed ({exc}); {FALLBACK_NOTES[part]}"]}
            return {"report_parts": [{"part": part, "data": data}]}
        return node

    def assemble(self, state: WhatIfState) -> dict:
        r = state["round"]
        entry = self._frame(state, r)
        ok, _ = round_outputs(state, r)
        parts = {p["part"]: p["data"] for p in state.get("report_parts", [])}
        edges = [e for o in ok.values() for e in o.get("key_causal_edges", [])]
        merged = assemble_report(parts, _of_round(state.get("syntheses", []), r, "synthesis"))
        merged["contributions"] = [room_line(as_room(p)) for p in state.get("participants", [])]
        merged["review_notes"] = list(state.get("review_notes", []))

        def repair(part: str, current: dict, violations: list[str]) -> dict:
            emit("phase", node="assemble", phase="repair", round=r, part=part, violations=violations)
            return agents.repair_part(part, state["proposition"], current, violations, self.s, r, self.lang)

        report = finish_report(merged, list(state.get("degraded", [])), edges, repair=repair,
                               proposition=state["proposition"],
                               variant_ids=[v.id for v in numbered_variants((state.get("scenario") or {})
                                                                            .get("variants"))])
        emit("report_done", node="assemble", round=r)
        return {"frames": [entry], "report": report}


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        if all(isinstance(v, dict) for v in items):  # accumulated lists: order of parallel writes is irrelevant
            items.sort(key=lambda v: json.dumps(v, sort_keys=True, default=str))
        return items
    return value


def cache_key(node_input: Any) -> str:
    """Order-insensitive cache key for a node input (parallel branches may append in any order)."""
    return hashlib.sha256(json.dumps(_canonical(node_input), sort_keys=True, default=str).encode()).hexdigest()


def cache_policy(params: dict[str, Any]) -> CachePolicy | None:
    return CachePolicy(key_func=cache_key) if params.get("cache") else None


def build(params: dict[str, Any], settings: Settings) -> StateGraph:
    """The IF-World graph for ``params`` (switches remove nodes; caching when ``params['cache']``)."""
    n = _Nodes(params, settings)
    policy = cache_policy(params)
    g = StateGraph(WhatIfState)
    g.add_node("start_round", n.start_round)
    g.add_node("expert", n.expert, cache_policy=policy)
    g.add_node("collect", n.collect)
    g.add_node("frame", n.frame)
    g.add_node("assemble", n.assemble)
    first = "start_round"
    if params.get("review"):
        g.add_node("review", n.review)
        g.add_edge("review", "start_round")
        first = "review"
    if params.get("no_refine"):
        g.add_edge(START, first)
    else:
        g.add_node("refine", n.refine, cache_policy=policy)
        g.add_edge(START, "refine")
        g.add_edge("refine", first)
    g.add_conditional_edges("start_round", n.fan_out, ["expert"])
    g.add_edge("expert", "collect")
    targets = ["frame", *REPORT_NODES]
    frame_sources, final_sources = [], list(REPORT_NODES)  # final_resolve feeds every report writer
    if not without(params, "no_conflict"):
        g.add_node("resolve", n.resolve, cache_policy=policy)
        g.add_node("final_resolve", n.resolve, cache_policy=policy)
        targets += ["resolve", "final_resolve"]
        frame_sources.append("resolve")
    if not without(params, "no_debate"):
        g.add_node("debate_pro", n.debate("pro"), cache_policy=policy)
        g.add_node("debate_con", n.debate("con"), cache_policy=policy)
        g.add_node("debate_judge", n.debate_judge, cache_policy=policy)
        g.add_edge(["debate_pro", "debate_con"], "debate_judge")
        targets += ["debate_pro", "debate_con"]
        frame_sources.append("debate_judge")
    for part in REPORT_NODES:
        g.add_node(part, n.report_part(part.removeprefix("report_")), cache_policy=policy)
    if not without(params, "no_conflict"):
        for part in REPORT_NODES:
            g.add_edge("final_resolve", part)
    g.add_conditional_edges("collect", n.route_after_collect, targets)
    if frame_sources:
        g.add_edge(frame_sources if len(frame_sources) > 1 else frame_sources[0], "frame")
    if params.get("pause_between_rounds"):
        g.add_node("facilitate", n.facilitate)
        g.add_edge("frame", "facilitate")
        g.add_edge("facilitate", "start_round")
    else:
        g.add_edge("frame", "start_round")
    g.add_edge(final_sources, "assemble")
    g.add_edge("assemble", END)
    return g


def round_records(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-round record entries: experts, failures, frame, debate."""
    last = max([o["round"] for o in state.get("outputs", [])] or [0])
    rounds = []
    for r in range(1, last + 1):
        ok, failed = round_outputs(state, r)
        sides = {d["side"]: d.get("text", "") for d in state.get("debates", []) if d["round"] == r}
        brief = _of_round(state.get("briefs", []), r, "brief")
        debate = {"pro": sides.get("pro", ""), "con": sides.get("con", ""), "brief": brief} if sides else None
        rounds.append({"round": r, "experts": ok, "failed": failed,
                       "frame": _of_round(state.get("frames", []), r, "frame"), "debate": debate,
                       "synthesis": _of_round(state.get("syntheses", []), r, "synthesis")})
    return rounds


def finalize(state: dict[str, Any], params: dict[str, Any], calls: list[dict]) -> dict[str, Any]:
    frames = sorted(state.get("frames", []), key=lambda f: f["round"])
    diffs = [{**f["diff"], "round": f["round"]} for f in frames]
    if state.get("personas"):  # experts added at review: their personas as the run used them
        params = {**params, "personas": {**(params.get("personas") or {}), **state["personas"]}}
    return make_record("ifworld", state, params, calls, rounds=round_records(state), report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=diffs, panel=state.get("panel", []),
                       participants=list(state.get("participants", [])),
                       review_notes=list(state.get("review_notes", [])),
                       review_edits=list(state.get("review_edits", [])))
