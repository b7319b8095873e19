"""A what-if method in one file: "best of two" — two single agents answer the proposition independently (in
parallel) and the more detailed answer is the report (two model calls, no budget: a baseline of fixed size).

It reuses the single agent's prompt file (``whatif/single``); a method with prompts of its own puts them under
``prompts/whatif/``. Its record is the record every method ends in (:func:`ifworld.whatif.method_kit.make_record`),
so the export, the judge, the replay and the comparison take it as they are. Register it (``register()``), then
``ifworld whatif run "What if …?" --method best_of_two`` and the What-if page offer it.
"""

import operator  # no `from __future__ import annotations`: LangGraph reads State's annotations at build time
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph

from ifworld.config import Settings
from ifworld.whatif import METHOD_REGISTRY, MethodSpec
from ifworld.whatif.method_kit import answer, make_record, natural_report, proposition_block

DRAFTS = ("draft_a", "draft_b")


class State(TypedDict, total=False):
    proposition: str
    drafts: Annotated[list[str], operator.add]
    report: dict


def initial(params: dict[str, Any]) -> dict[str, Any]:
    return {"proposition": params["proposition"], "drafts": []}


def build(params: dict[str, Any], settings: Settings) -> StateGraph:
    """Two drafts from START in parallel, then ``pick`` keeps the longer one as the report."""

    def draft(state: State) -> dict:
        block = proposition_block(state["proposition"], str(params.get("language") or "auto"))
        return {"drafts": [answer("whatif.best_of_two.draft", "whatif/single", settings, 1, proposition_block=block)]}

    def pick(state: State) -> dict:
        best = max(state["drafts"], key=len)
        return {"report": natural_report(best, state["proposition"], [])}

    g = StateGraph(State)
    for name in DRAFTS:
        g.add_node(name, draft)
        g.add_edge(START, name)
    g.add_node("pick", pick)
    g.add_edge(list(DRAFTS), "pick")
    g.add_edge("pick", END)
    return g


def finalize(state: dict[str, Any], params: dict[str, Any], calls: list[dict]) -> dict[str, Any]:
    return make_record("best_of_two", state, params, calls, rounds=[], report=state.get("report", {}),
                       degraded=[], frame_diffs=[])


SPEC = MethodSpec(
    name="best_of_two", label="Best of two drafts", tokens_per_call=3_600, calls_per_round="2",
    help="Two single agents answer independently; the more detailed answer is the report.",
    build=build, initial=initial, finalize=finalize, estimate=lambda params: len(DRAFTS),
    describe=lambda params: "best of two: two single-agent answers, the more detailed one kept",
    node_calls={name: 1 for name in DRAFTS}, report_nodes=("pick",), report_label="Best of two — the kept answer",
    step_labels={"draft_a": "Best of two — first draft", "draft_b": "Best of two — second draft",
                 "pick": "Best of two — keeping the more detailed answer"},
    blind_words=("best of two",),
    # what the demo model (and the tests' fake server) answers its role whatif.best_of_two.draft with
    demo_answer={"draft": "**Short answer.** A canned draft: the shock moves the headline quantity by 5-30 % "
                          "within a few years; watch the first policy response."},
)


def register() -> MethodSpec:
    """Add the method to the registry (an outside package would do this when imported)."""
    return METHOD_REGISTRY.register(SPEC)
