"""docs/extending.md, "beliefs": the toy rule and the toy topology of examples/extending/ are registered from
outside the package's built-in lists and are then found everywhere a rule or topology is listed — config
validation, the CLI's choices and help, the Beliefs page's options (AppTest), the belief tables, the docs
tables — with no other edit; the toy rule runs on the numpy path and its run record says so."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pandas as pd
import pytest
from typer.testing import CliRunner

from ifworld.beliefs import (
    TOPOLOGIES,
    UPDATE_RULES,
    BeliefConfig,
    load_belief_record,
    save_simulation,
    simulate,
    table1_by_condition,
    table4_strategy_by_condition,
)
from ifworld.beliefs.cli import app
from ifworld.beliefs.engine import NUMPY_PATH
from ifworld.registry import markdown_table
from tests.fixtures.examples import load_example

SMALL = {"agents": 8, "facts": 6, "true_facts": 2, "false_facts": 1, "rounds": 6}


@pytest.fixture
def toys() -> Iterator[tuple[str, str]]:
    rule, topology = load_example("toy_rule"), load_example("toy_topology")
    assert rule.SPEC.name not in UPDATE_RULES and topology.SPEC.name not in TOPOLOGIES  # not built in
    rule.register()
    topology.register()
    try:
        yield rule.SPEC.name, topology.SPEC.name
    finally:
        UPDATE_RULES.unregister(rule.SPEC.name)
        TOPOLOGIES.unregister(topology.SPEC.name)


def test_config_accepts_registered_names_only(toys):
    rule, topology = toys
    assert BeliefConfig(rule=rule, topology=topology).rule == rule
    with pytest.raises(ValueError, match=f"choose from .*{rule}"):
        BeliefConfig(rule="no_such_rule")


def test_cli_accepts_and_runs_the_toys(toys):
    rule, topology = toys
    runner = CliRunner()
    res = runner.invoke(app, ["run", "--rule", rule, "--topology", topology, *_flags(SMALL), "--runs", "5",
                              "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["runs"] == 5 and 0 <= summary["f1"] <= 1
    listed = json.loads(runner.invoke(app, ["rules", "--json"]).stdout)
    assert {"name": rule, "compiled_kernel": False}.items() <= next(r for r in listed if r["name"] == rule).items()
    assert topology in runner.invoke(app, ["topologies"]).stdout
    bad = runner.invoke(app, ["run", "--rule", "no_such_rule"])
    assert bad.exit_code == 2 and rule in bad.output and topology not in bad.output  # the error lists the rules
    bad = runner.invoke(app, ["run", "--topology", "no_such_graph"])
    assert bad.exit_code == 2 and topology in bad.output


def test_toy_rule_runs_on_numpy_and_the_record_says_so(toys, store):
    rule, topology = toys
    result = simulate(BeliefConfig(rule=rule, **SMALL), seed=1, runs=4)
    assert result.path == NUMPY_PATH
    record = load_belief_record(store.get_run(save_simulation(result, store=store)).record)
    assert record.path == NUMPY_PATH and record.config.rule == rule


def test_toys_reach_the_belief_tables(toys):
    rule, topology = toys
    rows = pd.DataFrame(simulate(BeliefConfig(**SMALL), seed=0, runs=3).rows()
                        + simulate(BeliefConfig(rule=rule, topology=topology, **SMALL), seed=0, runs=3).rows())
    conditions = set(table1_by_condition(rows)["condition"])
    assert f"heuristic-{rule}+{topology}" in conditions and len(conditions) == 2
    assert f"heuristic-{rule}+{topology}" in table4_strategy_by_condition(rows).columns


def test_toys_reach_the_docs_tables(toys):
    rule, topology = toys
    assert f"`{rule}`" in markdown_table("beliefs.rules") and "no: numpy path" in markdown_table("beliefs.rules")
    assert f"`{topology}`" in markdown_table("beliefs.topologies")


def test_beliefs_page_offers_and_runs_the_toys(toys):
    from tests.pages.test_belief_pages import BELIEFS, open_page, submit

    rule, topology = toys
    at = open_page(BELIEFS)
    box = at.selectbox(key="beliefs_rule")
    assert UPDATE_RULES.get(rule).label in box.options
    box.set_value(rule)
    at.selectbox(key="beliefs_topology").set_value(topology)
    at = submit(at, "▶️ Run simulation")
    assert not at.exception, at.exception
    config, _, _ = at.session_state["beliefs_run"]
    assert config["rule"] == rule and config["topology"] == topology
    assert any(f"Rounds computed by: **{NUMPY_PATH}**" in c.value for c in at.caption)


def _flags(values: dict[str, int]) -> list[str]:
    flags = {"true_facts": "--true", "false_facts": "--false"}
    return [part for k, v in values.items() for part in (flags.get(k, "--" + k.replace("_", "-")), str(v))]



def test_only_a_declared_kernel_runs_compiled(toys, monkeypatch):
    """The fast kernel is open: a rule runs compiled only when its spec names a kernel; the toy does not, and the
    compiled block refuses it rather than guessing."""
    pytest.importorskip("numba")
    from ifworld.beliefs import KERNEL_PATH, kernel
    from ifworld.beliefs.rules import get_rule
    from ifworld.errors import SimulationError

    monkeypatch.delenv(kernel.KERNEL_ENV, raising=False)
    rule, _ = toys
    assert simulate(BeliefConfig(**SMALL), seed=1, runs=2).path == KERNEL_PATH
    assert kernel.kernel_id(get_rule(rule)) is None and not kernel.supported(get_rule(rule), 12, "int16")
    with pytest.raises(SimulationError, match="no compiled kernel"):
        kernel.rule_params(get_rule(rule))
    monkeypatch.setenv(kernel.KERNEL_ENV, "numpy")
    assert simulate(BeliefConfig(**SMALL), seed=1, runs=2).path == NUMPY_PATH
