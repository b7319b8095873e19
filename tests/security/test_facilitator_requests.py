"""A participant's websocket cannot empty every user's caches (#40 item 1): ``clear_cache`` and the other
requests that act on the whole server are dropped from a non-facilitator's stream by the app's server
(``ui/asgi.py``); their script reruns pass. Before, any client's ``clear_cache`` cleared everyone's."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg

ROOT = Path(__file__).resolve().parents[2]


def _asgi():  # noqa: ANN202 — ui/asgi.py as `streamlit run` imports it (its own folder on the path)
    sys.path.insert(0, str(ROOT / "ui"))
    try:
        return importlib.import_module("asgi")
    finally:
        sys.path.remove(str(ROOT / "ui"))


def _msg(kind: str) -> dict:
    m = BackMsg()
    if kind == "rerun_script":
        m.rerun_script.query_string = ""
    else:
        setattr(m, kind, True)
    return {"type": "websocket.receive", "bytes": m.SerializeToString()}


def test_a_participants_clear_cache_and_debug_requests_never_reach_streamlit() -> None:
    asgi = _asgi()
    queue = [_msg("clear_cache"), _msg("debug_shutdown_runtime"), _msg("set_run_on_save"), _msg("rerun_script"),
             {"type": "websocket.disconnect"}]

    async def receive() -> dict:
        return queue.pop(0)

    async def drain() -> list[str]:
        filtered, out = asgi._without_facilitator_requests(receive), []
        while True:
            message = await filtered()
            if message["type"] != "websocket.receive":
                return out
            m = BackMsg()
            m.ParseFromString(message["bytes"])
            out.append(str(m.WhichOneof("type")))
    assert asyncio.run(drain()) == ["rerun_script"]
