"""Issue #30 items 12–13: each RWS role is sent what the paper's conductor sends it (Appendix C.2–C.4), and no
gold field of an item reaches any pattern. Assertions read the requests the fake server logged."""

from __future__ import annotations

import pytest

from ifworld.rws.benchmark import SAMPLE_PATH
from ifworld.rws.dataset import load_items
from ifworld.rws.patterns import REGISTRY
from ifworld.rws.patterns.run import run_pattern
from tests.fixtures.fake_openai import last_user

REJECT = {"accept": False, "confidence": 0.9, "issues": ["units"], "fix": "convert to km/s"}


@pytest.fixture(scope="module")
def item():
    return {i.id: i for i in load_items(SAMPLE_PATH).items}["2025_IFW_2_b"]


def _user(fake, role: str, nth: int = 0) -> str:
    return [last_user(r.body) for r in fake.requests if (r.role or "") == role][nth]


def _system(fake, role: str) -> str:
    return next(r.body["messages"][0]["content"] for r in fake.requests if (r.role or "") == role)


# -- 12. each role's input is the paper's -----------------------------------------------------------------------
def test_phase_roles_get_the_conductors_inputs(fake_server, settings, item):
    fake_server.add_rule("rws.phase.evaluator", REJECT)
    run_pattern("phase", item, settings, verify=False)
    evaluator = _user(fake_server, "rws.phase.evaluator")
    assert item.question not in evaluator and "Question:" not in evaluator  # PLAN + HYPOTHESIS + SOLUTION
    assert "Plan:" in evaluator and "Hypotheses:" in evaluator and "Solution:\nReasoning:" in evaluator
    retry = _user(fake_server, "rws.phase.solver#retry")  # QUERY + PLAN + HYPOTHESIS + ANALYSIS + FIX
    assert item.question in retry and "Analyzer's derivation:" in retry and '"fix": "convert to km/s"' in retry
    assert "rejected answer" not in retry and "Final Answer:" not in retry.split("Fix (")[0]
    finalizer = _user(fake_server, "rws.phase.finalizer")  # PLAN + MESSAGE
    assert item.question not in finalizer and "Plan:" in finalizer and "Message:" in finalizer


def test_pace_roles_get_the_conductors_inputs(fake_server, settings, item):
    fake_server.add_rule("rws.pace.critic", REJECT)
    run_pattern("pace", item, settings, verify=False)
    critic, system = _user(fake_server, "rws.pace.critic"), _system(fake_server, "rws.pace.critic")
    assert item.question not in critic and "Plan:" in critic and "Draft answer:" in critic  # PLAN + DRAFT
    # C.2's checks (type, units or SI, plan checks, sanity; 5 % numeric) and its confidence scale
    for said in ("about 0.9 when every check passes cleanly", "about 0.6 when only a minor format fix",
                 "0.4 or less for a substantive error", "SI is acceptable", "within 5 %", "valid LaTeX"):
        assert said in critic + system, said
    retry = _user(fake_server, "rws.pace.answer#retry")  # QUERY + PLAN + FIX
    assert item.question in retry and '"fix": "convert to km/s"' in retry and "first answer:" not in retry
    encloser = _user(fake_server, "rws.pace.encloser")  # MESSAGE only
    assert item.question not in encloser and "Plan:" not in encloser and encloser.startswith("Message:")


# -- 13. no gold field reaches a pattern -------------------------------------------------------------------------
def _poisoned(item) -> dict:
    data = item.model_dump()
    other = next(t for t in ("numeric", "symbolic", "textual") if t != data["type"])
    return {**data, "final": "POISON-FINAL 999 nT", "step": ["POISON-STEP"], "type": other,
            "meta": {"topic": "plasma physics POISON", "source": "POISON"}}


def _sent(fake) -> list[tuple[str, list]]:
    return [(r.role or "", [m.get("content") for m in r.body["messages"]]) for r in fake.requests
            if r.path.endswith("/chat/completions")]


@pytest.mark.parametrize("pattern", REGISTRY.names())
def test_poisoned_gold_fields_change_no_prompt(pattern, fake_server, settings, item):
    run_pattern(pattern, item, settings, verify=False)
    clean = _sent(fake_server)
    fake_server.reset()
    run_pattern(pattern, _poisoned(item), settings, verify=False)
    poisoned = _sent(fake_server)
    assert poisoned == clean
    assert not any("POISON" in str(messages) for _, messages in poisoned)


@pytest.mark.parametrize("roles, tolerance", [(["physics", "math"], "2%"), (["biology"], "5%"),
                                              (["chemistry", "qa"], "5%")])
def test_guard_tolerance_follows_the_architects_domain(fake_server, settings, item, roles, tolerance):
    experts = [{"role": r, "prompt": "work it out", "produces": "a value", "consumes": "the task"} for r in roles]
    fake_server.add_rule("rws.schema.architect", {"q_type": "numeric", "format_hints": "", "plan": ["a"],
                                                  "checks": ["units"], "expert_sequence": experts})
    run_pattern("schema", _poisoned(item), settings, verify=False)  # its meta says "plasma physics"
    guard = _user(fake_server, "rws.schema.guard") + _system(fake_server, "rws.schema.guard")
    assert tolerance in guard and {"2%": "5%", "5%": "2%"}[tolerance] not in guard
