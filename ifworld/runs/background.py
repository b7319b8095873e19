"""Drive runs in a background thread of this process and let any number of viewers read their events.

A page must not drive a run inside its own script: Streamlit stops a script on every click, which would
abandon the run, and controls drawn before the run started would stay on screen while it streams. Instead a
page starts the driver here and renders, every second or so, from the run's stored state plus this feed of
its recent events (progress, partial outputs, token tails). Other sessions of the same app process (a
second tab, a projector, a workshop participant) read the same feed; other processes read the store.

The thread holds the run's lease like any driver; the process ending ends the thread (daemon), the lease goes
stale, and the run reads as interrupted and resumable.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ifworld.redact import safe_error
from ifworld.runs.events import Event

MAX_TOKEN_EVENTS = 60
"""Token deltas kept per feed (a live view shows only the tail of the text being written)."""
MAX_EVENTS = 5_000
"""Other events kept per feed; a run with more keeps its newest (views render from the store as well)."""


@dataclass
class LiveFeed:
    """The events of one run driven in this process, appended by its driver thread."""

    run_id: str
    events: deque[Event] = field(default_factory=lambda: deque(maxlen=MAX_EVENTS))
    tokens: deque[Event] = field(default_factory=lambda: deque(maxlen=MAX_TOKEN_EVENTS))
    done: threading.Event = field(default_factory=threading.Event)
    error: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, event: Event) -> None:
        with self.lock:
            (self.tokens if event.type == "token" else self.events).append(event)

    def snapshot(self) -> list[Event]:
        """Every kept event in the order they happened (token tails merged in by time)."""
        with self.lock:
            return sorted([*self.events, *self.tokens], key=lambda e: e.ts)


_feeds: dict[str, LiveFeed] = {}
_lock = threading.Lock()


def live_feed(run_id: str) -> LiveFeed | None:
    """The feed of a run driven (or last driven) by this process, if any."""
    with _lock:
        return _feeds.get(run_id)


def start_background(run_id: str, drive: Callable[[], Iterator[Event]]) -> LiveFeed:
    """Consume ``drive()`` (an event iterator that drives the run) in a daemon thread; returns its feed.

    A run already driven here is not driven twice: its existing feed is returned. Exceptions of the driver
    end the feed with their (redacted) message; the run's own status in the store says what happened.
    """
    with _lock:
        current = _feeds.get(run_id)
        if current is not None and not current.done.is_set():
            return current
        live = _feeds[run_id] = LiveFeed(run_id)

    def consume() -> None:
        try:
            for event in drive():
                live.add(event)
        except Exception as exc:  # noqa: BLE001 — the store has the status; the feed says why it ended
            live.error = safe_error(exc)
        finally:
            live.done.set()

    threading.Thread(target=consume, name=f"ifworld-run-{run_id[:8]}", daemon=True).start()
    return live
