"""Baselines with the same model and matched budget knobs: single agent, tree search, Pro/Con debate.

Each is a LangGraph ``StateGraph`` like the IF-World pipeline and ends in the same record shape, but its
report is the method's *natural* output, as the paper judges it: the single agent's direct answer, the
tree's best path (root to best leaf), the debate judge's synthesis — never forced into IF-World's schema.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Send

from ifworld import prompts
from ifworld.config import Settings
from ifworld.llm import LLMError
from ifworld.runs.events import emit
from ifworld.whatif import agents
from ifworld.whatif.graph import cache_policy
from ifworld.whatif.params import make_record
from ifworld.whatif.report import natural_report
from ifworld.whatif.schemas import Critique

PARENT_MAX_CHARS = 3_000
CANDIDATE_MAX_CHARS = 4_000
TRANSCRIPT_MAX_CHARS = 8_000
TREE_ANGLES = (
    "onset is much faster than the draft assumed", "onset is gradual over decades",
    "substitution and adaptation are stronger than assumed", "institutions are weaker and slower than assumed",
    "resource constraints (energy, water, materials) bind harder",
    "a technological breakthrough eases the main bottleneck",
)


class BaselineState(TypedDict, total=False):
    proposition: str
    params: dict
    scenario: dict | None
    report: dict
    nodes: Annotated[list[dict], operator.add]
    best: str
    depth: int
    round: int
    debates: Annotated[list[dict], operator.add]
    degraded: Annotated[list[str], operator.add]


class BranchTask(TypedDict):
    """What one tree branch is sent: its parent node, depth, index and angle."""

    parent: dict[str, Any]
    depth: int
    b: int
    proposition: str
    angle: str


def initial(params: dict[str, Any]) -> dict[str, Any]:
    return {"proposition": params["proposition"], "params": params, "scenario": None, "nodes": [], "best": "0",
            "depth": 0, "round": 1, "debates": [], "degraded": []}


def _policy(params: dict) -> CachePolicy | None:
    return cache_policy(params)


def _fail(what: str, exc: Exception) -> RuntimeError:
    return RuntimeError(f"{what} failed: {exc}")


# -- single ---------------------------------------------------------------------------------------------
def build_single(params: dict[str, Any], settings: Settings) -> StateGraph:
    def single(state: BaselineState) -> dict:
        emit("phase", node="single", phase="report", round=1)
        try:
            text = agents.answer("whatif.single", "whatif/single", settings, 1,
                                 proposition_block=agents.proposition_block(state["proposition"]))
        except LLMError as exc:
            raise _fail("the single agent", exc) from exc
        emit("report_done", node="single", round=1)
        return {"report": natural_report(text, state["proposition"], [])}

    g = StateGraph(BaselineState)
    g.add_node("single", single, cache_policy=_policy(params))
    g.add_edge(START, "single")
    g.add_edge("single", END)
    return g


def finalize_single(state: dict, params: dict, calls: list[dict]) -> dict[str, Any]:
    return make_record("single", state, params, calls, rounds=[], report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=[])


# -- tree -----------------------------------------------------------------------------------------------
def _critic(proposition: str, text: str, settings: Settings, depth: int) -> dict:
    msgs = prompts.messages("whatif/tree_critic", proposition_block=agents.proposition_block(proposition),
                            candidate=text[:CANDIDATE_MAX_CHARS])
    return agents.structured_call("whatif.tree.critic", msgs, Critique, settings, depth)


def build_tree(params: dict[str, Any], settings: Settings) -> StateGraph:
    breadth, max_depth = int(params.get("breadth", 3)), int(params.get("depth", 2))

    def draft(state: BaselineState) -> dict:
        emit("phase", node="draft", phase="experts", round=0)
        try:
            text = agents.answer("whatif.tree.draft", "whatif/tree_draft", settings, 0,
                                 proposition_block=agents.proposition_block(state["proposition"]))
            crit = _critic(state["proposition"], text, settings, 0)
        except LLMError as exc:
            raise _fail("the tree draft", exc) from exc
        node = {"id": "0", "parent": None, "depth": 0, "angle": "draft", "text": text, **crit}
        return {"nodes": [node], "best": "0", "depth": 1}

    def fan_out(state: BaselineState) -> list[Send]:
        parent = next(n for n in state["nodes"] if n["id"] == state["best"])
        d = state["depth"]
        return [Send("expand", {"parent": parent, "depth": d, "b": b, "proposition": state["proposition"],
                                "angle": TREE_ANGLES[((d - 1) * breadth + b) % len(TREE_ANGLES)]})
                for b in range(breadth)]

    def expand(state: BranchTask) -> dict[str, Any]:
        parent, d, b = state["parent"], state["depth"], state["b"]
        emit("expert_started", node="expand", domain=f"branch {b + 1}", round=d)
        try:
            text = agents.answer("whatif.tree.expand", "whatif/tree_expand", settings, d,
                                 proposition_block=agents.proposition_block(state["proposition"]),
                                 parent=parent["text"][:PARENT_MAX_CHARS], angle=state["angle"])
            crit = _critic(state["proposition"], text, settings, d)
        except LLMError as exc:
            emit("expert_failed", node="expand", domain=f"branch {b + 1}", round=d, error=str(exc))
            return {"degraded": [f"depth {d}: branch {b + 1} failed ({exc})"]}
        emit("baseline_step_done", node="expand", domain=f"branch {b + 1}", round=d, text=text)
        node = {"id": f"{parent['id']}.{b + 1}", "parent": parent["id"], "depth": d, "angle": state["angle"],
                "text": text, **crit}
        return {"nodes": [node]}

    def select(state: BaselineState) -> dict:
        d = state["depth"]
        parent = next(n for n in state["nodes"] if n["id"] == state["best"])
        children = [n for n in state["nodes"] if n["depth"] == d and n["parent"] == parent["id"]]
        best = max(children, key=lambda n: n["score"], default=None)
        emit("round_done", node="select", round=d)
        if best is None or best["score"] < parent["score"]:
            return {"depth": max_depth + 1}  # no child beats its parent: stop, keep the parent
        return {"best": best["id"], "depth": d + 1}

    def finish(state: BaselineState) -> dict:
        emit("report_done", node="finish", round=state["depth"])
        text = best_path_text(state["nodes"], state["best"])
        return {"report": natural_report(text, state["proposition"], list(state.get("degraded", [])))}

    policy = _policy(params)
    g = StateGraph(BaselineState)
    g.add_node("draft", draft, cache_policy=policy)
    g.add_node("expand", expand, cache_policy=policy)
    g.add_node("select", select)
    g.add_node("finish", finish)
    g.add_edge(START, "draft")
    g.add_conditional_edges("draft", fan_out, ["expand"])
    g.add_edge("expand", "select")
    g.add_conditional_edges("select", lambda s: fan_out(s) if s["depth"] <= max_depth else "finish",
                            ["expand", "finish"])
    g.add_edge("finish", END)
    return g


def best_path(nodes: list[dict], best: str) -> list[str]:
    by_id = {n["id"]: n for n in nodes}
    path, cur = [], by_id.get(best)
    while cur:
        path.append(cur["id"])
        cur = by_id.get(cur["parent"]) if cur["parent"] else None
    return list(reversed(path))


def best_path_text(nodes: list[dict], best: str) -> str:
    """The tree's natural output: every answer on the path from the root to the best node, in order."""
    by_id = {n["id"]: n for n in nodes}
    steps = [by_id[i] for i in best_path(nodes, best)]
    return "\n\n".join(f"## Step {k}: {'first answer' if n['angle'] == 'draft' else 'assuming ' + n['angle']} "
                        f"(critic score {n['score']:g}/10)\n\n{n['text'].strip()}" for k, n in enumerate(steps, 1))


def finalize_tree(state: dict, params: dict, calls: list[dict]) -> dict[str, Any]:
    nodes = [{k: v for k, v in n.items() if k != "text"} | {"excerpt": n["text"][:200]}
             for n in sorted(state.get("nodes", []), key=lambda n: n["id"])]
    return make_record("tree", state, params, calls, rounds=[], report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=[], tree=nodes,
                       best_path=best_path(state.get("nodes", []), state.get("best", "0")))


# -- debate ---------------------------------------------------------------------------------------------
def _transcript(debates: list[dict], limit: int = TRANSCRIPT_MAX_CHARS) -> str:
    lines = [f"Round {d['round']} {d['side'].upper()}: {d.get('text', '')}" for d in
             sorted(debates, key=lambda d: (d["round"], d["side"] != "pro"))]
    text = "\n\n".join(lines)
    return text[-limit:]


def build_debate(params: dict[str, Any], settings: Settings) -> StateGraph:
    rounds = int(params.get("debate_rounds", params.get("rounds", 2)))

    def side(name: str):  # noqa: ANN202
        def node(state: BaselineState) -> dict:
            r = state["round"]
            emit("expert_started", node=f"debate_{name}", domain=name, round=r)
            try:
                text = agents.debate_side(name, r, state["proposition"], None, {}, settings,
                                          history=_transcript(state.get("debates", [])))
            except LLMError as exc:
                emit("expert_failed", node=f"debate_{name}", domain=name, round=r, error=str(exc))
                return {"debates": [{"round": r, "side": name, "text": "", "error": str(exc)}],
                        "degraded": [f"round {r}: debate {name} failed ({exc})"]}
            emit("baseline_step_done", node=f"debate_{name}", domain=name, round=r, text=text)
            return {"debates": [{"round": r, "side": name, "text": text}]}
        return node

    def turn(state: BaselineState) -> dict:
        emit("round_done", node="turn", round=state["round"])
        return {"round": state["round"] + 1}

    def synthesis(state: BaselineState) -> dict:
        emit("phase", node="synthesis", phase="report", round=rounds)
        try:
            text = agents.answer("whatif.debate.judge", "whatif/debate_judge", settings, rounds,
                                 user="user_synthesis",
                                 proposition_block=agents.proposition_block(state["proposition"]),
                                 transcript=_transcript(state.get("debates", [])))
        except LLMError as exc:
            raise _fail("the debate judge synthesis", exc) from exc
        emit("report_done", node="synthesis", round=rounds)
        return {"report": natural_report(text, state["proposition"], list(state.get("degraded", [])))}

    policy = _policy(params)
    g = StateGraph(BaselineState)
    g.add_node("debate_pro", side("pro"), cache_policy=policy)
    g.add_node("debate_con", side("con"), cache_policy=policy)
    g.add_node("turn", turn)
    g.add_node("synthesis", synthesis, cache_policy=policy)
    g.add_edge(START, "debate_pro")
    g.add_edge(START, "debate_con")
    g.add_edge(["debate_pro", "debate_con"], "turn")
    g.add_conditional_edges("turn", lambda s: ["debate_pro", "debate_con"] if s["round"] <= rounds else ["synthesis"],
                            ["debate_pro", "debate_con", "synthesis"])
    g.add_edge("synthesis", END)
    return g


def finalize_debate(state: dict, params: dict, calls: list[dict]) -> dict[str, Any]:
    rounds = []
    for r in sorted({d["round"] for d in state.get("debates", [])}):
        sides = {d["side"]: d.get("text", "") for d in state["debates"] if d["round"] == r}
        rounds.append({"round": r, "experts": {}, "failed": {}, "frame": None,
                       "debate": {"pro": sides.get("pro", ""), "con": sides.get("con", ""), "brief": None}})
    return make_record("debate", state, params, calls, rounds=rounds, report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=[])
