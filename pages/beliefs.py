"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("Belief exchange")
coming_soon("Belief exchange")
