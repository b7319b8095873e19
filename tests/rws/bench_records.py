"""Sample benchmark records for the typed-record tests, and everything the product renders from one.

``records/benchmark_run.json`` is a stored record of a real run (2 patterns × 2 models × 4 sample items, LLM
verifier on) against the fake server, with long prompt texts cut. ``records/render_snapshot.json`` holds what
the dict-reading code (before the typed records) rendered from these records; the typed code must render the
same (``python -m tests.rws.bench_records`` rewrites it — only do that for an intended change of output).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "records"
RUN = HERE / "benchmark_run.json"
SNAPSHOT = HERE / "render_snapshot.json"
MAX_LITERAL = 1500


def run_record() -> dict[str, Any]:
    return json.loads(RUN.read_text(encoding="utf-8"))


def legacy_record() -> dict[str, Any]:
    """The sparse shape older tests and hand-made records use: no summary, cost, models or verify; grades
    with a verdict only; an unknown top-level key and an unknown per-result key."""
    return {"workflow": "rws.benchmark", "data": "legacy.jsonl", "patterns": ["single", "pace"], "note": "old",
            "results": [{"item_id": i, "pattern": p, "model": m, "type": t, "grade": {"verdict": v}, "extra": 1}
                        for i, p, m, t, v in (("a", "single", "m1", "numeric", "correct"),
                                              ("b", "single", "m1", "textual", "incorrect"),
                                              ("a", "pace", "m1", "numeric", "correct"),
                                              ("b", "pace", "m2", "textual", "not_sure"))]}


def samples() -> dict[str, dict[str, Any]]:
    return {"run": run_record(), "legacy": legacy_record()}


def _sample_items() -> list[Any]:
    from ifworld.rws import benchmark

    return benchmark.load_sample()


def render_all(record: Any, raw: dict[str, Any]) -> dict[str, str]:
    """Every text the engine and the page build from one record (``record`` as given to the readers; ``raw``
    the stored dict, for the JSON export and re-grading, which keep the stored form)."""
    from ifworld.rws import benchmark
    from ifworld.rws.tables import paper_table1, paper_table2, tables_markdown
    from ui import rws_view

    out = {
        "markdown": benchmark.markdown(record),
        "csv": benchmark.to_csv(record),
        "table1": benchmark.table1(record).to_csv(),
        "table2": benchmark.table2(record).to_csv(),
        "cost": benchmark.cost_frame(record).to_csv(),
        "json": benchmark.to_json(raw),
        "paper": tables_markdown([record, record]),
        "paper1": paper_table1([record]).to_csv(),
        "paper2": paper_table2([record], "m1").to_csv(),
        "accuracy_chart": rws_view.accuracy_chart(record).to_json(),
        "verdict_matrix": rws_view.verdict_matrix(record).to_json(),
        "cost_scatter": rws_view.cost_scatter(record).to_json(),
        "regrade": json.dumps(benchmark.regrade_record(copy.deepcopy(raw), _sample_items()), sort_keys=True),
    }
    return {k: digest(v) for k, v in out.items()}


def digest(text: str) -> str:
    """Short texts as they are (a failing comparison shows the difference), long ones by their hash."""
    return text if len(text) <= MAX_LITERAL else "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def main() -> None:
    snapshot = {name: render_all(rec, copy.deepcopy(rec)) for name, rec in samples().items()}
    SNAPSHOT.write_text(json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    main()
