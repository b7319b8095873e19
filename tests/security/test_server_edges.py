"""The server at its edges (#40 items 1 and 2), against the real server (``streamlit run ui/asgi.py``, as
``ifworld app`` runs it): the client's real address, forwarding headers in loopback mode, facilitator-only
metrics and uploads, an upload flood and half-open requests that the server survives while answering the
facilitator within 2 s, and no outbound request when a foreign Origin connects."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from ifworld.edge import client_address, trusted_proxies

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


# -- the one function that decides the address -----------------------------------------------------------
@pytest.mark.parametrize("peer, xff, trusted, expected", [
    ("127.0.0.1", None, "", "127.0.0.1"),  # a loopback peer is an address too (Streamlit reported none)
    ("127.0.0.1", "6.6.6.6", "", "127.0.0.1"),  # the header from an untrusted peer is ignored
    ("10.0.0.5", "6.6.6.6", "", "10.0.0.5"),
    ("127.0.0.1", "192.168.1.23", "127.0.0.1", "192.168.1.23"),  # our nginx on this machine
    ("127.0.0.1", "6.6.6.6, 192.168.1.23", "127.0.0.1", "192.168.1.23"),  # the client's own part is not believed
    ("10.1.2.3", "192.168.1.9, 10.1.0.1", "10.1.0.0/16", "192.168.1.9"),  # two proxies of ours
    ("127.0.0.1", "garbage", "127.0.0.1", "127.0.0.1"),
    ("::ffff:127.0.0.1", None, "", "127.0.0.1"),
])
def test_client_address(peer: str, xff: str | None, trusted: str, expected: str) -> None:
    assert client_address(peer, xff, trusted_proxies(trusted)) == expected


def test_a_bad_trusted_proxies_setting_is_refused() -> None:
    from ifworld.errors import ConfigError

    with pytest.raises(ConfigError):
        trusted_proxies("nginx")


# -- the real server ------------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 — a proxy sees "GET http://host/…"
        _Recorder.seen.append(self.path)
        self.send_response(502)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def outbound() -> Iterator[str]:
    """An HTTP proxy (its URL) that records every request the server tries to make to anywhere."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Recorder.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _serve(tmp: Path, address: str, proxy: str, **extra: str) -> tuple[subprocess.Popen, str, Any]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_DB": str(tmp / "runs.sqlite"), "PYTHONPATH": str(ROOT), "HOME": str(tmp),
                "HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "http_proxy": proxy, "https_proxy": proxy,
                "NO_PROXY": "", "no_proxy": "", "IFWORLD_HEAD_TIMEOUT_S": "2",
                "IFWORLD_MAX_CONNECTIONS_PER_ADDRESS": "40", **extra})
    log = (tmp / "app.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "ui/asgi.py", "--server.port", str(port),
                             "--server.address", address, "--server.headless", "true"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return proc, url, log
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"the app did not start: {(tmp / 'app.log').read_text()[-2000:]}")


def _stop(proc: subprocess.Popen, log: Any) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory, outbound: str) -> Iterator[dict[str, Any]]:
    """The app in network mode (0.0.0.0), reached on 127.0.0.1, with the recording proxy as its HTTP proxy."""
    from ifworld import access, signin
    from ifworld.runs.store import RunStore

    tmp = tmp_path_factory.mktemp("edges")
    proc, url, log = _serve(tmp, "0.0.0.0", outbound)
    session = signin.new_session(RunStore(tmp / "runs.sqlite"), "test")  # what POST /signin starts
    yield {"url": url, "proc": proc, "cookie": {access.FACILITATOR_COOKIE: session}}
    _stop(proc, log)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _answered_s(url: str, cookie: dict[str, str]) -> float:
    start = time.monotonic()
    response = httpx.get(f"{url}/_stcore/health", cookies=cookie, timeout=10)
    assert response.status_code == 200
    return time.monotonic() - start


def test_metrics_are_for_the_facilitator_only(network: dict[str, Any]) -> None:
    assert httpx.get(f"{network['url']}/_stcore/metrics", timeout=10).status_code == 403
    assert httpx.get(f"{network['url']}/_stcore/metrics", cookies=network["cookie"], timeout=10).status_code == 200


def test_the_rooms_pulse_is_for_the_facilitator_only(network: dict[str, Any]) -> None:
    """ui/room_pulse.py behind the real server's rule: a visitor, a forged sign-in cookie and a spoofed address
    are refused; the facilitator reaches the pulse itself (its own answer for a run without a workshop, not the
    phone page's asset route that would take /p/pulse if it were mounted first)."""
    from ifworld import access
    from ui import room_pulse

    pulse = f"{network['url']}/{room_pulse.pulse_url('abc123')}"
    assert httpx.get(pulse, timeout=10).status_code == 403
    assert httpx.get(pulse, cookies={access.FACILITATOR_COOKIE: "forged"}, timeout=10).status_code == 403
    assert httpx.get(pulse, headers={"x-forwarded-for": "127.0.0.1"}, timeout=10).status_code == 403
    mine = httpx.get(pulse, cookies=network["cookie"], timeout=10)
    assert (mine.status_code, mine.text) == (404, "This run has no workshop.")


def _visitor_session(url: str, cookie: str = "") -> tuple[str, dict[str, str], dict[str, str]]:
    """A visitor's live Streamlit session (its id, from the first script run over the websocket) and the XSRF
    cookie and header an attacker mints for themselves (Streamlit's check is double-submit)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string
    from websockets.sync.client import connect

    xsrf = generate_xsrf_token_string()
    with connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit", xsrf],
                 additional_headers={"Cookie": f"_streamlit_xsrf={xsrf}{cookie}"}, open_timeout=10) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_script_hash = ""
        ws.send(msg.SerializeToString())
        deadline = time.time() + 30
        while time.time() < deadline:
            fwd = ForwardMsg()
            fwd.ParseFromString(ws.recv(timeout=30))
            if fwd.WhichOneof("type") == "new_session":
                return fwd.new_session.initialize.session_id, {"_streamlit_xsrf": xsrf}, {"X-Xsrftoken": xsrf}
    pytest.fail("no session")


def test_an_upload_flood_from_a_visitor_is_refused_and_the_facilitator_answered(network: dict[str, Any]) -> None:
    url, pid = network["url"], network["proc"].pid
    before = _rss_mb(pid)
    body = b"x" * (50 * 1024 * 1024 - 1024)
    statuses, worst = [], 0.0
    from websockets.sync.client import connect  # the session lives while its socket stays open

    sid, cookies, headers = _visitor_session(url)
    xsrf = cookies["_streamlit_xsrf"]
    with connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit", xsrf, sid],
                 additional_headers={"Cookie": f"_streamlit_xsrf={xsrf}"}, open_timeout=10):
        for i in range(10):
            files = {"file": (f"f{i}.bin", body, "application/octet-stream")}
            # the status only: the server refuses before the 50 MB are read and may close before its short body
            with httpx.stream("PUT", f"{url}/_stcore/upload_file/{sid}/file{i}", files=files, cookies=cookies,
                              headers=headers, timeout=60) as refused:
                statuses.append(refused.status_code)
            worst = max(worst, _answered_s(url, network["cookie"]))
        after = _rss_mb(pid)
        worst = max(worst, _answered_s(url, network["cookie"]))
    print(f"upload flood: statuses {statuses}; server RSS {before:.0f} → {after:.0f} MB; "
          f"facilitator worst {worst:.2f} s")
    assert set(statuses) == {403}
    assert after - before < 100, (before, after)
    assert worst < 2.0
    (name, value), = network["cookie"].items()  # the control: the facilitator's own upload is taken
    sid, cookies, headers = _visitor_session(url, f"; {name}={value}")
    with connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit", cookies[
            "_streamlit_xsrf"], sid], additional_headers={"Cookie": f"_streamlit_xsrf={cookies['_streamlit_xsrf']}; "
                                                                   f"{name}={value}"}, open_timeout=10):
        taken = httpx.put(f"{url}/_stcore/upload_file/{sid}/mine", files={"file": ("a.csv", b"a,b\n1,2\n")},
                          cookies={**cookies, name: value}, headers=headers, timeout=60)
    assert taken.status_code == 204, taken.text


def test_half_open_requests_are_capped_and_timed_out(network: dict[str, Any]) -> None:
    url = network["url"]
    port = int(url.rsplit(":", 1)[1])
    socks = []
    for _ in range(300):  # one attacker address (127.0.0.2), each sending half a request head
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        except OSError:
            pass
        socks.append(s)
    time.sleep(0.5)
    assert _answered_s(url, network["cookie"]) < 2.0

    def still_open(s: socket.socket) -> bool:
        try:
            s.setblocking(False)
            return s.recv(1) != b""
        except BlockingIOError:
            return True
        except OSError:
            return False
    open_now = sum(still_open(s) for s in socks)
    time.sleep(3)  # past IFWORLD_HEAD_TIMEOUT_S=2
    open_later = sum(still_open(s) for s in socks)
    for s in socks:
        s.close()
    print(f"half-open heads: {open_now}/300 held at once, {open_later}/300 after the head timeout")
    assert open_now <= 40 and open_later == 0
    assert _answered_s(url, network["cookie"]) < 2.0


def test_a_foreign_origin_makes_no_outbound_request(network: dict[str, Any]) -> None:
    from websockets.sync.client import connect

    before = len(_Recorder.seen)
    ws_url = network["url"].replace("http://", "ws://") + "/_stcore/stream"
    try:
        with connect(ws_url, origin="http://evil.example", subprotocols=["streamlit"], open_timeout=5):
            pass
    except Exception:  # noqa: BLE001 — refused or not, what counts is what the server fetched
        pass
    time.sleep(2.5)
    assert _Recorder.seen[before:] == []


def test_streamlits_assets_are_sent_compressed_from_memory_with_every_header(network: dict[str, Any]) -> None:
    """The asset cache (ifworld/asset_cache.py) on the real server: a phone's page assets, compressed, the same
    bytes as Streamlit's own answer, with the CSP and the device cookie that every answer carries."""
    import gzip
    import re

    page = httpx.get(f"{network['url']}/whatif", timeout=10).text  # a Streamlit page's shell
    assets = re.findall(r'(?:src|href)="\.?/?(static/[^"]+\.(?:js|css))"', page)
    assert assets, page[:500]
    sizes = []
    for asset in assets:
        plain = httpx.get(f"{network['url']}/{asset}", headers={"accept-encoding": "identity"}, timeout=10)
        assert plain.status_code == 200 and "immutable" in plain.headers["cache-control"]
        raw = httpx.Client(headers={"accept-encoding": "gzip"}, timeout=10)
        with raw.stream("GET", f"{network['url']}/{asset}") as packed:
            body = b"".join(packed.iter_raw())
            assert packed.headers["content-encoding"] == "gzip", asset
            assert gzip.decompress(body) == plain.content
            sizes.append((len(body), len(plain.content)))
            assert "content-security-policy" in packed.headers and "ifworld_device=" in packed.headers["set-cookie"]
        raw.close()
        again = httpx.get(f"{network['url']}/{asset}", headers={"if-none-match": plain.headers["etag"]}, timeout=10)
        assert again.status_code == 304 and again.content == b""
    assert sum(p for p, _ in sizes) < sum(f for _, f in sizes) / 3  # JavaScript and CSS: about a quarter


def test_loopback_mode_refuses_forwarding_headers(tmp_path: Path, outbound: str) -> None:
    proc, url, log = _serve(tmp_path, "127.0.0.1", outbound)
    try:
        assert httpx.get(f"{url}/_stcore/health", timeout=10).status_code == 200
        for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host"):
            refused = httpx.get(f"{url}/", headers={header: "for=10.0.0.7" if header == "Forwarded" else "10.0.0.7"},
                                timeout=10)
            assert refused.status_code == 400 and "proxy" in refused.text, header
    finally:
        _stop(proc, log)


def test_behind_a_named_proxy_forwarded_requests_are_served_and_nobody_is_trusted_by_address(
        tmp_path: Path, outbound: str) -> None:
    proc, url, log = _serve(tmp_path, "127.0.0.1", outbound, IFWORLD_TRUSTED_PROXIES="127.0.0.1")
    try:
        served = httpx.get(f"{url}/", headers={"X-Forwarded-For": "192.168.1.23", "Host": "ifworld.example.org"},
                           timeout=10)
        assert served.status_code == 200
        metrics = httpx.get(f"{url}/_stcore/metrics", headers={"X-Forwarded-For": "192.168.1.23"}, timeout=10)
        assert metrics.status_code == 403  # a local peer is no facilitator once a proxy stands in front
    finally:
        _stop(proc, log)
