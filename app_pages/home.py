"""Landing page: the three tools in two lines each, with links."""

import streamlit as st

st.title("🌍 IF-World Studio")
st.caption("What-if exploration, belief exchange and heliophysics reasoning — for classrooms, workshops and labs.")

col1, col2, col3 = st.columns(3)
with col1:
    st.subheader("🌋 What-if scenarios")
    st.write("Turn a vague counterfactual into a structured scenario analysed by a panel of domain experts. "
             "Get a decision-ready report with calibrated ranges, a decision table and a causal map.")
    st.page_link("app_pages/whatif.py", label="Start a what-if run", icon="➡️")
with col2:
    st.subheader("🗣️ Belief exchange")
    st.write("Watch a population of agents trade true and false facts pairwise and try to rebuild the truth. "
             "Simulate, sweep parameters and animate the exchange — no model needed.")
    st.page_link("app_pages/beliefs.py", label="Run a simulation", icon="➡️")
with col3:
    st.subheader("☀️ Reasoning With a Star")
    st.write("Browse heliophysics questions with their worked solutions and grade answers with units and LaTeX. "
             "Benchmark five agentic answer patterns against each other.")
    st.page_link("app_pages/rws_browse.py", label="Browse questions", icon="➡️")

st.divider()
st.page_link("app_pages/runs.py", label="Saved runs: reopen, replay, compare, export", icon="🗂️")
