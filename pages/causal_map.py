"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("The causal map")
coming_soon("The causal map")
