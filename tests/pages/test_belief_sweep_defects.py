"""Belief sweep page defects of issue #33: the tab row fits at 150 % zoom (short labels, figures first) and no
y-axis title of Figure 1 sits in a column gap, on the error bars of the panel to its left."""

from __future__ import annotations

import pandas as pd

from ifworld import beliefs
from ui.belief_sweep_view import MAX_TAB_CHARS


def test_sweep_tabs_are_short_and_figures_come_first() -> None:
    from ui.belief_sweep_view import SWEEP_TABS

    assert SWEEP_TABS[:2] == ("Figure 1", "Figure 2")
    assert all(len(label) <= MAX_TAB_CHARS for label in SWEEP_TABS), SWEEP_TABS


def test_figure1_y_titles_only_at_the_left_of_each_effect_row(tmp_path) -> None:  # noqa: ANN001
    from ifworld.beliefs.sweep import SweepSpec, run_sweep

    spec = SweepSpec.from_dict({"base": {"agents": 6, "facts": 5, "rounds": 4, "true_facts": 2},
                                "grid": {"bandwidth": [1, 2], "agents": [6, 8], "rounds": [3, 4],
                                         "strategy": ["highest_confidence", "strategic"]},
                                "seeds": [0], "runs": 2})
    rows = run_sweep(spec, workers=1)
    assert isinstance(rows, pd.DataFrame) and len(rows)
    fig = beliefs.figure1(rows)
    for col in (2, 3):  # Population and Max rounds beside Bandwidth: their titles sat on its error bars
        assert not fig.get_subplot(1, col).yaxis.title.text, col
    assert fig.get_subplot(1, 1).yaxis.title.text == "mean F1 ± std"
    # row 2: Threshold is not swept (a note, no axes), so Strategy beside it keeps its title
    assert fig.get_subplot(2, 1).yaxis.visible is False
    assert fig.get_subplot(2, 2).yaxis.title.text == "mean F1 ± std"
