"""Who is the client? The socket peer, unless that peer is a proxy named in ADVISOR_TRUSTED_PROXIES.

Only then are ``X-Forwarded-For`` / ``X-Forwarded-Proto`` / ``X-Forwarded-Host`` believed. The
forwarded chain is read from the right (the hop our trusted proxy appended) leftwards, skipping
further trusted proxies: the first address that is not one of ours is the client. Anything left of
it was written by the client and is ignored, so a forged header can never pick someone else's
rate-limit bucket. Uvicorn's own proxy-header handling is switched off (``proxy_headers=False``)
because it trusts 127.0.0.1 by default.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from starlette.types import Scope


def _header_values(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers", ()) if key == name]


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("["):  # [v6]:port
        text = text[1 : text.find("]")] if "]" in text else text
    elif text.count(":") == 1:  # v4:port
        text = text.split(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class TrustedProxies:
    def __init__(self, cidrs: Sequence[str] = ()):
        self.networks = [ipaddress.ip_network(c, strict=False) for c in cidrs]

    def trusts(self, address: str | None) -> bool:
        ip = _parse_ip(address or "")
        if ip is None or not self.networks:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip.version == net.version and ip in net for net in self.networks)

    def client(self, peer: str, forwarded_for: Sequence[str]) -> str:
        """The client's address: ``peer`` itself unless a trusted proxy forwarded the request."""
        if not self.trusts(peer):
            return peer
        hops = [hop for header in forwarded_for for hop in header.split(",") if hop.strip()]
        client = peer
        for hop in reversed(hops):
            ip = _parse_ip(hop)
            if ip is None:  # garbage in the chain: stop at the last address a trusted proxy vouched for
                break
            client = str(ip)
            if not self.trusts(client):
                break
        return client

    def apply(self, scope: Scope) -> None:
        """Rewrite ``scope["client"]`` (and scheme/host from a trusted proxy); the socket peer stays in state."""
        peer, port = scope.get("client") or ("", 0)
        scope.setdefault("state", {})["peer"] = peer
        if not self.trusts(peer):
            return
        scope["client"] = (self.client(peer, _header_values(scope, b"x-forwarded-for")), port)
        proto = (_header_values(scope, b"x-forwarded-proto") or [""])[0].split(",")[0].strip().lower()
        if proto in ("http", "https"):
            scope["scheme"] = proto if scope["type"] == "http" else {"http": "ws", "https": "wss"}[proto]
        forwarded_host = (_header_values(scope, b"x-forwarded-host") or [""])[0].split(",")[0].strip()
        if forwarded_host:
            scope["state"]["forwarded_host"] = forwarded_host
