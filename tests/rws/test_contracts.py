"""The contract of an RWS answer pattern, run on EVERY registered pattern (built-in or installed) against the
tests' fake model: one item solved ends in a gradable answer (a final answer the grader reads and gives a verdict),
with as many model calls as the spec declares. The toy pattern of examples/extending/ passes, and copies of it,
broken on purpose, are caught (docs/extending.md, "The contract tests")."""

from __future__ import annotations

import pytest
from langgraph.graph import START, StateGraph

from ifworld.config import Settings
from ifworld.rws import PATTERN_REGISTRY, benchmark
from ifworld.rws.patterns.base import PatternState, code_step, item_block, text_role
from ifworld.rws.patterns.run import run_pattern
from tests.fixtures.examples import load_example

ITEM_ID = "2025_IFW_2_b"
VERDICTS = {"correct", "incorrect", "not_sure"}


def check_pattern(name: str, settings: Settings, fake_server) -> dict:
    """Solve one item with the registered pattern ``name``; AssertionError saying which part of the contract
    it breaks. Returns the result record."""
    spec = PATTERN_REGISTRY.get(name)
    item = {i.id: i for i in benchmark.load_sample()}[ITEM_ID]
    fake_server.reset()
    result = run_pattern(name, item, settings, verify=False)
    assert result["pattern"] == name and result["raw_output"].strip(), f"{name}: no final output"
    assert result["answer"].strip(), f"{name}: no gradable answer in its output: {result['raw_output'][:200]!r}"
    assert result["grade"]["verdict"] in VERDICTS, f"{name}: the grader gave no verdict"
    fewest, most = spec.calls_range()
    assert result["calls"] == fake_server.count(), f"{name}: {fake_server.count()} model calls, {result['calls']} " \
                                                   "counted in the record"
    assert fewest <= result["calls"] <= most, f"{name}: {result['calls']} model calls, {fewest}-{most} declared"
    return result


@pytest.mark.parametrize("name", PATTERN_REGISTRY.names())
def test_every_registered_pattern_keeps_the_contract(name: str, settings: Settings, fake_server) -> None:
    check_pattern(name, settings, fake_server)


def _forgets_the_answer(g: StateGraph, settings: Settings) -> str:
    """A draft whose node never sets ``final_text``: the run ends without an answer to grade."""

    def draft(state: PatternState) -> dict:
        _, upd = text_role(settings, state, "draft", "draft", template="rws/single/answer",
                           item=item_block(state["item"]))
        return upd

    g.add_node("draft", draft)
    g.add_edge(START, "draft")
    return "draft"


def test_the_toy_pattern_passes_and_broken_copies_are_caught(settings: Settings, fake_server) -> None:
    toy = load_example("toy_pattern")
    with PATTERN_REGISTRY.temporarily(toy.SPEC):
        check_pattern(toy.SPEC.name, settings, fake_server)
    no_answer = toy.SPEC.model_copy(update={"add_nodes": _forgets_the_answer, "calls": {"accept": {"draft": 1}}})
    with PATTERN_REGISTRY.temporarily(no_answer), pytest.raises(AssertionError, match="no final output"):
        check_pattern(toy.SPEC.name, settings, fake_server)
    miscounted = toy.SPEC.model_copy(update={"calls": {"accept": {"draft": 1}}})  # it makes two calls
    with PATTERN_REGISTRY.temporarily(miscounted), pytest.raises(AssertionError, match="1-1 declared"):
        check_pattern(toy.SPEC.name, settings, fake_server)


def test_a_code_step_is_traced_but_not_counted_as_a_model_call(settings: Settings, fake_server) -> None:
    """The documented way to add a step that calls no model (:func:`code_step`, status ``code``)."""
    toy = load_example("toy_pattern")

    def with_code_step(g: StateGraph, s: Settings) -> str:
        last = toy.add_nodes(g, s)
        g.add_node("tidy", lambda state: {**code_step(state, "tidy", state["final_text"].strip(),
                                                       given="the draft"), "final_text": state["final_text"]})
        g.add_edge(last, "tidy")
        return "tidy"

    with PATTERN_REGISTRY.temporarily(toy.SPEC.model_copy(update={"add_nodes": with_code_step})):
        result = check_pattern(toy.SPEC.name, settings, fake_server)
    assert result["calls"] == 2 and [t["status"] for t in result["trace"]] == ["ok", "ok", "code"]


def test_old_records_code_status_is_still_not_a_call() -> None:
    from ifworld.rws.patterns.base import counts_as_call

    assert not counts_as_call({"status": "ok (code)"}) and not counts_as_call({"status": "code"})
    assert counts_as_call({"status": "ok"}) and counts_as_call({"status": "degraded"}) and counts_as_call({})


def test_rws_patterns_lists_the_patterns_like_beliefs_rules() -> None:
    import json

    from typer.testing import CliRunner

    from ifworld.rws.cli import app

    toy = load_example("toy_pattern")
    with PATTERN_REGISTRY.temporarily(toy.SPEC):
        table = CliRunner().invoke(app, ["patterns"])
        listed = CliRunner().invoke(app, ["patterns", "--json"])
    names = [*PATTERN_REGISTRY.names(), "draft_check"]
    assert table.exit_code == 0 and all(f"`{name}`" in table.stdout for name in names)
    rows = json.loads(listed.stdout)
    assert [r["name"] for r in rows] == [*PATTERN_REGISTRY.names(), "draft_check"]
    assert rows[-1] == {"name": "draft_check", "label": "Draft + check", "help": toy.SPEC.help,
                        "roles": ["draft", "check"], "calls_per_item": [2, 2], "in_table2": True}
