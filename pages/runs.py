"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("The runs browser")
coming_soon("The runs browser")
