"""The comparison as the IF-World paper runs it (§3, Appendix B–C): matched token budgets, the baselines'
outputs, a neutral and blind judge, the ablation topic."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ifworld.whatif import budget as budgets, run_eval
from ifworld.whatif.baselines import best_leaf
from ifworld.whatif.builtin_methods import MAX_DEBATE_ROUNDS
from ifworld.whatif.cli import app
from ifworld.whatif.evaluate import estimate_eval_calls, parse_budget, resolve_methods, resolve_propositions
from ifworld.whatif.judge import analysis_text, judge_record
from ifworld.whatif.propositions import ABLATION_PROPOSITION
from ifworld.whatif.report import REPORT_SECTIONS, natural_report
from ifworld.whatif.rubric import JUDGE_MAXIMA, RUBRIC, RUBRIC_TOTAL, blind, rubric_text
from ifworld.whatif.schemas import Judgement
from tests.whatif.conftest import PROP

# §3.2: "(1) Rigor and Traceability (0–25) … (2) Integration and Causality (0–25) … (3) Feasibility and
# Minimality (0–20) … (4) Uncertainty and Adaptation (0–15) … (5) Decisionability (0–15)"; keys from C.2.
PAPER_RUBRIC = {"rigor_traceability": 25, "integration_causality": 25, "feasibility_minimality": 20,
                "uncertainty_adaptation": 15, "decisionability": 15}
# §3.4: "we perform ablations on the scenario 'Earth's magnetic field collapsed for ten years'".
PAPER_ABLATION_TOPIC = "Earth's magnetic field collapsed for ten years"
TABLE_3_VARIANTS = {"ifworld", "ifworld:2x1", "ifworld:no_debate", "ifworld:no_conflict",
                    "ifworld:no_shared_frame", "ifworld:no_refine"}
SMALL_IFWORLD = {"experts": ["physics", "economics"], "rounds": 1}
TOLERANCE = 0.25


# -- 6. matched budgets ------------------------------------------------------------------------------
def test_matched_budget_is_the_default_and_each_matched_method_lands_within_25_percent(fake_server, wsettings, store,
                                                                                        tmp_path):
    res = run_eval("paper", [PROP], 1, wsettings, tmp_path / "eval", store=store, base_params=SMALL_IFWORLD)
    rows = res.scores.set_index("method")
    assert res.budget == "matched" and (res.scores["status"] == "ok").all()
    reference = rows.loc["ifworld", "tokens"]
    for method in ("tree", "debate"):  # the target is IF-World's measured tokens for this proposition
        row = rows.loc[method]
        assert row["budget_target"] == reference and row["budget_status"] == "matched", row.to_dict()
        assert abs(row["tokens"] / reference - 1) <= TOLERANCE
        assert row["budget_ratio"] == pytest.approx(row["tokens"] / reference)
    assert rows.loc["single", "budget_status"] == "unmatched" and rows.loc["single", "calls"] == 1
    # tokens per method beside the scores, and in the stored output
    assert {"overall", "tokens per run", "tokens ÷ IF-World", "budget"} <= set(res.macro.columns)
    assert res.macro.loc["ifworld", "budget"] == "reference" and res.macro.loc["single", "budget"] == "unmatched"
    assert res.macro.loc["tree", "budget"].startswith("matched ×")
    log = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    assert log["budget"] == "matched" and log["budget_tolerance"] == TOLERANCE
    assert {c["budget_status"] for c in log["cells"] if c["method"] in ("tree", "debate")} == {"matched"}
    assert "budget_ratio" in (tmp_path / "eval" / "scores.csv").read_text().splitlines()[0]


@pytest.mark.slow
def test_each_proposition_gets_its_own_ifworld_target(fake_server, wsettings, store):
    props = [PROP, "What if antibiotics stopped working?"]
    res = run_eval(["ifworld", "debate"], props, 1, wsettings, store=store, base_params=SMALL_IFWORLD)
    rows = res.scores.set_index(["method", "topic"])
    assert rows.loc[("ifworld", 1), "tokens"] != rows.loc[("ifworld", 2), "tokens"]
    for topic in (1, 2):
        reference = rows.loc[("ifworld", topic), "tokens"]
        assert rows.loc[("debate", topic), "budget_target"] == reference
        assert abs(rows.loc[("debate", topic), "tokens"] / reference - 1) <= TOLERANCE


def test_budget_none_keeps_the_fixed_sizes(fake_server, wsettings, store):
    res = run_eval(["tree", "debate"], [PROP], 1, wsettings, store=store, budget="none",
                   base_params={"breadth": 2, "depth": 1, "debate_rounds": 1})
    assert list(res.scores["calls"]) == [2 + 2 * 2, 2 + 1] and set(res.scores["budget_status"]) == {"none"}
    assert set(res.macro["budget"]) == {"fixed size"}


def test_a_budgeted_debate_is_not_capped_at_six_rounds(run_whatif, fake_server):
    rec = run_whatif(method="debate", budget_tokens=40_000)
    assert rec["budget"]["status"] == "matched" and len(rec["rounds"]) > MAX_DEBATE_ROUNDS
    assert abs(rec["budget"]["tokens"] / 40_000 - 1) <= TOLERANCE


def test_an_unreachable_budget_stops_at_the_ceiling_and_says_why(llm_env, monkeypatch, tmp_path):
    monkeypatch.setattr(budgets, "ceiling", lambda method: 3)
    out = tmp_path / "run.json"
    res = CliRunner().invoke(app, ["run", PROP, "--method", "debate", "--budget-tokens", "500000", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rec = json.loads(out.read_text())
    assert len(rec["rounds"]) == 3 and rec["budget"]["status"] == "below"
    note = rec["budget"]["note"]
    assert "safety ceiling of 3 rounds" in note and "too short to fill this budget" in note and "500,000" in note
    assert "budget not reached" in res.output  # said on stderr too


def test_parse_budget_and_the_estimate_follow_the_budget():
    assert parse_budget(None) == "matched" and parse_budget("none") == "none" and parse_budget("70000") == 70_000
    for bad in ("lots", "-5"):
        with pytest.raises(ValueError, match="--budget must be 'matched', 'none' or a positive number"):
            parse_budget(bad)
    fixed = estimate_eval_calls(["debate"], [PROP], 1, budget="none")
    assert fixed == 2 * 2 + 1 + 1  # two rounds, synthesis, judge
    assert estimate_eval_calls(["debate"], [PROP], 1, budget=70_000) > fixed


def test_cli_eval_prints_tokens_beside_scores_and_refuses_a_bad_budget(llm_env, tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["eval", "--budget", "lots"])
    assert res.exit_code == 2 and "--budget must be 'matched', 'none'" in res.output
    res = runner.invoke(app, ["eval", "--methods", "tree", "--propositions", "ablation"])
    assert res.exit_code == 2 and "add ifworld to --methods" in res.output
    props = tmp_path / "props.txt"
    props.write_text(PROP + "\n")
    res = runner.invoke(app, ["eval", "--methods", "ifworld,single,debate", "--propositions", str(props),
                              "--experts", "physics,economics", "--rounds", "1", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert "tokens per run" in res.output and "matched ×" in res.output and "unmatched" in res.output
    assert "budget: matched" in res.output


# -- 7. baselines as Appendix B ------------------------------------------------------------------------
def test_tree_outputs_only_the_best_leaf(run_whatif, fake_server):
    rec = run_whatif(method="tree", breadth=2, depth=3)
    nodes = rec["tree"]
    parents = {n["parent"] for n in nodes}
    leaves = [n for n in nodes if n["id"] not in parents]
    best = rec["best_path"][-1]
    assert best in {n["id"] for n in leaves}
    assert max(n["score"] for n in leaves) == next(n["score"] for n in nodes if n["id"] == best)
    md = rec["report"]["markdown"]
    assert "critic score" not in md.lower() and "/10" not in md and "## Step" not in md
    assert md.count("**Short answer.**") == 1  # one answer, not the root-to-leaf path
    critic = [r for r in fake_server.requests if r.role == "whatif.tree.critic"]
    assert len(critic) == 1 + 2 * 3 and "0 to 10" in critic[0].prompt and "uncertainty" in critic[0].prompt


def test_best_first_search_goes_back_to_a_better_earlier_branch():
    nodes = [{"id": "0", "parent": None, "depth": 0, "score": 5},
             {"id": "0.1", "parent": "0", "depth": 1, "score": 8}, {"id": "0.2", "parent": "0", "depth": 1, "score": 7},
             {"id": "0.1.1", "parent": "0.1", "depth": 2, "score": 4},
             {"id": "0.1.2", "parent": "0.1", "depth": 2, "score": 6}]
    assert best_leaf(nodes)["id"] == "0.2"  # its sibling's children scored worse: back to 0.2
    nodes.append({"id": "0.2.1", "parent": "0.2", "depth": 2, "score": 7})
    assert best_leaf(nodes)["id"] == "0.2.1"  # a tie goes to the deeper answer


def test_debate_rounds_then_a_judge_asked_for_appendix_b_deliverables(run_whatif, fake_server):
    rec = run_whatif(method="debate", debate_rounds=2)
    sides = [r for r in fake_server.requests if r.role in ("whatif.debate.pro", "whatif.debate.con")]
    assert len(sides) == 4 and all("panel concluded" not in r.prompt for r in sides)
    assert all("uncertain" in r.prompt and "adapt" in r.prompt for r in sides)
    # B.2: a turn gets its side, the proposition and the round — not the exchange so far (issue #30 item 6)
    assert not any("The debate so far" in r.prompt for r in sides)
    assert all("Round 2." in r.prompt for r in sides[2:]) and all("strongest reading" not in r.prompt for r in sides)
    synthesis = next(r for r in fake_server.requests if r.role == "whatif.debate.judge#synthesis").prompt
    for asked in ("conclusions", "uncertain", "branch", "timeline", "adapt"):
        assert asked in synthesis, asked
    assert [r["round"] for r in rec["rounds"]] == [1, 2]


# -- 8. a neutral, blind judge ---------------------------------------------------------------------------
def test_rubric_has_the_papers_dimensions_and_weights():
    assert JUDGE_MAXIMA == PAPER_RUBRIC and list(JUDGE_MAXIMA) == list(PAPER_RUBRIC)
    assert sum(JUDGE_MAXIMA.values()) == RUBRIC_TOTAL == 100
    for key, points in PAPER_RUBRIC.items():
        assert f"- {key} (0-{points}):" in rubric_text()
        assert Judgement.model_json_schema()["properties"][key]["maximum"] == points


def test_rubric_uses_no_methods_vocabulary():
    text = " ".join(d.description for d in RUBRIC).lower()  # the keys are the paper's dimension names
    words = [s.lower() for s in REPORT_SECTIONS] + [
        "numbered assumption", "minimal change", "minimal-change", "decision table", "decision rule", "branch",
        "signs and strengths", "calibrat", "scenario", "critic", "debate", "pro/con", "variant", "expert", "panel",
        "consensus", "conflict", "shared frame", "tree", "verdict"]
    assert [w for w in words if w in text] == []


def test_weights_are_applied_to_float_scores(run_whatif, fake_server, wsettings):
    rec = run_whatif(method="single")
    scores = {"rigor_traceability": 22.5, "integration_causality": 21.25, "feasibility_minimality": 17.5,
              "uncertainty_adaptation": 12.75, "decisionability": 13.0}
    fake_server.add_rule("whatif.judge", {**scores, "overall": 87.0, "rationale": "ok"}, "judge.float")
    fake_server.reset()
    result = judge_record(rec, wsettings)
    assert result["overall"] == pytest.approx(87.0) and not result["overall_mismatch"]
    assert {k: result[k] for k in scores} == scores
    sent = fake_server.requests[0].body["messages"][0]["content"]
    assert all(f"{d.key} (0-{d.max_points})" in sent for d in RUBRIC)


@pytest.mark.parametrize("text", [
    "IF-World concludes", "IFWorld concludes", "ifworld concludes", "IF World concludes", "If-world concludes",
    "I\u200bF\u2011World concludes", "ＩＦ-ＷＯＲＬＤ concludes", "**IF**-*World* concludes", "IF_World concludes",
    "## The Tree Search answer", "TREE-SEARCH concludes", "tree of thoughts concludes", "Tree-of-Thought concludes",
    "ToT concludes", "As the DEBATE JUDGE I conclude", "DebateJudge concludes", "the Debate-Judge concludes",
    "PRO:\nthe effects are large", "Round 2 CON: small", "### Pro side", "**Con:** small", "- pro: big",
    "Step 2: assuming fast onset (critic score 7/10)", "critic-scorer says 8", "Agent role: whatif.tree.draft",
    "As a single agent I conclude", "Single-Agent concludes", "baseline concludes", "Debater-Pro/Con concludes",
])
def test_blinding_removes_adversarial_method_names(text):
    out = blind(text).lower()
    for name in ("ifworld", "if-world", "if world", "if_world", "tree", "thought", "tot ", "debate", "judge",
                 "pro:", "con:", "pro side", "critic", "score", "whatif", "single", "agent", "baseline", "/10"):
        assert name not in out.replace("[redacted]", ""), (text, out)


def test_blinding_leaves_plain_english_alone():
    for text in ("Even if world markets adapt, prices rise.", "Conclusion: prices rise.", "Programme costs: 5 bn.",
                 "a pro-active policy", "Confidence: 60 %"):
        assert blind(text) == text


def test_every_method_is_given_whole_and_blinded_alike(run_whatif, fake_server):
    """No character cap: the judge is given each method's whole text (its window decides, alike for all)."""
    long = "IF-World and tree search agree. " * 2_000 + "\n\nLast words of the analysis."
    texts = {}
    for method in ("single", "tree", "debate"):
        rec = run_whatif(method=method, **({"breadth": 1, "depth": 1} if method == "tree" else {}),
                         **({"debate_rounds": 1} if method == "debate" else {}))
        rec["report"] = natural_report(long, PROP, [])
        texts[method] = analysis_text(rec)
    rec = run_whatif(rounds=1, experts=["physics", "economics"])
    rec["report"]["consistency_checks"]["residual_disagreements"] = ["Last words of the analysis."]
    rec["report"]["core_conclusions"].append(long)  # IF-World's report, made long (the judge re-renders it)
    texts["ifworld"] = analysis_text(rec)
    assert all(len(t) > 60_000 and t.rstrip().endswith("Last words of the analysis.") for t in texts.values())
    assert all("if-world" not in t.lower() and "tree search" not in t.lower() for t in texts.values())


# -- the ablation topic ------------------------------------------------------------------------------------
def test_ablation_topic_and_variants_are_wired_into_eval(fake_server, wsettings, store):
    assert resolve_propositions("ablation") == [ABLATION_PROPOSITION]
    assert PAPER_ABLATION_TOPIC in ABLATION_PROPOSITION
    assert set(resolve_methods("ablation")) == TABLE_3_VARIANTS
    res = run_eval("ifworld,ifworld:no_conflict", "ablation", 1, wsettings, store=store, base_params=SMALL_IFWORLD)
    assert set(res.scores["proposition"]) == {ABLATION_PROPOSITION}
    assert list(res.ablation.index) == ["ifworld", "ifworld:no_conflict"] and "delta_vs_full" in res.ablation


def test_no_prompt_a_baseline_or_the_judge_sees_names_a_method() -> None:
    """The shared system text and the baselines' and judge's prompts never name IF-World (the paper's own
    prefix, §A.1, does not): a baseline told it is "inside IF-World" is not a blind baseline."""
    import yaml

    from ifworld.resources import prompts_dir

    for name in ("common", "single", "tree_draft", "tree_expand", "tree_critic", "debate_side", "debate_judge",
                 "judge"):
        text = str(yaml.safe_load((prompts_dir() / "whatif" / f"{name}.yaml").read_text(encoding="utf-8")))
        for method in ("if-world", "ifworld", "if world"):
            assert method not in text.lower(), (name, method)
