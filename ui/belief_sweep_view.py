"""Belief-sweep widgets: the grid form (number lists and multiselects generated from BeliefConfig's fields), the
YAML grid, and the result tabs (Figures 1/2, Tables 1–6, image export). Split from :mod:`ui.beliefs_view`, which
keeps the parameter form, the round player, the paper and the Runs-page renderer."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import yaml

from ifworld import beliefs
from ifworld.beliefs import STRATEGIES, bounds_text, field_info, parse_grid, read_table
from ui.charts import show_chart

SWEEP_TEXT = {"agents": "10, 20", "false_facts": "1, 3", "bandwidth": "1, 3"}  # form starts as a small grid
SWEEP_CHOICES = {"strategy": list(STRATEGIES)}
"""Choice fields the form starts with several values of; any other starts with its default (rule, topology, …)."""
SWEEP_FIELDS = ("agents", "facts", "true_facts", "false_facts", "bandwidth", "rounds", "threshold", "stop_share",
                "liars", "noise", "degree", "strategy", "rule", "domain", "topology")


# ---------------------------------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------------------------------
def parse_numbers(text: str, cast: type, key: str) -> list[Any]:
    """``"10, 20"`` → [10, 20]; an error names the parameter."""
    out = []
    for part in str(text).replace(";", ",").split(","):
        if part.strip():
            try:
                out.append(cast(part.strip()) if cast is float else int(part.strip()))
            except ValueError:
                raise ValueError(f"{key}: {part.strip()!r} is not a{'n integer' if cast is int else ' number'}") \
                    from None
    if not out:
        raise ValueError(f"{key}: give at least one value")
    return out


def grid_from_form(values: dict[str, Any], seeds: int, runs: int, chunk: int,
                   design: str = "factorial") -> dict[str, Any]:
    """Grid mapping from the form: single values go to ``base``, lists of several to ``grid`` (for a
    one-at-a-time design the first value of a list is also the centre, in ``base``)."""
    base, grid = {}, {}
    for key, value in values.items():
        if not value:
            raise ValueError(f"{key}: choose at least one value")
        if len(value) > 1:
            grid[key] = list(value)
            if design == "one_at_a_time":
                base[key] = value[0]
        else:
            base[key] = value[0]
    return {"base": base, "grid": grid, "design": design, "repeats": int(seeds), "runs": int(runs),
            "chunk_size": int(chunk)}


def grid_form(prefix: str) -> tuple[bool, dict[str, Any] | str]:
    """Number lists and multiselects per parameter; returns (submitted, grid mapping or error text)."""
    numbers = [n for n in SWEEP_FIELDS if not field_info(n)["choices"]]
    choices_of = [n for n in SWEEP_FIELDS if field_info(n)["choices"]]
    with st.form(f"{prefix}_grid_form"):
        cols = st.columns(5)
        texts = {name: cols[i % 5].text_input(field_info(name)["label"],
                                              value=SWEEP_TEXT.get(name, f"{field_info(name)['default']:g}"),
                                              help=f"Comma-separated values ({bounds_text(name)})",
                                              key=f"{prefix}_{name}")
                 for i, name in enumerate(numbers)}
        c = st.columns(len(choices_of))
        choices = {name: c[i].multiselect(field_info(name)["label"], field_info(name)["choices"],
                                          default=SWEEP_CHOICES.get(name, [field_info(name)["default"]]),
                                          key=f"{prefix}_{name}")
                   for i, name in enumerate(choices_of)}
        s = st.columns(4)
        design = s[0].radio("Design", ["factorial", "one_at_a_time"], key=f"{prefix}_design",
                            help="factorial: every combination; one_at_a_time: the first value of each "
                                 "list is the centre, the others are varied one parameter at a time")
        seeds = s[1].number_input("Seeds (repeats)", min_value=1, value=2, key=f"{prefix}_seeds")
        runs = s[2].number_input("Runs per seed", min_value=1, value=20, key=f"{prefix}_runs")
        chunk = s[3].number_input("Chunk size (tasks)", min_value=1, value=8, key=f"{prefix}_chunk")
        submitted = st.form_submit_button("Check grid")
    try:
        values = {name: parse_numbers(texts[name], field_info(name)["type"], name) for name in numbers}
        values.update(choices)
        return submitted, grid_from_form(values, seeds, runs, chunk, design)
    except ValueError as exc:
        return submitted, str(exc)


def grid_yaml(prefix: str, example: dict[str, Any]) -> tuple[bool, dict[str, Any] | str]:
    """A YAML text area (or upload); returns (submitted, mapping or error text)."""
    upload = st.file_uploader("Upload grid YAML", type=["yaml", "yml"], key=f"{prefix}_upload")
    with st.form(f"{prefix}_yaml_form"):
        text = st.text_area("Grid YAML", value=yaml.safe_dump(example, sort_keys=False), height=260,
                            key=f"{prefix}_yaml")
        submitted = st.form_submit_button("Check grid")
    raw = upload.getvalue() if upload is not None else text.encode("utf-8")
    try:
        data = parse_grid(raw)  # size cap, UTF-8, no anchors/aliases — checked before anything expands
    except ValueError as exc:
        return submitted, str(exc)
    return submitted, data if isinstance(data, dict) else "grid YAML must be a mapping (base, grid, seeds…)"


SWEEP_TABS = ("Figure 1", "Figure 2", "T1 condition", "T2 fact type", "T3 missed", "T4 strategy",
              "T5 convergence", "T6 top configs")
"""The sweep results' tabs (each table's caption says which table it is in full)."""
MAX_TAB_CHARS = 14


@st.cache_data(ttl=3600, max_entries=16, show_spinner=False)
def load_rows(path: str, mtime: float) -> pd.DataFrame:
    """Sweep rows from disk (cached per file version)."""
    return read_table(path)


def sweep_results(rows: pd.DataFrame, prefix: str) -> None:
    """Figures 1/2 and Tables 1–6 (word headers, mean ± std) in tabs, with PNG / SVG export. Short labels,
    figures first: at 150 % zoom the row of long labels was cut ("Figu…") and the figures were out of sight."""
    tabs = st.tabs(list(SWEEP_TABS))
    builders = (beliefs.table1_by_condition, beliefs.table2_by_fact_type, beliefs.table3_most_missed,
                beliefs.table4_strategy_by_condition, beliefs.table5_convergence, beliefs.table6_top_configurations)
    for tab, build in zip(tabs[2:], builders, strict=True):
        with tab:
            st.caption(build.__doc__.splitlines()[0])
            table = build(rows)
            shown = table if build is beliefs.table4_strategy_by_condition else beliefs.readable(table)
            st.dataframe(shown, hide_index=build is not beliefs.table4_strategy_by_condition,
                         key=f"{prefix}_{build.__name__}")
    for tab, name, build in ((tabs[0], "figure1", beliefs.figure1), (tabs[1], "figure2", beliefs.figure2)):
        with tab:
            fig = build(rows)
            show_chart(fig, key=f"{prefix}_{name}")
            _export_buttons(fig, f"{prefix}_{name}")


def _export_buttons(fig: go.Figure, key: str) -> None:
    """PNG / SVG for slides, rendered on click (kaleido is optional)."""
    if not beliefs.HAS_KALEIDO:
        st.caption("PNG / SVG export: `pip install 'ifworld[export]'` (kaleido).")
        return
    if st.button("🖼️ Prepare PNG and SVG", key=f"{key}_prep"):
        try:
            st.session_state[f"{key}_img"] = {f: beliefs.figure_image(fig, f) for f in ("png", "svg")}
        except (ValueError, RuntimeError, OSError) as exc:
            st.error(f"Image export failed: {exc}")
    images = st.session_state.get(f"{key}_img")
    if images:
        c = st.columns(2)
        c[0].download_button("⬇️ PNG", images["png"], file_name=f"{key}.png", mime="image/png",
                             key=f"{key}_png", on_click="ignore")
        c[1].download_button("⬇️ SVG", images["svg"], file_name=f"{key}.svg", mime="image/svg+xml",
                             key=f"{key}_svg", on_click="ignore")
