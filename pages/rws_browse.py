"""Placeholder until its issue lands."""

import streamlit as st

from ui.common import coming_soon

st.title("RWS browse")
coming_soon("RWS browse")
