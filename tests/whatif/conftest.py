"""IF-World test helpers: fast settings and a runner that returns the full record."""

from __future__ import annotations

from typing import Any

import pytest

from ifworld.config import Settings
from ifworld.runs.store import RunStore
from ifworld.whatif import service
from ifworld.whatif.params import default_params

PROP = "What if the Moon disappeared overnight?"
SMALL = ["physics", "economics", "medicine"]


@pytest.fixture
def wsettings(settings: Settings) -> Settings:
    return settings.model_copy(update={"max_concurrency": 16})


@pytest.fixture
def run_whatif(wsettings: Settings, store: RunStore):
    """run_whatif(method="ifworld", events=None, **overrides) -> record (with run_id)."""

    def go(method: str = "ifworld", events: list | None = None, proposition: str = PROP, **overrides: Any) -> dict:
        overrides.setdefault("experts", SMALL)
        params = default_params(proposition, method, **overrides)
        return service.run(params, settings=wsettings, store=store,
                           on_event=events.append if events is not None else None)

    return go
