"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("The belief sweep")
coming_soon("The belief sweep")
