"""Did a request come from a page of this site? ``Sec-Fetch-Site`` where the browser sends it, else ``Origin``.

Shared by the guard (cookie-authenticated requests that change something) and by sign-out, which is
public but must not be triggered by another site's page.
"""

from __future__ import annotations

from starlette.types import Scope

# What browsers send for a request started by a page of another origin (same-site = a sibling subdomain).
FOREIGN_FETCH_SITES = {"cross-site", "same-site"}


def header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def same_site_origin(origin: str, scope: Scope) -> bool:
    """Does the browser's ``Origin`` name this server (its Host, or the host a trusted proxy forwarded)?"""
    netloc = origin.split("://", 1)[-1].rstrip("/").lower()
    hosts = {(header(scope, b"host") or "").lower(), (scope.get("state", {}).get("forwarded_host") or "").lower()}
    return bool(netloc) and netloc in hosts


def from_another_site(scope: Scope) -> bool:
    """True when the browser says (Sec-Fetch-Site) or shows (Origin) that another site's page sent this."""
    if (header(scope, b"sec-fetch-site") or "").strip().lower() in FOREIGN_FETCH_SITES:
        return True
    origin = header(scope, b"origin")
    return bool(origin) and not same_site_origin(origin, scope)
