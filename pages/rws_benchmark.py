"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("The RWS benchmark")
coming_soon("The RWS benchmark")
