"""JSON exports of every kind parse with a strict parser when a record holds NaN / ±Infinity (issue #22,
item 9): the RWS benchmark download, and the run export of RWS, belief and what-if runs. The what-if run with
a model writing 1e400 end to end is in tests/whatif/test_non_finite.py."""

from __future__ import annotations

import pytest

from ifworld import runs, rws, safe_json
from ifworld.runs.store import RunStore
from tests.whatif.test_non_finite import strict_loads

INF, NAN = float("inf"), float("nan")


def test_rws_benchmark_json_download() -> None:
    record = {"workflow": "rws.benchmark", "data": "x.jsonl", "patterns": ["single"],
              "summary": {"accuracy": NAN}, "cost": [{"pattern": "single", "latency_s": INF}],
              "results": [{"item_id": "a", "pattern": "single", "model": "m", "type": "numeric",
                           "answer": "1e400", "grade": {"verdict": "correct"}, "score": -INF}]}
    data = strict_loads(rws.to_json(record))
    assert data["summary"]["accuracy"] is None and data["results"][0]["answer"] == "1e400"
    assert data[safe_json.NOTE_KEY]["paths"] == ["$.summary.accuracy", "$.cost[0].latency_s", "$.results[0].score"]


@pytest.mark.parametrize(("kind", "workflow", "record"), [
    ("rws", "rws.benchmark", {"results": [], "summary": {"accuracy": NAN}}),
    ("beliefs", "beliefs.llm", {"summary": {"f1": INF, "f1_std": NAN}}),
    ("whatif", "whatif.ifworld", {"proposition": "p", "report": {"scenarios": [{"probability_pct": INF}]}}),
])
def test_run_exports(store: RunStore, kind: str, workflow: str, record: dict) -> None:
    run_id = store.create_run(kind, workflow, {"threshold": NAN}, "t")
    store.finish_run(run_id, record)
    data = strict_loads(runs.export_run(run_id, "json", store=store))
    assert "$.params.threshold" in data[safe_json.NOTE_KEY]["paths"] and len(data[safe_json.NOTE_KEY]["paths"]) >= 2
