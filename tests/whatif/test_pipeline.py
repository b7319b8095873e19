"""The IF-World graph against the fake server: record shape, events, ablations, faults, resume, cache."""

from __future__ import annotations

import pytest

from ifworld import llm, runs
from ifworld.whatif import METHOD_REGISTRY, consistency, estimate_calls, service
from ifworld.whatif.experts import DEFAULT_EXPERTS
from ifworld.whatif.params import RECORD_KEYS, default_params
from tests.whatif.conftest import PROP, SMALL

EXPERT_RE = r"Agent role: whatif\.expert"


def test_full_run_record_and_events(run_whatif, fake_server):
    events = []
    rec = run_whatif(events=events)
    assert set(RECORD_KEYS) <= set(rec)
    assert rec["method"] == "ifworld" and rec["scenario"]["expert_plan"] and rec["judge"] is None
    assert [r["round"] for r in rec["rounds"]] == [1, 2]
    for r in rec["rounds"]:
        assert set(r["experts"]) == set(SMALL) and r["failed"] == {}
        assert r["frame"]["text"] and r["frame"]["round"] == r["round"]
        for out in r["experts"].values():
            assert {"verdict", "key_causal_edges", "causal_matrix", "calibration", "trace"} <= set(out)
    assert set(rec["rounds"][0]["debate"]) == {"pro", "con", "brief"} and rec["rounds"][1]["debate"] is None
    assert [d["round"] for d in rec["frame_diffs"]] == [1, 2]
    diff_keys = {"consensus_gained", "conflicts_resolved", "branches_added", "branches_dropped"}
    assert set(rec["frame_diffs"][1]) >= diff_keys
    report = rec["report"]
    assert report["markdown"].startswith(f"# {PROP}\n\n**Verdict.**") and report["alignment"]["consensus"]
    # one scenario structure: the final synthesis' branches (ids, probabilities) are the report's branches
    final = rec["rounds"][-1]["synthesis"]["branches"]
    assert [(b["id"], b["probability_pct"]) for b in report["scenarios"]] == \
        [(b["id"], b["probability_pct"]) for b in final]
    cc = report["consistency_checks"]
    assert [c["passed"] for c in cc["checks"]] == [True] * len(consistency.CHECKS)
    assert cc["violations"] == cc["repaired"] == []
    assert report["causal_map"]["nodes"] and report["causal_map"]["edges"]
    assert len(rec["calls"]) == estimate_calls(rec["params"]) == fake_server.count()
    call = rec["calls"][0]
    assert {"role", "round", "start", "end", "prompt_tokens", "completion_tokens", "status"} <= set(call)
    assert rec["usage"]["calls"] == len(rec["calls"]) and rec["usage"]["prompt_tokens"] > 0
    kinds = [e.data.get("kind") for e in events if e.type == "progress"]
    for kind in ("phase", "expert_started", "expert_done", "round_done", "frame_built", "report_done"):
        assert kind in kinds
    phases = {(e.data["phase"], e.data["round"]) for e in events if e.data.get("kind") == "phase"}
    assert {("refine", 0), ("experts", 1), ("synthesis", 1), ("experts", 2), ("report", 2)} <= phases
    built = [e.data for e in events if e.data.get("kind") == "frame_built"]
    assert built[0]["frame"]["text"] and "consensus_gained" in built[0]["diff"]


def test_round_two_sees_frame_and_prompts_stay_bounded(run_whatif, fake_server):
    sizes = {}
    for n, experts in ((3, SMALL), (9, None)):
        fake_server.reset()
        run_whatif(experts=experts or list(DEFAULT_EXPERTS))
        r2 = [r for r in fake_server.requests if r.role == "whatif.expert" and "Round 2." in str(r.body)]
        assert len(r2) == n and all("<shared_frame>" in str(r.body) for r in r2)
        sizes[n] = max(len(str(r.body["messages"][-1]["content"])) for r in r2)
    assert sizes[9] <= 1.1 * sizes[3]


@pytest.mark.parametrize("switch, absent, present", [
    ("no_debate", ["whatif.debate"], ["whatif.resolver"]),
    ("no_conflict", ["whatif.resolver"], ["whatif.debate.pro"]),
    ("no_refine", ["whatif.refiner"], ["whatif.resolver"]),
    ("no_shared_frame", ["whatif.resolver", "whatif.debate"], ["whatif.expert"]),
])
def test_ablation_switches_change_the_graph(run_whatif, fake_server, switch, absent, present):
    rec = run_whatif(**{switch: True})
    for role in absent:
        assert fake_server.count(role) == 0
    for role in present:
        assert fake_server.count(role) > 0
    assert fake_server.count() == estimate_calls(rec["params"]) and rec["report"]["markdown"]
    r2 = [r for r in fake_server.requests if r.role == "whatif.expert" and "Round 2." in str(r.body)]
    assert all(("<shared_frame>" in str(r.body)) == (switch != "no_shared_frame") for r in r2)
    if switch == "no_refine":
        assert rec["scenario"] is None
    if switch == "no_debate":
        assert rec["rounds"][0]["debate"] is None


def test_two_experts_one_round_variant(run_whatif, fake_server):
    rec = run_whatif(experts=["physics", "economics"], rounds=1)
    assert len(rec["rounds"]) == 1 and fake_server.count("whatif.debate") == 0
    assert fake_server.count("whatif.expert") == 2 and rec["report"]["alignment"]["consensus"]


def test_failed_expert_degrades_and_run_completes(run_whatif, fake_server):
    fake_server.inject("500", times=10, match="You are the medicine expert")
    rec = run_whatif()
    assert "medicine" in rec["rounds"][0]["failed"] and "medicine" not in rec["rounds"][0]["experts"]
    assert rec["degraded"] and any("medicine" in d for d in rec["degraded"])
    assert rec["rounds"][0]["frame"]["degraded"] == ["medicine"]
    assert "## Degraded steps" in rec["report"]["markdown"]


def test_failed_refiner_fails_run_then_resumes(wsettings, store, fake_server):
    fake_server.inject("500", times=1, role="whatif.refiner")
    params = default_params(PROP, experts=SMALL)
    run_id = runs.start_run("whatif.ifworld", params, store=store)
    with pytest.raises(runs.RunFailed, match="problem refiner failed"):
        service.run(params, settings=wsettings, store=store, run_id=run_id)
    assert store.get_run(run_id).status == "failed"
    fake_server.clear_faults()
    rec = service.run(params, settings=wsettings, store=store, run_id=run_id)
    assert store.get_run(run_id).status == "completed" and rec["report"]["markdown"]
    assert fake_server.count("whatif.refiner") == 1 and fake_server.count("whatif.expert") == 6


def test_resume_after_resolver_failure_does_not_resend_finished_calls(wsettings, store, fake_server):
    fake_server.inject("500", times=1, role="whatif.resolver")
    params = default_params(PROP, experts=SMALL)
    run_id = runs.start_run("whatif.ifworld", params, store=store)
    with pytest.raises(runs.RunFailed, match="conflict resolver failed in round 1"):
        service.run(params, settings=wsettings, store=store, run_id=run_id)
    assert fake_server.count("whatif.expert") == 3
    pro_before = fake_server.count("whatif.debate.pro")
    rec = service.run(params, settings=wsettings, store=store, run_id=run_id)
    assert fake_server.count("whatif.expert") == 6  # round-1 experts were not re-sent
    assert fake_server.count("whatif.refiner") == 1 and fake_server.count("whatif.debate.pro") == pro_before
    assert rec["rounds"][0]["synthesis"] and len(rec["rounds"]) == 2


def test_malformed_json_is_repaired(run_whatif, fake_server):
    fake_server.inject("malformed", times=1, match="You are the physics expert")
    rec = run_whatif(rounds=1)
    assert rec["degraded"] == [] and rec["rounds"][0]["experts"]["physics"]["verdict"]
    assert fake_server.count("whatif.expert") == 4  # 3 experts + one repair turn


def test_malformed_twice_degrades_expert(run_whatif, fake_server):
    fake_server.inject("malformed", times=2, match="You are the physics expert")
    rec = run_whatif(rounds=1)
    assert "physics" in rec["rounds"][0]["failed"] and "not valid JSON" in rec["rounds"][0]["failed"]["physics"]


def test_cache_reuses_identical_runs(run_whatif, fake_server):
    first = run_whatif(cache=True, rounds=1)
    n = fake_server.count()
    second = run_whatif(cache=True, rounds=1)
    assert fake_server.count() == n and second["report"] == first["report"]


@pytest.mark.parametrize("method, overrides, roles", [
    ("single", {}, {"whatif.single": 1}),
    ("tree", {"breadth": 2, "depth": 1}, {"whatif.tree.draft": 1, "whatif.tree.expand": 2, "whatif.tree.critic": 3}),
    ("debate", {"debate_rounds": 2},
     {"whatif.debate.pro": 2, "whatif.debate.con": 2, "whatif.debate.judge#synthesis": 1}),
])
def test_baselines_same_record_shape(run_whatif, fake_server, method, overrides, roles):
    rec = run_whatif(method=method, **overrides)
    assert set(RECORD_KEYS) <= set(rec) and rec["method"] == method
    report = rec["report"]
    # each method's natural output, not IF-World's schema: the judge reads what the method wrote
    assert report["natural"] and report["markdown"].startswith(f"# {PROP}\n\n") and "**Short answer.**" in \
        report["markdown"] and report["scenarios"] == [] and report["consistency_checks"]["checks"] == []
    if method == "tree":  # Appendix B.3: the best leaf's answer only — no path, no critic scores
        assert "critic score" not in report["markdown"] and "## Step" not in report["markdown"]
    for role, n in roles.items():
        assert fake_server.count(role) == n
    assert fake_server.count() == estimate_calls(rec["params"])
    if method == "debate":
        assert [r["debate"]["pro"] != "" for r in rec["rounds"]] == [True, True]
    if method == "tree":
        assert rec["best_path"][0] == "0" and len(rec["tree"]) == 3


@pytest.mark.parametrize("method", METHOD_REGISTRY.names())
def test_report_language_follows_one_rule_stated_once(run_whatif, fake_server, method):
    """Issue #30 item 9: the rule is in the shared system text, the chosen language right after the proposition,
    for every method and every call alike."""
    run_whatif(method=method, rounds=1, experts=SMALL[:2], language="Français", breadth=1, depth=1, debate_rounds=1)
    sent = [r for r in fake_server.requests if r.path.endswith("/chat/completions")]
    for r in sent:
        system, user = r.body["messages"][0]["content"], r.body["messages"][-1]["content"]
        assert system.count("language the proposition is written in") == 1, r.role
        assert "</proposition>" in user and "Answer language: Français" in user, r.role
        assert user.count("language") <= 2 and "Report language" not in user, r.role


def test_failed_report_analysis_stands_in_with_the_experts_rows(run_whatif, fake_server):
    fake_server.inject("500", times=10, role="whatif.report#analysis")
    rec = run_whatif(rounds=1)
    experts = rec["rounds"][0]["experts"].values()
    report = rec["report"]
    assert any(d.startswith("report analysis writer failed") for d in rec["degraded"])
    assert "not a cross-domain synthesis" in report["markdown"] and "## Degraded steps" in report["markdown"]
    own_rows = [r["constraint"] for o in experts for r in o["feasibility_table"]]
    assert own_rows and [r["constraint"] for r in report["feasibility_table"]] == own_rows
    assert report["causal_matrix"]  # from the experts' edges


def test_failed_report_scenarios_use_the_adjudicated_branches(run_whatif, fake_server):
    fake_server.inject("500", times=10, role="whatif.report#scenarios")
    rec = run_whatif(rounds=1)
    branches = rec["rounds"][0]["synthesis"]["branches"]
    assert branches and [s["id"] for s in rec["report"]["scenarios"]] == [b["id"] for b in branches]
    assert any(d.startswith("report scenarios writer failed") for d in rec["degraded"])


def test_failed_report_core_stops_the_run(wsettings, store, fake_server):
    fake_server.inject("500", times=10, role="whatif.report#core")
    params = default_params(PROP, experts=SMALL, rounds=1)
    with pytest.raises(runs.RunFailed, match=r"report writer \(core\) failed"):
        service.run(params, settings=wsettings, store=store)


@pytest.mark.parametrize("method", METHOD_REGISTRY.names())
def test_every_progress_event_of_every_method_has_its_typed_payload(run_whatif, method):
    """The live view validates each what-if progress event; one without its payload (a baseline's
    ``expert_done`` without an output, once) would stop the page mid-run."""
    from ifworld.whatif.records import PROGRESS_KINDS, BaselineStepDone, ExpertDone, parse_progress

    events = []
    run_whatif(method, events=events, rounds=1, breadth=2, depth=1, debate_rounds=1)
    data = [e.data for e in events if e.type == "progress" and e.data.get("kind") in PROGRESS_KINDS]
    typed = [parse_progress(d) for d in data]  # raises on a payload that does not fit its kind
    assert typed and all(p is not None for p in typed)
    done = [p for p in typed if isinstance(p, ExpertDone | BaselineStepDone)]
    spec = METHOD_REGISTRY.get(method)
    one_call = spec.call("estimate", default_params(PROP, method, experts=SMALL, rounds=1, breadth=2, depth=1,
                                                    debate_rounds=1)) == 1
    assert bool(done) == (not one_call), f"{method}: finished experts or steps {done}"  # one call: nothing between
    if spec.baseline:
        assert all(isinstance(p, BaselineStepDone) and p.text for p in done)
    else:
        assert all(isinstance(p, ExpertDone) and p.output.verdict for p in done)


def test_report_parts_cut_at_the_bound_keep_what_they_finished(wsettings, store, fake_server):
    bounded = wsettings.model_copy(update={"role_max_tokens": {"whatif.report": 60}})  # 240, then 480 characters
    rec = service.run(default_params(PROP, experts=SMALL, rounds=1), settings=bounded, store=store)
    report, calls = rec["report"], [c for c in rec["calls"] if c["role"] == "whatif.report"]
    assert calls and all(c["status"] == "truncated" for c in calls)
    kept = [c for c in calls if llm.KEPT_NOTE in (c["error"] or "")]
    assert kept, "no report part had a complete prefix to keep"
    assert {d for d in rec["degraded"] if llm.KEPT_NOTE in d} == {c["error"] for c in kept}
    assert report["core_conclusions"] or report["summary_bullets"]  # the core part's finished items
    assert report["degraded"] == rec["degraded"] and llm.KEPT_NOTE in report["markdown"].split("## Degraded steps")[1]
