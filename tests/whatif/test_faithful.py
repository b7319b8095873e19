"""Issue #30: what each IF-World role and each baseline is *sent* is what the paper gives it (items 1–9).

Every assertion reads the requests the fake server logged (``fake_server.requests``), not the templates.
"""

from __future__ import annotations

import json
import re

import pytest

from ifworld import prompts
from ifworld.llm.demo_answers import last_user
from ifworld.whatif import METHOD_REGISTRY
from ifworld.whatif.graph import suggested_experts
from ifworld.whatif.judge import judge_record
from ifworld.whatif.propositions import DEFAULT_EXPERTS
from tests.fixtures.scripts import whatif as script
from tests.whatif.conftest import SMALL

TWO = ["physics", "economics"]


def _sent(fake, role: str) -> list[str]:
    """The user message of every logged request whose rule name starts with ``role``."""
    return [last_user(r.body) for r in fake.requests if (r.role or "").startswith(role)]


def _chat(fake) -> list:
    return [r for r in fake.requests if r.path.endswith("/chat/completions")]


# -- 1. the panel is exactly what was asked ------------------------------------------------------------------
@pytest.fixture
def greedy_refiner(fake_server):
    """A refiner whose expert plan names two more domains than the panel it was given."""
    fake_server.add_rule("whatif.refiner",
                         lambda body: {**script.refiner(body), "expert_plan": [*TWO, "law", "geology"]})
    return fake_server


def test_a_two_expert_run_sends_exactly_two_experts(run_whatif, greedy_refiner):
    rec = run_whatif(experts=TWO, rounds=1)
    assert rec["panel"] == TWO and len(_sent(greedy_refiner, "whatif.expert")) == 2
    assert all("You are the law expert" not in p for p in _sent(greedy_refiner, "whatif.expert"))


def test_the_refiners_additions_are_an_option_or_a_suggestion_at_review(run_whatif, greedy_refiner):
    rec = run_whatif(experts=TWO, rounds=1, extend_panel=True)  # our option (off by default)
    assert rec["panel"] == [*TWO, "law", "geology"] and len(_sent(greedy_refiner, "whatif.expert")) == 4
    greedy_refiner.reset()
    out = run_whatif(experts=TWO, rounds=1, review=True)
    (ask,) = out["paused"]
    assert ask["panel"] == TWO and ask["suggested_experts"] == ["law", "geology"]
    assert suggested_experts(TWO, TWO) == []


# -- 2. F_r = Ψ ⊕ D_r reaches every expert in full ---------------------------------------------------------
LONG = "a very long consensus statement about cascading supply-chain effects across many sectors " * 3


def _big_synthesis(body: dict) -> dict:
    out = script.resolver(body)
    out["consensus"] = [{"point": f"{i}: {LONG}", "confidence": 0.7} for i in range(8)]
    out["uncertainties"] = [{"description": LONG, "indicator": LONG} for _ in range(5)]
    out["treatment_notes"] = [LONG] * 4
    return out


BRIEF = {"points": [{"issue": "adaptation speed", "pro": "PRO-MARK slower than a decade",
                     "con": "CON-MARK within two years", "crux": "CRUX-MARK price pass-through"}],
         "summary": "SUMMARY-MARK the sides agree the first year is hard."}


def test_a_large_synthesis_never_pushes_the_debate_brief_out(run_whatif, fake_server):
    fake_server.add_rule("whatif.resolver", _big_synthesis)
    fake_server.add_rule("whatif.debate.judge", BRIEF)  # its synthesis is whatif.debate.judge#synthesis
    rec = run_whatif(rounds=2)
    assert len(rec["rounds"][0]["frame"]["text"]) > 3_500  # Ψ alone fills its whole budget
    round2 = [p for p in _sent(fake_server, "whatif.expert") if "Round 2." in p]
    assert len(round2) == len(SMALL)
    for p in round2:
        frame = p.split("<shared_frame>")[1].split("</shared_frame>")[0]
        for mark in ("PRO-MARK", "CON-MARK", "CRUX-MARK", "SUMMARY-MARK", "Consensus:"):
            assert mark in frame, mark


# -- 3. the resolver and the report writers read the experts' outputs ------------------------------------------
def test_resolver_and_report_writers_get_each_experts_whole_output(run_whatif, fake_server):
    rec = run_whatif(rounds=1, experts=list(DEFAULT_EXPERTS))  # nine experts share the budget
    outputs = rec["rounds"][0]["experts"]
    readers = {"resolver": _sent(fake_server, "whatif.resolver")[-1],
               **{part: _sent(fake_server, f"whatif.report#{part}")[-1] for part in ("core", "analysis", "scenarios")}}
    for who, prompt in readers.items():
        blocks = prompt.split("\n---\n")
        assert len(blocks) == len(DEFAULT_EXPERTS), who
        for domain, out in outputs.items():
            block = next(b for b in blocks if f"[{domain}]" in b)
            assert "Assumptions:" in block and out["assumptions"][0]["text"] in block, (who, domain)
            assert f"lever: {out['uncertainties'][0]['lever']}" in block, (who, domain)
            assert f"mitigation: {out['feasibility_table'][0]['mitigation']}" in block, (who, domain)
            ci = out["calibration"][0]
            assert f"{ci['ci50'][0]:g}–{ci['ci50'][1]:g}" in block and f"{ci['ci95'][1]:g}" in block, (who, domain)
    assert "Take the numbers of your tables from the experts' outputs" in readers["analysis"]
    assert "Degraded" not in readers["core"]


# -- 4. the minimal-change variant is A.3's ---------------------------------------------------------------
def test_minimal_change_means_the_fewest_extra_assumptions(run_whatif, fake_server):
    run_whatif(rounds=1, experts=TWO)
    expert = [r for r in fake_server.requests if r.role == "whatif.expert"][0]
    body = json.dumps(expert.body)
    assert "fewest extra assumptions under which your conclusions still hold" in last_user(expert.body)
    assert not re.search(r"flip\w* (?:your|the|its) verdict|that would flip", body, re.I)
    assert "fewest extra assumptions" in _sent(fake_server, "whatif.report#core")[0]


# -- 5. one system prefix for every method ------------------------------------------------------------------
def test_every_method_gets_the_same_system_prefix_and_no_extra_format_rule(run_whatif, fake_server):
    prefix = prompts.render("whatif/common", "system")
    assert "coverage, causality, feasibility, uncertainty and adaptation, scenarios and timeline" in prefix
    assert "in one language" in prefix
    for method in METHOD_REGISTRY.names():
        fake_server.reset()
        run_whatif(method=method, rounds=1, experts=TWO, breadth=1, depth=1, debate_rounds=1)
        for r in _chat(fake_server):
            if r.role != "whatif.judge":
                assert r.body["messages"][0]["content"].startswith(prefix), (method, r.role)
            user = last_user(r.body)
            for extra in ("no prescribed report format", "own words and structure", "Markdown is fine"):
                assert extra not in user, (method, r.role, extra)


# -- 6. the baselines as Appendix B writes them ----------------------------------------------------------------
def test_single_agent_gets_b1_and_nothing_more(run_whatif, fake_server):
    run_whatif(method="single")
    (user,) = _sent(fake_server, "whatif.single")
    assert "across several domains" in user and "compact but complete" in user
    body = user.split("</proposition>")[1]
    assert len(body) < 400 and "physics" not in body  # no list of domains, no report outline


def test_tree_variants_repeat_the_parent_prompt_with_a_variant_line(run_whatif, fake_server):
    rec = run_whatif(method="tree", breadth=2, depth=2)
    (draft,) = _sent(fake_server, "whatif.tree.draft")
    variants = _sent(fake_server, "whatif.tree.expand")
    task = draft.split("\n\nAgent role:")[0]
    assert len(variants) == 4 and all(v.startswith(task) for v in variants)
    assert sorted(v.count("Variant #") for v in variants) == [1, 1, 2, 2]  # depth 2 carries its parent's line
    assert not any("Current answer" in v or "alternative assumption" in v for v in variants)
    answers = [n["excerpt"] for n in rec["tree"]]
    assert not any(a[:60] in v for a in answers for v in variants)  # a variant does not see its parent's answer


def test_tree_angles_and_debate_history_are_named_options(run_whatif, fake_server):
    run_whatif(method="tree", breadth=1, depth=1, tree_angles=True)
    (variant,) = _sent(fake_server, "whatif.tree.expand")
    assert "Revise it under this alternative assumption" in variant
    fake_server.reset()
    run_whatif(method="debate", debate_rounds=2, debate_history=True)
    assert "The debate so far" in _sent(fake_server, "whatif.debate.pro")[-1]


# -- 7. a blind judge -------------------------------------------------------------------------------------------
TELLS = ("Consistency checks", "consistency check", "Rule applied", "Repaired", "Normalised", "Degraded",
         "failed", "FAILED", "physical law first", "repair turn", "Conflicts and how they were adjudicated",
         "Positions (experts)", "Treatment", "| Kind |", "adjudicated", "prioritised", "granularity")
"""Words only our pipeline writes (its resolver's schema, its checks): never in the text the judge reads."""


@pytest.mark.parametrize("method", [s.name for s in METHOD_REGISTRY if s.in_paper])  # each with its fault below
def test_the_text_the_judge_is_sent_has_no_pipeline_tell(run_whatif, fake_server, wsettings, method):
    # a degraded run with repairs: a failing step, and (IF-World) parts the consistency check repairs
    fake_server.inject("500", times=3, match={"ifworld": "You are the medicine expert", "tree": "Variant #2",
                                              "debate": r"Round 2\.", "single": "nothing-matches"}[method])
    rec = run_whatif(method=method, proposition="What if an inconsistent Moon disappeared?", rounds=1,
                     breadth=2, depth=1, debate_rounds=2)
    if method != "single":
        assert rec["degraded"] and "Degraded steps" in rec["report"]["markdown"]  # the export keeps it
    fake_server.reset()
    judge_record(rec, wsettings)
    (judged,) = _sent(fake_server, "whatif.judge")
    analysis = judged.split("<analysis>")[1].split("</analysis>")[0]
    for tell in TELLS:
        assert tell not in analysis, (method, tell)
    system = [r for r in fake_server.requests if r.role == "whatif.judge"][0].body["messages"][0]["content"]
    assert "format" not in system.split("Rubric")[1].split("The text to evaluate")[0]
    assert "headings" not in system and "layout" not in system


def test_every_methods_judge_prompt_has_the_same_sections_around_its_text(run_whatif, fake_server, wsettings):
    """What the judge is sent differs between methods only inside <analysis>: the same system message, the same
    proposition block and the same instruction, whatever the method (every registered one)."""
    from ifworld.whatif.methods import REGISTRY

    around = {}
    for spec in REGISTRY:
        rec = run_whatif(method=spec.name, rounds=1, breadth=2, depth=1, debate_rounds=1)
        fake_server.reset()
        judge_record(rec, wsettings)
        (request,) = [r for r in fake_server.requests if r.role == "whatif.judge"]
        user = request.body["messages"][-1]["content"]
        around[spec.name] = (request.body["messages"][0]["content"], user.split("<analysis>")[0],
                             user.split("</analysis>")[1])
    assert len(set(around.values())) == 1, around.keys()


# -- 8. w/o shared frame removes the frame ------------------------------------------------------------------
def test_without_shared_frame_no_frame_is_made_or_sent(run_whatif, fake_server):
    rec = run_whatif(no_shared_frame=True, rounds=2)
    assert fake_server.count("whatif.resolver") == 0 and fake_server.count("whatif.debate") == 0
    experts = _sent(fake_server, "whatif.expert")
    for p in [*experts, *_sent(fake_server, "whatif.report")]:
        assert "<shared_frame>" not in p and "Shared frame after" not in p and "Debate brief" not in p
        assert "Your own analysis of round" not in p
    r1 = [p for p in experts if "Round 1." in p]
    r2 = [p for p in experts if "Round 2." in p]
    assert len(r2) == len(SMALL) and all(p.split("Round 2.")[0] == r1[0].split("Round 1.")[0] for p in r2)
    assert rec["report"]["markdown"]


def test_expert_memory_is_a_named_option(run_whatif, fake_server):
    run_whatif(rounds=2, expert_memory=True)
    r2 = [p for p in _sent(fake_server, "whatif.expert") if "Round 2." in p]
    assert r2 and all("Your own analysis of round 1" in p for p in r2)
    fake_server.reset()
    run_whatif(rounds=2)
    assert not any("Your own analysis" in p for p in _sent(fake_server, "whatif.expert"))


def test_the_reports_tables_trace_to_an_expert_output(run_whatif, fake_server):
    """The writer is told to take its tables' numbers from the experts' outputs, and the fake writer does what
    it is told with what it was sent: each number of the report's feasibility and calibration tables is one an
    expert gave (item 3)."""
    rec = run_whatif(rounds=1)
    outputs = rec["rounds"][-1]["experts"].values()
    estimates = {row["estimate"] for o in outputs for row in o["feasibility_table"]}
    values = {v for o in outputs for c in o["calibration"] for lvl in ("ci50", "ci80", "ci95") for v in c[lvl]}
    report = rec["report"]
    assert report["feasibility_table"] and report["calibration_ranges"]
    assert all(row["estimate"] in estimates for row in report["feasibility_table"])
    assert all(any(abs(v - x) < 1e-6 for x in values)
               for c in report["calibration_ranges"] for lvl in ("ci50", "ci80", "ci95") for v in c[lvl])
