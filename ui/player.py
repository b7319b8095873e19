"""The one step player of the app: play / pause, a speed, and a fragment that advances on its own.

Used by the belief-exchange animation (rounds of a simulation) and the Runs page's replay (checkpoint steps).
While playing, only the fragment reruns (``st.fragment(run_every=…)``), so the rest of the page stays put;
at the end it stops and reruns the page once so the Play button reads "Play" again.

The position follows the wall clock from the moment Play was pressed (frame = start + elapsed ÷ speed), not a
count of fragment reruns: a rerun that takes longer than the chosen speed (drawing three charts on a busy
two-core machine) made "0.5 s per round" play about one round a second. When drawing cannot keep up, rounds
are skipped so the speed holds, and the player says how many it skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

import streamlit as st

SPEEDS = {"0.25 s": 0.25, "0.5 s": 0.5, "1 s": 1.0, "2 s": 2.0, "4 s": 4.0}
EARLY_S = 0.05  # a fragment rerun slightly early (timer jitter) still counts as due


def _move(key: str, delta: int, last: int, first: int = 0) -> None:
    st.session_state[key] = min(last, max(first, st.session_state.get(key, first) + delta))


def step_player(prefix: str, last: int, render: Callable[[int], None], *, pos_key: str | None = None,
                controls: Literal["buttons", "slider"] = "buttons", speed_label: str = "Seconds per step",
                default_speed: str = "1 s", first: int = 0) -> None:
    """Frames ``first … last`` (``first=1`` when the frames are numbered steps, so the slider shows the step's
    own number); ``render(pos)`` draws one inside the fragment. ``buttons`` gives Start / Back / Step / End,
    ``slider`` a position slider and a Restart button. Session keys: ``pos_key`` (default ``{prefix}_t``),
    ``{prefix}_playing``, ``{prefix}_play``, ``{prefix}_speed``."""
    pos_key = pos_key or f"{prefix}_t"
    play_key, clock_key, skipped_key = f"{prefix}_playing", f"{prefix}_clock", f"{prefix}_skipped"
    st.session_state[pos_key] = min(max(first, st.session_state.get(pos_key, first)), last)
    playing = st.session_state.get(play_key, False)
    c = st.columns([1, 1, 2] if controls == "slider" else [1, 2])
    if c[0].button("⏸️ Pause" if playing else "▶️ Play", key=f"{prefix}_play"):
        st.session_state[play_key] = not playing
        if not playing and st.session_state[pos_key] >= last:
            st.session_state[pos_key] = first
        st.session_state[clock_key] = None  # set on the first frame: (started at, from position, speed)
        st.session_state[skipped_key] = 0
        st.rerun()
    if controls == "slider" and c[1].button("⏮️ Restart", key=f"{prefix}_restart"):
        st.session_state[pos_key] = first
    speed = c[-1].select_slider(speed_label, list(SPEEDS), value=default_speed, key=f"{prefix}_speed")
    every = SPEEDS[speed] if st.session_state.get(play_key) else None

    @st.fragment(run_every=every)
    def frame() -> None:
        pos = st.session_state.get(pos_key, first)
        if every and pos < last:
            clock = st.session_state.get(clock_key)
            if clock is None or clock[2] != every or pos != clock[3]:  # new play, new speed or moved by hand
                clock = (time.time(), pos, every, pos)
            due = clock[1] + int((time.time() - clock[0] + EARLY_S) / every)
            if due > pos:
                clock = (*clock[:3], min(last, due))  # the position this clock set last
                st.session_state[pos_key] = clock[3]
                st.session_state[skipped_key] = st.session_state.get(skipped_key, 0) + clock[3] - pos - 1
            st.session_state[clock_key] = clock
        elif every and pos >= last:
            st.session_state[play_key] = False
            st.rerun(scope="app")
        if controls == "slider":
            if last > first:
                st.slider("Step", first, last, key=pos_key)
        else:
            span = last - first
            b = st.columns(4)
            b[0].button("⏮️ Start", key=f"{prefix}_first", on_click=_move, args=(pos_key, -span, last, first))
            b[1].button("◀️ Back", key=f"{prefix}_back", on_click=_move, args=(pos_key, -1, last, first))
            b[2].button("Step ▶️", key=f"{prefix}_step", on_click=_move, args=(pos_key, 1, last, first))
            b[3].button("End ⏭️", key=f"{prefix}_last", on_click=_move, args=(pos_key, span, last, first))
        if every and st.session_state.get(skipped_key):
            st.caption(f"Drawing is slower than {every:g} s per step here: {st.session_state[skipped_key]} steps "
                       "skipped to keep the speed (Pause and step through to see each one).")
        render(st.session_state.get(pos_key, first))

    frame()
