"""A sign-in that can be revoked and leaves no trace (#40 item 6).

Before: ``/signin?token=…`` set a cookie that was one permanent value per token (an HMAC of a constant), so a
copied cookie worked after ``/signout`` until the token file was deleted and the app restarted; the token stayed
in the address the browser's history kept; sixteen copies of one letter were accepted as the token."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from ifworld import access, signin
from ifworld.runs.store import RunStore
from tests.security.test_server_edges import _serve, _stop, outbound  # noqa: F401 — the fixture

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("weak", ["a" * 16, "a" * 40, "abcabcabcabcabcabcab", "1234567890123456"])
def test_weak_environment_tokens_are_refused_by_entropy(weak: str, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.setenv(access.TOKEN_ENV, weak)
    assert access.facilitator_token(tmp_path / "runs.sqlite") is None
    assert "guess" in (access.weak_token_reason(weak) or "")


def test_a_random_environment_token_is_taken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import secrets

    token = secrets.token_urlsafe(16)
    monkeypatch.setenv(access.TOKEN_ENV, token)
    assert access.facilitator_token(tmp_path / "runs.sqlite") == token


def test_sessions_are_stored_listed_expire_and_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    a, b = signin.new_session(store, "Firefox"), signin.new_session(store, "Chromium")
    assert a != b and signin.session_valid(store, a) and signin.session_valid(store, b)
    assert {s.browser for s in signin.list_sessions(store)} == {"Firefox", "Chromium"}
    assert a.encode() not in (tmp_path / "runs.sqlite").read_bytes()  # only the digest is kept
    signin.end_session(store, a)
    assert not signin.session_valid(store, a) and signin.session_valid(store, b)
    signin.end_session(store, session_id=signin.session_id_of(b))
    assert not signin.session_valid(store, b)
    c = signin.new_session(store)
    later = time.time() + signin.SESSION_TTL_S + 1
    monkeypatch.setattr(signin.time, "time", lambda: later)
    assert not signin.session_valid(store, c) and signin.list_sessions(store) == []
    monkeypatch.undo()
    d, e = signin.new_session(store), signin.new_session(store)
    assert signin.end_all_sessions(store) == 2 and not signin.session_valid(store, d)
    assert not signin.session_valid(store, e)


@pytest.mark.slow
def test_the_token_is_exchanged_by_post_and_signout_ends_the_session_for_good(tmp_path: Path, outbound: str) -> None:  # noqa: F811
    proc, url, log = _serve(tmp_path, "0.0.0.0", outbound)
    try:
        token = str(access.facilitator_token(tmp_path / "runs.sqlite"))
        page = httpx.get(f"{url}/signin?token={token}", timeout=10)
        assert page.status_code == 200 and token not in page.text and "set-cookie" not in {
            k.lower() for k in page.headers if k.lower() == "set-cookie" and "facilitator" in page.headers[k]}
        assert 'method="post"' in page.text and "replaceState" in httpx.get(f"{url}/signin/exchange.js").text
        assert httpx.post(f"{url}/signin", data={"token": "wrong" * 5}, timeout=10).status_code == 403
        signed = httpx.post(f"{url}/signin", data={"token": token}, timeout=10)
        assert signed.status_code == 303 and token not in signed.headers["location"]
        cookie = signed.cookies[access.FACILITATOR_COOKIE]
        assert cookie != access.cookie_value(token)  # a session of its own, not a value derived from the token
        jar = {access.FACILITATOR_COOKIE: cookie}
        assert httpx.get(f"{url}/_stcore/metrics", cookies=jar, timeout=10).status_code == 200
        copied = dict(jar)  # what an onlooker copied from the projecting browser
        httpx.get(f"{url}/signout", cookies=jar, timeout=10)
        time.sleep(2.2)  # the server's 2 s memo of a session
        assert httpx.get(f"{url}/_stcore/metrics", cookies=copied, timeout=10).status_code == 403
        forged = {access.FACILITATOR_COOKIE: access.cookie_value(token)}  # the old scheme's cookie
        assert httpx.get(f"{url}/_stcore/metrics", cookies=forged, timeout=10).status_code == 403
    finally:
        _stop(proc, log)


def test_signin_link_prints_the_current_link_and_rotate_makes_a_new_one(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from ifworld.cli import app

    monkeypatch.delenv(access.TOKEN_ENV, raising=False)
    monkeypatch.setenv("IFWORLD_DB", str(tmp_path / "runs.sqlite"))
    store = RunStore(tmp_path / "runs.sqlite")
    old = str(access.facilitator_token(tmp_path / "runs.sqlite"))
    session = signin.new_session(store)
    printed = CliRunner().invoke(app, ["app", "signin-link", "--port", "9001"])
    assert printed.exit_code == 0 and f":9001/signin?token={old}" in printed.stderr
    rotated = CliRunner().invoke(app, ["app", "signin-link", "--rotate"])
    new = str(access.facilitator_token(tmp_path / "runs.sqlite", create=False))
    assert rotated.exit_code == 0 and new != old and f"token={new}" in rotated.stderr
    assert not signin.session_valid(store, session)


def test_the_settings_page_lists_sessions_and_signs_everyone_out() -> None:
    from streamlit.testing.v1 import AppTest

    from ifworld.runs import get_store

    kept = signin.new_session(get_store(), "Chromium on the projector laptop")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("app_pages/settings.py")
    at.run()
    assert not at.exception
    assert "Chromium on the projector laptop" in set(at.dataframe[-1].value["browser"])
    at.button(key="settings_signout_all").click().run()
    assert not at.exception and signin.list_sessions(get_store()) == [] and not signin.session_valid(get_store(), kept)
