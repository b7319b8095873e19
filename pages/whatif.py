"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("What-if")
coming_soon("What-if")
