"""The built-in what-if methods: IF-World (the paper's method, §2) and the single, tree and debate baselines
(§3.1, Appendix B), registered in :data:`ifworld.whatif.methods.REGISTRY` in this order.

Their graphs live in :mod:`ifworld.whatif.graph` and :mod:`ifworld.whatif.baselines`, their estimates in
:mod:`ifworld.whatif.estimates`; the specs name them as ``"module:attr"`` strings, so reading the registry loads
no LangGraph and this module imports nothing but the spec. Tokens per call were measured against gpt-4o-mini on
the paper's propositions (IF-World 27 calls / 88k tokens, single 1 / 3.6k, tree 14 / 40k, debate 5 / 6.3k).
"""

from __future__ import annotations

from ifworld.whatif.method_spec import REGISTRY, MethodBudget, MethodSpec, ParamField

GRAPH, BASELINES, STEPS = "ifworld.whatif.graph", "ifworld.whatif.baselines", "ifworld.whatif.steps"
EST = "ifworld.whatif.estimates"
SWITCHES = ("no_debate", "no_conflict", "no_shared_frame", "no_refine")
# Upper bounds of the baselines' size parameters (each call multiplies: tree ≈ 2·breadth·depth calls).
MAX_BREADTH = 6
MAX_DEPTH = 4
MAX_DEBATE_ROUNDS = 6
TREE_PARAMS = {
    # Appendix B.3's breadth of 3 (a matched budget keeps it and grows the depth)
    "breadth": ParamField(default=3, ge=1, le=MAX_BREADTH, label="Tree breadth",
                          help="Tree baseline: variants per level."),
    "depth": ParamField(default=2, ge=1, le=MAX_DEPTH, label="Tree depth", help="Tree baseline: levels."),
}
REPORT_WORDS = {"report_core": "Writing the report", "report_analysis": "Writing the report",
                "report_scenarios": "Writing the report"}


# -- the four built-in methods, in the paper's order ---------------------------------------------------------
REGISTRY.register(MethodSpec(
    name="ifworld", label="IF-World (panel + shared frame)", baseline=False, in_paper=True,
    help="The paper's method: a refiner structures the proposition, a panel of domain experts reasons over rounds, "
         "a conflict resolver and a pro/con debate build the shared frame of the next round, a report generator "
         "writes a decision-centric report.",
    switches=SWITCHES, options=("extend_panel", "expert_memory"), size_params=("experts", "rounds"),
    # the one declaration of the number of deliberation rounds: page, CLI, validation and record read it here
    params={"rounds": ParamField(default=2, ge=1, le=6, label="Rounds", help="Expert rounds (IF-World).")},
    loop_params=("rounds",),
    tokens_per_call=3_320, calls_per_round="1 + experts × rounds + 4 between rounds + 4 at the end",
    build=f"{GRAPH}:build", initial=f"{GRAPH}:initial", finalize=f"{GRAPH}:finalize",
    estimate="ifworld.whatif.params:ifworld_calls", describe=f"{EST}:ifworld_text", step_namer=f"{STEPS}:label_ifworld",
    node_calls={"refine": 1, "expert": 1, "resolve": 1, "final_resolve": 1, "debate_pro": 1, "debate_con": 1,
                "debate_judge": 1, "report_core": 1, "report_analysis": 1, "report_scenarios": 1},
    step_labels={
        "refine": "Refining the scenario", "review": "Waiting for the review", "facilitate": "Waiting for the room",
        "start_round": "Round {round} — starting", "collect": "Round {round} — collecting the experts",
        "resolve": "Round {round} — resolving conflicts", "final_resolve": "Resolving the last round's conflicts",
        "debate_pro": "Round {round} — pro/con debate", "debate_con": "Round {round} — pro/con debate",
        "debate_judge": "Round {round} — judging the debate", "frame": "Building the shared frame for the next round",
        **REPORT_WORDS, "assemble": "Checking the report's consistency"},
    report_nodes=("report_",), blind_words=("ifworld", "ifworlds"),
))
REGISTRY.register(MethodSpec(
    name="single", label="Single agent", in_paper=True,
    help="One model call writes the whole report (Appendix B.1); unmatched by any token budget.",
    tokens_per_call=3_600, calls_per_round="1",
    build=f"{BASELINES}:build_single", initial=f"{BASELINES}:initial", finalize=f"{BASELINES}:finalize_single",
    estimate=f"{EST}:single_calls", describe=f"{EST}:single_text", step_namer=f"{STEPS}:label_single",
    node_calls={"single": 1}, step_labels={"single": "The single agent is writing its answer"},
    report_label="Single agent answer", report_nodes=("single",),
    blind_words=("single agent", "singleagent", "single expert"),
))
REGISTRY.register(MethodSpec(
    name="tree", label="Tree of thoughts", in_paper=True,
    help="Tree-of-thoughts search (Appendix B.3): drafts, variants of the best leaf scored by a critic, the best "
         "leaf's answer; its size follows a token budget.",
    options=("tree_angles",), size_params=("breadth", "depth"), params=TREE_PARAMS, loop_params=("depth",),
    tokens_per_call=2_860,
    calls_per_round="2 + 2 × breadth per step",
    budget=MethodBudget(step_param="depth", unit="expansion steps", calls_per_step=2, fixed_calls=2, ceiling=40,
                        per_branch=True),
    build=f"{BASELINES}:build_tree", initial=f"{BASELINES}:initial", finalize=f"{BASELINES}:finalize_tree",
    max_steps=f"{BASELINES}:max_steps", estimate=f"{EST}:tree_calls", describe=f"{EST}:tree_text",
    step_namer=f"{STEPS}:label_tree",
    node_calls={"draft": 2, "expand": 2},
    step_labels={"draft": "Tree search — drafting", "expand": "Tree search — step {round}: expanding the best leaf",
                 "select": "Tree search — picking the best leaf", "finish": "Tree search — final answer"},
    report_label="Tree search — best leaf's answer", report_nodes=("finish",),
    blind_words=("tree of thoughts", "tree of thought", "tree search", "tree searches", "treesearch", "search tree",
                 "tree search draft", "critic scorer", "critic score", "critic scores", "the critic", "tot"),
))
REGISTRY.register(MethodSpec(
    name="debate", label="Debate", in_paper=True,
    help="Pro/Con multi-agent debate (Appendix B.2) over rounds, then a judge's synthesis; its size follows a "
         "token budget.",
    options=("debate_history",), size_params=("debate_rounds",), loop_params=("debate_rounds",),
    params={"debate_rounds": ParamField(default=2, ge=1, le=MAX_DEBATE_ROUNDS, label="Debate rounds",
                                        help="Debate baseline: Pro/Con rounds.")},
    tokens_per_call=1_260,
    calls_per_round="2 per round + 1",
    budget=MethodBudget(step_param="debate_rounds", unit="rounds", calls_per_step=2, final_calls=1, ceiling=60),
    build=f"{BASELINES}:build_debate", initial=f"{BASELINES}:initial", finalize=f"{BASELINES}:finalize_debate",
    max_steps=f"{BASELINES}:max_steps", estimate=f"{EST}:debate_calls", describe=f"{EST}:debate_text",
    step_namer=f"{STEPS}:label_debate", node_calls={"debate_pro": 1, "debate_con": 1, "synthesis": 1},
    step_labels={"turn": "Debate — next turn", "synthesis": "Debate — the judge's synthesis"},
    report_label="Debate — judge's synthesis", report_nodes=("synthesis",),
    blind_words=("debate judge", "debatejudge", "debater", "debaters", "debate", "debates", "debated",
                 "judge's synthesis", "pro con"),
))
