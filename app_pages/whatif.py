"""What-if: pose a counterfactual, watch the expert panel reason round by round, read the report."""

from typing import Any

import streamlit as st

from ifworld import whatif
from ifworld.toolkit import CONFIRM_CALLS, confirmation_message, needs_confirmation
from ui import custom_experts_view, whatif_session
from ui.common import model_ready, show_error, store
from ui.identity import caller

CRISIS_PRESETS = [
    "What if a major river flood cut our town's two bridges for three weeks?",
    "What if the regional hospital's IT systems were locked by ransomware for ten days?",
    "What if fuel deliveries to the island stopped for a month?",
]
PRESETS = {f"📄 {p}": p for p in whatif.PAPER_PROPOSITIONS}
PRESETS[f"📄 Ablation topic (paper §3.4): {whatif.ABLATION_PROPOSITION}"] = whatif.ABLATION_PROPOSITION
PRESETS.update({f"🏫 {p}": p for p in whatif.CLASSROOM_PRESETS})
PRESETS.update({f"🚨 {p}": p for p in CRISIS_PRESETS})
METHODS = whatif.METHOD_REGISTRY  # IF-World and the baselines, in registry order (labels from their specs)
ABLATIONS = tuple(dict.fromkeys(sw for spec in METHODS for sw in spec.switches))  # labels: whatif.param_info
# each method's own parameters (rounds, breadth …): default, bounds, label and help declared once, in its spec
SIZES = whatif.size_fields()
LANGUAGES = ["auto", "English", "Deutsch", "Français", "Español", "Italiano", "Português", "Nederlands", "Polski",
             "中文", "日本語"]
ss = st.session_state
ss.setdefault("whatif_prop", whatif.PAPER_PROPOSITIONS[-1])
for _key, _default in {**{f"whatif_{n}": whatif.param_info(n)["default"] for n in SIZES}, "whatif_price": 0.0,
                       "whatif_budget": 0}.items():
    # defaults live in the session state, not on the widgets: keep_draft re-sets these keys on every rerun, and a
    # widget given both logged Streamlit's "default value … also set via the Session State API" stack trace
    ss.setdefault(_key, _default)
whatif_session.keep_draft()  # the form's values survive while a run is shown (else New what-if came back empty)


def use_preset() -> None:
    if ss.get("whatif_preset"):
        ss["whatif_prop"] = PRESETS[ss["whatif_preset"]]


def quick_preset() -> None:
    """Two experts that fit the proposition's topic (not always physics + chemistry), one round."""
    known = whatif.known_experts()
    ss["whatif_experts"] = [d for d in whatif.suggest_experts(ss.get("whatif_prop", ""), 2) if d in known]
    ss["whatif_custom"] = ", ".join(d for d in whatif.suggest_experts(ss.get("whatif_prop", ""), 2)
                                    if d not in known)
    ss["whatif_rounds"] = whatif.param_info("rounds")["min"]


def build_params() -> dict:
    custom = [c.strip() for c in ss.get("whatif_custom", "").split(",") if c.strip()]
    extra = {k: ss.get(f"whatif_{k}") for k in (*SIZES, "cache", "review", "pause_between_rounds", "language")}
    method = ss.get("whatif_method") or METHODS.names()[0]
    if method in METHODS and METHODS.get(method).budget is not None and ss.get("whatif_budget"):
        extra["budget_tokens"] = ss["whatif_budget"]
    return whatif.default_params(ss["whatif_prop"], method,
                                 experts=list(ss["whatif_experts"]) + custom,
                                 **{k: bool(ss.get(f"whatif_{k}")) for k in ABLATIONS}, **extra)


st.title("🌋 What-if")
st.caption("A panel of domain experts analyses a counterfactual over rounds, aligned by a shared frame; "
           "the result is a decision-ready report with calibrated ranges, scenarios and a causal map.")
# after the title: a store that cannot be opened stops the page here with its explanation, under the title
custom_experts_view.sync()  # the facilitator's own experts, offered like built-in ones
ss.setdefault("whatif_experts", whatif.default_experts()[:4])
ready = model_ready("a what-if analysis")


def size_input(container: Any, name: str) -> None:
    """The number input of a method's own parameter, as its spec declares it."""
    info = whatif.param_info(name)
    container.number_input(info["label"], info["min"], info["max"], key=f"whatif_{name}", help=info["help"] or None)


def toggle(container: Any, name: str) -> None:
    info = whatif.param_info(name)
    container.toggle(info["label"], key=f"whatif_{name}", help=info["help"] or None)


def draft_form() -> tuple[bool, bool]:
    """The new-run form (the draft state); returns (estimate clicked, start clicked)."""
    st.selectbox("Presets: 📄 paper · 🏫 classroom · 🚨 crisis planning", list(PRESETS), index=None,
                 key="whatif_preset", on_change=use_preset, placeholder="Pick a preset proposition…")
    st.button("⚡ Quick preset: 2 experts, 1 round", key="whatif_quick", on_click=quick_preset)
    with st.form("whatif_form"):
        # no max_chars: it silently cuts a long paste and the cut text would run; the engine says what is wrong
        st.text_area("Proposition", key="whatif_prop", height=90,
                     help=f"At most {whatif.MAX_PROPOSITION_CHARS:,} characters.")
        c1, c2 = st.columns([4, 1])
        c1.multiselect("Expert panel", whatif.known_experts(), key="whatif_experts")
        for name in (n for n, (_, method) in SIZES.items() if not METHODS.get(method).baseline):
            size_input(c2, name)  # the paper's method's own (rounds), beside its panel
        st.text_input("More domains (comma-separated, any field)", key="whatif_custom",
                      help="Any field of expertise, e.g. 'urban planning, epidemiology'; a domain the app does not "
                           "know gets a persona written from its name. The refiner may add up to two experts, "
                           "never remove yours.")
        m1, m2 = st.columns(2)
        m1.radio("Method", METHODS.names(), format_func=lambda m: METHODS.get(m).label, key="whatif_method")
        toggle(m1, "review")
        toggle(m1, "pause_between_rounds")
        with m2:
            st.caption("Ablations (IF-World only)")
            for k in ABLATIONS:
                toggle(st, k)
        st.selectbox("Report language", LANGUAGES, key="whatif_language",
                     format_func=lambda x: "Auto (the proposition's language)" if x == "auto" else x,
                     help="Text written by the models follows this language; headings stay English.")
        with st.expander("Baseline settings, price and cache"):
            baseline = [n for n, (_, method) in SIZES.items() if METHODS.get(method).baseline]
            *cols, b4 = st.columns(len(baseline) + 1)
            for col, name in zip(cols, baseline, strict=True):
                size_input(col, name)
            b4.number_input("Price per 1,000 tokens", 0.0, 100.0, step=0.001, format="%.4f",
                            key="whatif_price", help="Optional: shows the estimated cost of a run.")
            st.number_input("Token budget for tree / debate (0 = the sizes above)", 0, 5_000_000, step=5_000,
                            key="whatif_budget",
                            help="The tree or debate keeps adding steps until its tokens are within ±25 % of this "
                                 "budget, e.g. the tokens an IF-World run on the same proposition spent.")
            st.checkbox(whatif.param_info("cache")["label"], key="whatif_cache")
        st.checkbox(f"I confirm a run above {CONFIRM_CALLS:,} model calls (CONFIRM_CALLS)", key="whatif_confirm",
                    help="Needed only when the estimate exceeds CONFIRM_CALLS.")
        s1, s2 = st.columns(2)
        estimate = s1.form_submit_button("🧮 Apply and estimate")
        start = s2.form_submit_button("▶️ Start run", type="primary", disabled=not ready)
    custom_experts_view.render()
    return estimate, start


def saved_runs() -> None:
    with st.expander("📂 Open a saved what-if run", expanded=not ready):
        saved = [i for i in store().list_runs("whatif") if i.workflow.startswith("whatif.")]
        if saved:
            pick = st.selectbox("Saved run", [i.id for i in saved], key="whatif_saved", index=None,
                                format_func=lambda rid: next(f"{i.title} · {i.status} · {i.created_iso[:16]}"
                                                             for i in saved if i.id == rid))
            if st.button("Open", key="whatif_open", disabled=pick is None):
                whatif_session.open_run(pick)
                st.rerun()
        else:
            st.caption("No saved what-if runs yet.")
        st.page_link("app_pages/runs.py", label="Replay, compare or delete runs on the Runs page", icon="🗂️")
    waiting = [i for i in store().list_runs("whatif") if i.status in ("interrupted", "failed", "cancelled",
                                                                       "paused")]
    if waiting and st.button(f"⏯️ Open the newest unfinished run ({waiting[0].status}): {waiting[0].title[:60]}",
                             key="whatif_unfinished"):
        whatif_session.open_run(waiting[0].id)
        st.rerun()


run_id = whatif_session.requested_run()
if run_id:
    whatif_session.render(run_id, ready)
else:
    estimate, start = draft_form()
    try:
        params = build_params()
        size = whatif.estimate(params, ss.get("whatif_price") or None)
        st.caption(f"Estimate: **{size.text()}** ({whatif.describe(params)}).")
        if start and needs_confirmation(size.calls) and not ss.get("whatif_confirm"):
            st.warning(confirmation_message(size.calls))
            start = False
    except ValueError as exc:
        params = None
        if start or estimate:
            show_error(str(exc))
    if start and params:
        new_id = whatif.start_session(whatif.workflow_name(params["method"]), params, source="page", caller=caller(),
                                      store=store())
        whatif_session.drive(new_id, whatif.Action.START)
        whatif_session.open_run(new_id)
        st.rerun()
    saved_runs()
