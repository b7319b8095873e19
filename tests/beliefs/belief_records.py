"""Sample belief records (an LLM run against the fake server, a heuristic simulation, a small sweep made at
test time) and what the Runs page shows for each, as text.

``records/page_snapshot.json`` holds what the dict-reading view (before the typed records) showed; the typed
view must show the same (``python -m tests.beliefs.belief_records`` rewrites it — only for an intended
change of output).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "records"
SNAPSHOT = HERE / "page_snapshot.json"
APP = str(Path(__file__).resolve().parents[2] / "app.py")
SWEEP_SPEC = {"base": {"facts": 6, "rounds": 4}, "grid": {"agents": [4, 6]}, "repeats": 1, "runs": 2,
              "chunk_size": 2}


def llm_record() -> dict[str, Any]:
    return json.loads((HERE / "llm_run.json").read_text(encoding="utf-8"))


def simulation_record() -> dict[str, Any]:
    return json.loads((HERE / "simulation.json").read_text(encoding="utf-8"))


def save(workflow: str, record: dict[str, Any], params: dict[str, Any] | None = None) -> str:
    from ifworld.runs.store import get_store

    store = get_store()
    run_id = store.create_run("beliefs", workflow, params or {}, f"Beliefs: {workflow}")
    store.finish_run(run_id, record)
    return run_id


def save_sweep() -> str:
    from ifworld.beliefs.workflows import run_sweep_run, start_sweep

    run_id = start_sweep(SWEEP_SPEC)
    run_sweep_run(run_id)
    return run_id


def page_texts(run_id: str) -> dict[str, Any]:
    """The Runs page with ``run_id`` open: its metrics, texts and tables below the run's header."""
    from streamlit.testing.v1 import AppTest

    from ifworld.runs.store import get_store

    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/runs.py")
    at.run()
    at.selectbox(key="runs_open").set_value(run_id).run()
    assert not at.exception, at.exception
    out = get_store().get_run(run_id).record.get("out", "<none>")

    db = os.environ.get("IFWORLD_DB", "<none>")

    def clean(text: Any) -> str:
        return str(text).replace(str(out), "<out>").replace(db, "<db>")

    return {
        "metrics": [[m.label, m.value] for m in at.metric],
        "captions": [clean(c.value) for c in at.caption if not c.value.startswith(f"`{run_id}`")],
        "markdown": [clean(m.value) for m in at.markdown],
        "tables": [clean(d.value.to_csv()) for d in at.dataframe[1:]],  # [0] is the runs list
        "errors": [clean(e.value) for e in at.error],
        "charts": len(at.get("plotly_chart")),
        "json": len(at.json),
    }


def snapshot() -> dict[str, Any]:
    return {"llm": page_texts(save("beliefs.llm", llm_record())),
            "simulation": page_texts(save("beliefs.simulate", simulation_record())),
            "sweep": page_texts(save_sweep())}


def main() -> None:
    os.environ["IFWORLD_DB"] = str(Path(tempfile.mkdtemp()) / "runs.sqlite")
    SNAPSHOT.write_text(json.dumps(snapshot(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    main()
