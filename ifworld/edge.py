"""The server's edges, decided once: who the client really is, and how much one client may hold open.

- :func:`client_address` is the one function that decides a request's address: the socket peer — loopback peers
  included, so a limit keyed to ``127.0.0.1`` still counts — and ``X-Forwarded-For`` only when that peer is a
  proxy named in ``IFWORLD_TRUSTED_PROXIES`` (addresses or networks, comma-separated; default none). Behind the
  proxies docs/deploy.md shows, that is what gives every phone its own address for the join and wrong-code
  limits; without the setting nobody can claim another address by sending the header.
- :func:`guard_connections` bounds what one address may hold at the transport, before any request exists:
  at most :data:`MAX_CONNECTIONS_PER_ADDRESS` open connections, and :data:`HEAD_TIMEOUT_S` to finish a request
  head (uvicorn, which serves the app, has neither: ``timeout_keep_alive`` starts only after a response, so
  1,100 half-open requests used every file descriptor of a laptop and the app answered nobody).

No streamlit here (the house rule); the ASGI middleware that uses it is ``ui/asgi.py``.
"""

from __future__ import annotations

import ipaddress
import os
import weakref
from collections.abc import Iterable
from typing import Any

from ifworld.errors import ConfigError

__all__ = ["CLIENT_HEADER", "FORWARDING_HEADERS", "HEAD_TIMEOUT_S", "MAX_CONNECTIONS_PER_ADDRESS",
           "TRUSTED_PROXIES_ENV", "client_address", "forwarding_headers", "guard_connections", "trusted_proxies"]

TRUSTED_PROXIES_ENV = "IFWORLD_TRUSTED_PROXIES"
CLIENT_HEADER = "x-ifworld-client"
"""The header the app's server sets on every request with the address :func:`client_address` decided (a value a
client sent is dropped first); pages read it from ``st.context.headers``."""
FORWARDING_HEADERS = (b"x-forwarded-for", b"forwarded", b"x-real-ip", b"x-forwarded-host", b"x-forwarded-proto",
                      b"x-forwarded-port", b"x-forwarded-prefix", b"x-original-forwarded-for")
HEAD_TIMEOUT_S = float(os.environ.get("IFWORLD_HEAD_TIMEOUT_S", "10"))
"""Seconds a connection has to send a whole request head (again after each response on a kept-alive one)."""
MAX_CONNECTIONS_PER_ADDRESS = int(os.environ.get("IFWORLD_MAX_CONNECTIONS_PER_ADDRESS", "64"))
"""Open connections one peer address may hold (a browser tab uses about 7; trusted proxies are exempt)."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies(text: str | None = None) -> tuple[Network, ...]:
    """The proxies whose ``X-Forwarded-For`` is believed: ``IFWORLD_TRUSTED_PROXIES`` (``127.0.0.1``,
    ``10.0.0.0/8, ::1`` …); empty means none. A value that is not an address is a :class:`ConfigError`."""
    raw = os.environ.get(TRUSTED_PROXIES_ENV, "") if text is None else text
    out = []
    for part in (p.strip() for p in raw.replace(";", ",").split(",")):
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ConfigError(f"{TRUSTED_PROXIES_ENV}: {part!r} is not an IP address or network") from None
    return tuple(out)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.split(":")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    return ip.ipv4_mapped or ip if isinstance(ip, ipaddress.IPv6Address) else ip


def _trusted(ip: Any, proxies: Iterable[Network]) -> bool:
    return ip is not None and any(ip.version == n.version and ip in n for n in proxies)


def client_address(peer: str | None, forwarded_for: str | None = None,
                   proxies: tuple[Network, ...] | None = None) -> str:
    """The address a request comes from: the socket ``peer``; when the peer is a trusted proxy, the right-most
    address of ``X-Forwarded-For`` that is not itself a trusted proxy (the left part of the header is whatever the
    client wrote, so only the hops our proxies appended are believed). ``""`` when there is no peer."""
    proxies = trusted_proxies() if proxies is None else proxies
    peer_ip = _ip(peer or "")
    if peer_ip is None:
        return (peer or "").strip()
    if not forwarded_for or not _trusted(peer_ip, proxies):
        return str(peer_ip)
    hops = [_ip(h) for h in forwarded_for.split(",")]
    for hop in reversed(hops):
        if hop is None:
            return str(peer_ip)  # a garbled hop: believe nothing beyond our own proxy
        if not _trusted(hop, proxies):
            return str(hop)
    return str(hops[0]) if hops and hops[0] is not None else str(peer_ip)


def forwarding_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    """The forwarding headers a request carries (their names)."""
    return sorted({k.decode("latin-1").lower() for k, _ in headers if k.lower() in FORWARDING_HEADERS})


# -- the transport: per-address connection cap and a deadline for request heads ------------------------------
_open: dict[str, weakref.WeakSet[Any]] = {}
_installed: list[str] = []


def _peer(transport: Any) -> str:
    info = transport.get_extra_info("peername")
    return str(info[0]) if isinstance(info, tuple) and info else ""


def _wrap(cls: Any, head_timeout_s: float, per_address: int) -> None:
    made, done = cls.connection_made, getattr(cls, "on_response_complete", None)

    def arm(self: Any) -> None:
        loop, transport = getattr(self, "loop", None), getattr(self, "transport", None)
        if loop is None or transport is None:
            return
        old = getattr(self, "_ifw_head_timer", None)
        if old is not None:
            old.cancel()

        def expire() -> None:
            cycle = getattr(self, "cycle", None)
            waiting = cycle is None or getattr(cycle, "response_complete", False)
            if waiting and transport.get_protocol() is self and not transport.is_closing():
                transport.close()  # no whole request head in time (an upgraded websocket is not ours any more)
        self._ifw_head_timer = loop.call_later(head_timeout_s, expire)

    def connection_made(self: Any, transport: Any, *args: Any, **kwargs: Any) -> None:
        made(self, transport, *args, **kwargs)
        peer = _peer(transport)
        if peer and not _trusted(_ip(peer), trusted_proxies()):
            live = _open.setdefault(peer, weakref.WeakSet())
            for t in [t for t in live if t.is_closing()]:
                live.discard(t)
            if len(live) >= per_address:
                transport.close()
                return
            live.add(transport)
        arm(self)

    cls.connection_made = connection_made
    if done is not None:
        def on_response_complete(self: Any) -> None:
            done(self)
            arm(self)
        cls.on_response_complete = on_response_complete


def guard_connections(head_timeout_s: float = HEAD_TIMEOUT_S,
                      per_address: int = MAX_CONNECTIONS_PER_ADDRESS) -> list[str]:
    """Give uvicorn's HTTP protocols a per-address connection cap and a request-head deadline (once per process;
    returns the protocols guarded). uvicorn has no setting for either, so its protocol classes are wrapped."""
    if _installed:
        return list(_installed)
    for module, name in (("uvicorn.protocols.http.h11_impl", "H11Protocol"),
                         ("uvicorn.protocols.http.httptools_impl", "HttpToolsProtocol")):
        try:
            cls = getattr(__import__(module, fromlist=[name]), name)
        except ImportError:  # httptools is optional
            continue
        _wrap(cls, head_timeout_s, per_address)
        _installed.append(name)
    return list(_installed)


def disable_uvicorn_proxy_headers() -> bool:
    """uvicorn rewrites the client address from ``X-Forwarded-For`` sent by 127.0.0.1 (its default
    ``forwarded_allow_ips``) before the app sees the request; the app decides that itself
    (:func:`client_address`), so uvicorn's middleware is made a pass-through. Returns whether it was found."""
    try:
        import uvicorn.config as uconfig
    except ImportError:
        return False

    def passthrough(app: Any, trusted_hosts: Any = None) -> Any:
        return app
    uconfig.ProxyHeadersMiddleware = passthrough  # type: ignore[assignment,misc]
    return True
