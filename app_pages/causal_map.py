"""Causal map: the merged causal graph of a what-if run — filter it, find drivers and feedback loops."""

import networkx as nx
import pandas as pd
import streamlit as st

from ifworld import whatif
from ifworld.toolkit import human_columns, inert_figure, inert_markdown
from ifworld.whatif import RecordError, load_record
from ui.charts import show_chart
from ui.common import current_run, follow_run_link, set_current_run, show_run_link, store

st.title("🕸️ Causal map")
st.caption("Every expert's causal edges (all rounds) merged with the report's map. Node colour = domain, "
           f"{whatif.causal_legend()}. Hover for mechanisms and who said it.")
follow_run_link()  # ?run=ID opens that run (an unknown id is reported, not followed)


@st.cache_data(max_entries=32, show_spinner=False)
def run_graph(run_id: str, updated: float) -> nx.DiGraph:
    """The run's merged causal graph (cached per run version; ``updated`` busts the cache). The stored record
    is validated here, once (a malformed one raises :class:`RecordError` naming the run and field)."""
    return whatif.build_causal_graph(load_record(store().get_run(run_id).record, run_id))


@st.cache_resource(max_entries=16, show_spinner=False)
def run_view(run_id: str, updated: float, domains: tuple[str, ...], min_strength: int, cross_only: bool,
             show_cycles: bool, show_cross: bool, seed: int) -> dict:
    """The filtered view and everything drawn from it, built once per run version and filter setting: the map
    figure alone took 1.2 s of a 2.7 s switch between runs. Shared read-only (a cache resource, not copied:
    un-pickling a Plotly figure would validate it all over again)."""
    view = whatif.filter_graph(run_graph(run_id, updated), list(domains), min_strength, cross_only)
    loops = whatif.feedback_loops(view)
    heat = whatif.domain_heatmap(whatif.graph_domain_edges(view))
    return {"view": view, "loops": loops,
            "figure": inert_figure(whatif.causal_figure(view, show_cycles, show_cross, seed=seed, loops=loops)),
            "heat": heat and inert_figure(heat),
            "influential": human_columns(pd.DataFrame(whatif.influential_nodes(view, top=15)).drop(
                columns=["node"], errors="ignore")),
            "edges": human_columns(whatif.edge_rows(view))}


def has_edges(run_id: str) -> bool:
    try:
        return run_graph(run_id, by_id[run_id].updated).number_of_nodes() > 0
    except RecordError:
        return False


def pick(run_id: str) -> None:
    st.session_state["causal_pick"] = run_id


saved = [i for i in store().list_runs("whatif") if whatif.has_content(i.record)]
if not saved:
    st.info("No finished what-if run yet. Run one on the What-if page (or open the Runs page) and come back.")
    st.page_link("app_pages/whatif.py", label="Start a what-if run", icon="🌋")
    st.stop()
ids = [i.id for i in saved]
by_id = {i.id: i for i in saved}
newest_mapped = next((r for r in ids if has_edges(r)), None)
looking_at = current_run()  # the run the user was looking at (Runs page, What-if page, a link) comes first
if looking_at != st.session_state.get("causal_followed") or "causal_pick" not in st.session_state:
    st.session_state["causal_followed"] = looking_at
    if looking_at in ids:
        pick(looking_at)
    else:
        if looking_at:
            st.info(f"The run you were looking at (`{inert_markdown(looking_at)}`) has no causal map: it is not a "
                    "finished what-if run. Showing the newest run that has one.")
        pick(newest_mapped or ids[0])
run_id = st.selectbox("Run", ids, key="causal_pick",
                      format_func=lambda r: f"{by_id[r].title} · {by_id[r].created_iso[:16]} · {r}")
info = by_id[run_id]
st.session_state["causal_followed"] = run_id
set_current_run(run_id)
show_run_link(run_id, "causal_map")

try:
    graph = run_graph(run_id, info.updated)
except RecordError as exc:
    st.error(f"Cannot draw this run's causal map: {exc}.")
    st.stop()
if graph.number_of_nodes() == 0:
    st.info("This run recorded no causal edges (a baseline's answer, or a run without experts).")
    if newest_mapped and newest_mapped != run_id:
        other = by_id[newest_mapped]
        st.button(f"Show the newest run with a causal map: {other.title[:80]} · {other.created_iso[:16]}",
                  key="causal_newest", on_click=pick, args=(newest_mapped,), icon="🕸️")
    st.stop()

with st.form("causal_filters"):
    f1, f2 = st.columns([3, 1])
    all_domains = whatif.domains_of(graph)
    domains = f1.multiselect("Domains", all_domains, default=all_domains, key=f"causal_domains_{run_id}")
    min_strength = f2.select_slider("Min strength", [1, 2, 3], value=1, key="causal_min_strength")
    t1, t2, t3, t4 = st.columns(4)
    cross_only = t1.toggle("Cross-domain edges only", key="causal_cross_only")
    show_cross = t2.toggle("Highlight cross-domain", value=True, key="causal_show_cross")
    show_cycles = t3.toggle("Highlight feedback loops", value=True, key="causal_show_cycles")
    seed = t4.number_input("Layout seed", 0, 999, 0, key="causal_seed")
    st.form_submit_button("Apply")

drawn = run_view(run_id, info.updated, tuple(domains), int(min_strength), bool(cross_only), bool(show_cycles),
                 bool(show_cross), int(seed))
view, loops = drawn["view"], drawn["loops"]
m1, m2, m3, m4 = st.columns(4)
m1.metric("Nodes", view.number_of_nodes())
m2.metric("Edges", view.number_of_edges())
m3.metric("Cross-domain edges", sum(1 for *_, d in view.edges(data=True) if d.get("cross_domain")))
m4.metric("Feedback loops", len(loops))
show_chart(drawn["figure"], key="causal_fig", edges=whatif.edge_rows(view))

heat = drawn["heat"]
if heat is not None:
    st.markdown("#### Cross-domain causal integration")
    st.caption(f"Domain × domain: net sign × strength of the links from a cause's domain (row) to an effect's "
               f"domain (column); {whatif.heatmap_legend()}; the number in brackets counts the links.")
    show_chart(heat, key="causal_heat")

left, right = st.columns(2)
with left:
    st.markdown("#### Most influential nodes")
    st.caption("Ranked by strength-weighted out-degree (how much they drive), then PageRank.")
    st.dataframe(drawn["influential"], hide_index=True, width="stretch")
with right:
    st.markdown("#### Feedback loops")
    st.caption(f"Simple cycles up to {whatif.MAX_CYCLE_LENGTH} nodes (at most {whatif.MAX_CYCLES}); "
               "an even number of − edges reinforces, an odd number balances.")
    if loops:
        st.dataframe(pd.DataFrame([{"Loop": " → ".join([*lp["labels"], lp["labels"][0]]), "Kind": lp["kind"],
                                    "Length": lp["length"], "Min strength": lp["strength"],
                                    "Cross-domain": lp["cross_domain"]} for lp in loops]),
                     hide_index=True, width="stretch")
    else:
        st.caption("No feedback loops in this view.")

with st.expander(f"All edges ({view.number_of_edges()})"):
    st.dataframe(drawn["edges"], hide_index=True, width="stretch")
