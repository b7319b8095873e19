"""Baselines with the same model and matched budget knobs: single agent, tree search, Pro/Con debate.

Each is a LangGraph ``StateGraph`` like the IF-World pipeline and ends in the same record shape, but its
report is the method's *natural* output, as the paper judges it (Appendix B): the single agent's direct
answer; the tree search's best leaf — a draft, then per step ``breadth`` variants of the best leaf so far,
each scored 0–10 by a critic, and only the winning answer is output (no path, no scores); the debate's
Pro/Con rounds closed by a judge asked for conclusions with uncertainty, branches, a timeline and adaptation
notes — never forced into IF-World's schema.

With ``params["budget_tokens"]`` (the evaluation's matched budget, :mod:`ifworld.whatif.budget`) the tree
and the debate keep adding steps while another one brings their measured tokens closer to the target; the
record's ``budget`` says how close they came.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from ifworld import prompts
from ifworld.config import Settings
from ifworld.errors import StepFailed
from ifworld.llm import LLMError, Part, Section
from ifworld.runs.events import emit
from ifworld.whatif import agents, budget as budgets
from ifworld.whatif.graph import cache_policy
from ifworld.whatif.params import make_record
from ifworld.whatif.report import natural_report
from ifworld.whatif.schemas import Critique

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
    spent: dict[str, int]  # tokens per finished call of this run (budgeted runs), kept across resumes
    stop: bool  # the tree's or the debate's last step is done


class BranchTask(TypedDict):
    """What one tree branch is sent: its parent node, depth, index and (``tree_angles`` option) angle."""

    parent: dict[str, Any]
    depth: int
    b: int
    proposition: str
    angle: str


def initial(params: dict[str, Any]) -> dict[str, Any]:
    return {"proposition": params["proposition"], "params": params, "scenario": None, "nodes": [], "best": "0",
            "depth": 0, "round": 1, "debates": [], "degraded": [], "spent": {}}


def _fail(what: str, exc: Exception) -> StepFailed:
    """The run stops at this step (a RuntimeError too, as before); finished steps are kept, resume continues."""
    return StepFailed(f"{what} failed: {exc}")


# -- single ---------------------------------------------------------------------------------------------
def build_single(params: dict[str, Any], settings: Settings) -> StateGraph:
    def single(state: BaselineState) -> dict:
        emit("phase", node="single", phase="report", round=1)
        try:
            text = agents.answer("whatif.single", "whatif/single", settings, 1,
                                 proposition_block=agents.proposition_block(state["proposition"],
                                                                            str(params.get("language") or "auto")))
        except LLMError as exc:
            raise _fail("the single agent", exc) from exc
        emit("report_done", node="single", round=1)
        return {"report": natural_report(text, state["proposition"], [])}

    g = StateGraph(BaselineState)
    g.add_node("single", single, cache_policy=cache_policy(params))
    g.add_edge(START, "single")
    g.add_edge("single", END)
    return g


def finalize_single(state: dict, params: dict, calls: list[dict]) -> dict[str, Any]:
    return make_record("single", state, params, calls, rounds=[], report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=[])


# -- tree -----------------------------------------------------------------------------------------------
def _critic(proposition: str, text: str, settings: Settings, depth: int, language: str = "auto") -> dict:
    """B.3's scorer over the whole candidate (fitted to the critic's window by the packer)."""
    msgs, meta = agents.packed("whatif.tree.critic", "whatif/tree_critic", settings, depth,
                               {"candidate": agents.text_slot("candidate", "candidate answer", text)}, schema=Critique,
                               proposition_block=agents.proposition_block(proposition, language))
    return agents.structured_call("whatif.tree.critic", msgs, Critique, settings, depth, meta=meta)


def _more(method: str, state: BaselineState, params: dict[str, Any], steps: int, fixed: int,
          breadth: int = 1) -> tuple[bool, dict[str, int]]:
    """Whether the run takes another step: below its fixed size, or — with a token budget — while one more
    step brings its measured tokens closer to the budget (at least one step either way); and the tokens
    measured so far (kept in the state)."""
    target = params.get("budget_tokens")
    if not target:
        return steps < fixed, dict(state.get("spent") or {})
    spent = budgets.measured(state.get("spent"))
    go = steps < 1 or budgets.keep_going(method, sum(spent.values()), len(spent), steps, float(target), breadth)
    return go, spent


def best_leaf(nodes: list[dict]) -> dict | None:
    """The highest-scored answer that has not been expanded yet (ties: the deeper, then the earlier one)."""
    parents = {n["parent"] for n in nodes}
    leaves = [n for n in nodes if n["id"] not in parents]
    return max(leaves, key=lambda n: (n.get("score", 0), n["depth"], -nodes.index(n)), default=None)


def build_tree(params: dict[str, Any], settings: Settings) -> StateGraph:
    """Best-first tree search: each step expands the best-scored leaf so far into ``breadth`` variants (so
    the search can go back to an earlier branch when a line of variants scores worse); ``depth`` steps, or
    as many as the token budget buys."""
    breadth, steps = int(params.get("breadth", 3)), int(params.get("depth", 2))
    lang = str(params.get("language") or "auto")

    def draft(state: BaselineState) -> dict:
        emit("phase", node="draft", phase="experts", round=0)
        block = agents.proposition_block(state["proposition"], lang)
        try:
            text = agents.answer("whatif.tree.draft", "whatif/tree_draft", settings, 0, proposition_block=block)
            crit = _critic(state["proposition"], text, settings, 0, lang)
        except LLMError as exc:
            raise _fail("the tree draft", exc) from exc
        node = {"id": "0", "parent": None, "depth": 0, "angle": "draft", "text": text,
                "prompt": prompts.render("whatif/tree_draft", "task", proposition_block=block), **crit}
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
        # B.3: the parent's prompt plus "Variant #k"; the tree_angles option (ours) revises the parent's answer
        task = prompts.render("whatif/tree_expand", "task", parent_prompt=parent.get("prompt", ""), k=b + 1)
        try:
            if params.get("tree_angles"):
                text = agents.answer_packed("whatif.tree.expand", "whatif/tree_expand", settings, d,
                                            {"parent": agents.text_slot("parent", "parent answer", parent["text"])},
                                            user="user_angle", angle=state["angle"],
                                            proposition_block=agents.proposition_block(state["proposition"], lang))
            else:
                text = agents.answer("whatif.tree.expand", "whatif/tree_expand", settings, d,
                                     parent_prompt=parent.get("prompt", ""), k=b + 1)
            crit = _critic(state["proposition"], text, settings, d, lang)
        except LLMError as exc:
            emit("expert_failed", node="expand", domain=f"branch {b + 1}", round=d, error=str(exc))
            return {"degraded": [f"step {d}: branch {b + 1} failed ({exc})"]}
        emit("baseline_step_done", node="expand", domain=f"branch {b + 1}", round=d, text=text)
        node = {"id": f"{parent['id']}.{b + 1}", "parent": parent["id"], "depth": parent["depth"] + 1,
                "step": d, "angle": state["angle"] if params.get("tree_angles") else f"variant #{b + 1}",
                "text": text, "prompt": task, **crit}
        return {"nodes": [node]}

    def select(state: BaselineState) -> dict:
        d = state["depth"]
        emit("round_done", node="select", round=d)
        leaf = best_leaf(state["nodes"])
        go, spent = _more("tree", state, params, d, steps, breadth)
        return {"best": leaf["id"] if leaf else state["best"], "depth": d + 1, "spent": spent,
                "stop": not go or leaf is None}

    def finish(state: BaselineState) -> dict:
        emit("report_done", node="finish", round=state["depth"] - 1)
        leaf = best_leaf(state["nodes"]) or next(n for n in state["nodes"] if n["id"] == state["best"])
        return {"best": leaf["id"],
                "report": natural_report(leaf["text"], state["proposition"], list(state.get("degraded", [])))}

    policy = cache_policy(params)
    g = StateGraph(BaselineState)
    g.add_node("draft", draft, cache_policy=policy)
    g.add_node("expand", expand, cache_policy=policy)
    g.add_node("select", select)
    g.add_node("finish", finish)
    g.add_edge(START, "draft")
    g.add_conditional_edges("draft", fan_out, ["expand"])
    g.add_edge("expand", "select")
    g.add_conditional_edges("select", lambda s: "finish" if s.get("stop") else fan_out(s), ["expand", "finish"])
    g.add_edge("finish", END)
    return g


def best_path(nodes: list[dict], best: str) -> list[str]:
    by_id = {n["id"]: n for n in nodes}
    path, cur = [], by_id.get(best)
    while cur:
        path.append(cur["id"])
        cur = by_id.get(cur["parent"]) if cur["parent"] else None
    return list(reversed(path))


def finalize_tree(state: dict, params: dict, calls: list[dict]) -> dict[str, Any]:
    nodes = [{k: v for k, v in n.items() if k not in ("text", "prompt")} | {"excerpt": n["text"][:200]}
             for n in sorted(state.get("nodes", []), key=lambda n: n["id"])]
    steps = max(0, int(state.get("depth", 1)) - 1)
    return make_record("tree", state, params, calls, rounds=[], report=state.get("report", {}),
                       degraded=list(state.get("degraded", [])), frame_diffs=[], tree=nodes,
                       best_path=best_path(state.get("nodes", []), state.get("best", "0")),
                       budget=budgets.outcome("tree", params, calls, steps).model_dump(mode="json"))


# -- debate ---------------------------------------------------------------------------------------------
def _transcript(debates: list[dict]) -> Part:
    """The whole debate so far, one turn per section (B.2's "joined transcripts"), for the packer."""
    turns = sorted(debates, key=lambda d: (d["round"], d["side"] != "pro"))
    return Part("transcript", tuple(Section(f"Round {d['round']} {d['side'].upper()}",
                                            tuple(p for p in str(d.get("text") or "").split("\n\n") if p.strip()),
                                            bullets=False, optional=True, sep="\n\n") for d in turns),
                empty="(no turns yet)", label="debate transcript")


def _side_text(name: str, r: int, state: BaselineState, settings: Settings) -> str:
    """One debater's argument (Appendix B.2: the side, the proposition and the round; a concise argument
    across the domains that stresses uncertainties and adaptations). The ``debate_history`` option (ours)
    also shows it the exchange so far."""
    params = state.get("params") or {}
    block = agents.proposition_block(state["proposition"], str(params.get("language") or "auto"))
    role = f"whatif.debate.{name}"
    if params.get("debate_history") and state.get("debates"):
        return agents.answer_packed(role, "whatif/debate_side", settings, r, {"history": _history(state)},
                                    user="user_baseline", proposition_block=block, round=r, side=name,
                                    side_title=name.upper(), duties="")
    return agents.answer(role, "whatif/debate_side", settings, r, user="user_baseline", proposition_block=block,
                         round=r, history="", side=name, side_title=name.upper(), duties="")


def _history(state: BaselineState) -> Part:
    whole = _transcript(state.get("debates", []))
    return Part("history", (Section("The debate so far:"), *whole.sections), joiner=whole.joiner,
                label="debate so far")


def build_debate(params: dict[str, Any], settings: Settings) -> StateGraph:
    """Pro/Con rounds (``debate_rounds``, or as many as the token budget buys), then the judge's synthesis."""
    rounds = int(params.get("debate_rounds", params.get("rounds", 2)))

    def side(name: str):  # noqa: ANN202
        def node(state: BaselineState) -> dict:
            r = state["round"]
            emit("expert_started", node=f"debate_{name}", domain=name, round=r)
            try:
                text = _side_text(name, r, state, settings)
            except LLMError as exc:
                emit("expert_failed", node=f"debate_{name}", domain=name, round=r, error=str(exc))
                return {"debates": [{"round": r, "side": name, "text": "", "error": str(exc)}],
                        "degraded": [f"round {r}: debate {name} failed ({exc})"]}
            emit("baseline_step_done", node=f"debate_{name}", domain=name, round=r, text=text)
            return {"debates": [{"round": r, "side": name, "text": text}]}
        return node

    def turn(state: BaselineState) -> dict:
        emit("round_done", node="turn", round=state["round"])
        go, spent = _more("debate", state, params, state["round"], rounds)
        return {"round": state["round"] + 1, "spent": spent, "stop": not go}

    def synthesis(state: BaselineState) -> dict:
        done = state["round"] - 1
        emit("phase", node="synthesis", phase="report", round=done)
        try:
            text = agents.answer_packed("whatif.debate.judge", "whatif/debate_judge", settings, done,
                                        {"transcript": _transcript(state.get("debates", []))}, user="user_synthesis",
                                        call_variant="synthesis",
                                        proposition_block=agents.proposition_block(
                                            state["proposition"], str(params.get("language") or "auto")))
        except LLMError as exc:
            raise _fail("the debate judge synthesis", exc) from exc
        emit("report_done", node="synthesis", round=done)
        return {"report": natural_report(text, state["proposition"], list(state.get("degraded", [])))}

    policy = cache_policy(params)
    g = StateGraph(BaselineState)
    g.add_node("debate_pro", side("pro"), cache_policy=policy)
    g.add_node("debate_con", side("con"), cache_policy=policy)
    g.add_node("turn", turn)
    g.add_node("synthesis", synthesis, cache_policy=policy)
    g.add_edge(START, "debate_pro")
    g.add_edge(START, "debate_con")
    g.add_edge(["debate_pro", "debate_con"], "turn")
    g.add_conditional_edges("turn", lambda s: ["synthesis"] if s.get("stop") else ["debate_pro", "debate_con"],
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
                       degraded=list(state.get("degraded", [])), frame_diffs=[],
                       budget=budgets.outcome("debate", params, calls, len(rounds)).model_dump(mode="json"))


def max_steps(params: dict[str, Any]) -> int:
    """Supersteps a tree or debate run may take (for the run's recursion limit): a budgeted run up to its
    safety ceiling, a fixed one its size; four per step (branches or sides, then select or turn) plus the ends."""
    method = params.get("method", "tree")
    steps = budgets.ceiling(method) if params.get("budget_tokens") else budgets.planned_steps(method, params)
    return 4 * (steps + 2)
