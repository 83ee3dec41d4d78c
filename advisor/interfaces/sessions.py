"""Signing in to the web UI with ADVISOR_API_TOKEN: a login page and a signed session cookie.

The cookie holds only an expiry, a nonce and an HMAC keyed by a hash of the token: no server-side
session table, so every worker process accepts it, and changing the token signs everyone out.
Browsers then send the cookie to the Gradio UI and its ``/gradio_api`` routes; scripts keep sending
``Authorization: Bearer``. ``ApiGuard`` checks both, so every door has the same lock.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import logging
import secrets
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from advisor.config import Settings

log = logging.getLogger(__name__)
COOKIE = "advisor_session"
SESSION_S = 12 * 3600
STATIC_DIR = Path(__file__).parent / "static"
LOGIN_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
LOGIN_TEXT = {
    "failed": "令牌不正确，请重试。 · That token is not right. Please try again.",
    "limited": "尝试次数过多，请稍后再试。 · Too many attempts. Please wait a minute and try again.",
}


class SessionSigner:
    def __init__(self, token: str, lifetime_s: int = SESSION_S, clock=time.time):
        self._key = hmac.new(token.encode(), b"gpu-advisor session cookie v1", hashlib.sha256).digest()
        self._token = token.encode()
        self.lifetime_s = lifetime_s
        self.clock = clock

    def token_matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self._token)

    def _sign(self, payload: str) -> str:
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()

    def issue(self) -> str:
        payload = f"{int(self.clock()) + self.lifetime_s}.{secrets.token_hex(8)}"
        return f"{payload}.{self._sign(payload)}"

    def valid(self, value: str | None) -> bool:
        if not value or value.count(".") != 2:
            return False
        payload, _, signature = value.rpartition(".")
        expires = payload.split(".")[0]
        if not hmac.compare_digest(signature, self._sign(payload)) or not expires.isdigit():
            return False
        return int(expires) > self.clock()


def cookie_value(cookie_header: str | None) -> str | None:
    for part in (cookie_header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value.strip().strip('"')
    return None


def safe_next(target: str | None) -> str:
    """Only a path on this site: never another host (``//evil``, ``/\\evil``, ``https://…``)."""
    target = (target or "/").strip()
    if not target.startswith("/") or target.startswith(("//", "/\\")) or len(target) > 2000 or any(c in target for c in "\r\n"):
        return "/"
    return target


@lru_cache(maxsize=1)
def _template() -> str:
    return (STATIC_DIR / "login.html").read_text(encoding="utf-8")


def login_page(root_path: str, next_path: str, message: str = "", status: int = 200) -> HTMLResponse:
    values = {"static": f"{root_path}/embed/static", "action": f"{root_path}/login", "next": next_path, "message": message,
              "message_class": "error" if message else "hidden"}  # fmt: skip
    body = _template()
    for key, value in values.items():
        body = body.replace("{{" + key + "}}", html.escape(value))
    headers = {"Content-Security-Policy": LOGIN_CSP, "Cache-Control": "no-store"}
    return HTMLResponse(body, status_code=status, headers=headers)


def install_login(app: FastAPI, settings: Settings) -> None:
    """/login and /logout; without ADVISOR_API_TOKEN the UI is open and /login just goes home."""
    signer = SessionSigner(settings.api_token.get_secret_value()) if settings.api_token else None

    @app.get("/login", include_in_schema=False)
    def login_form(request: Request, next: str = "/"):
        root = request.scope.get("root_path", "")
        if signer is None:
            return RedirectResponse(f"{root}{safe_next(next)}", status_code=303)
        return login_page(root, safe_next(next))

    @app.post("/login", include_in_schema=False)
    async def login(request: Request):
        root = request.scope.get("root_path", "")
        fields = parse_qs((await request.body()).decode("utf-8", errors="replace"), max_num_fields=4)
        target = safe_next((fields.get("next") or ["/"])[0])
        if signer is None:
            return RedirectResponse(f"{root}{target}", status_code=303)
        if not signer.token_matches((fields.get("token") or [""])[0].strip() or None):
            log.warning("Failed sign-in from %s", request.client.host if request.client else "?")
            return login_page(root, target, LOGIN_TEXT["failed"], status=401)
        response = RedirectResponse(f"{root}{target}", status_code=303)
        response.set_cookie(COOKIE, signer.issue(), max_age=signer.lifetime_s, path=f"{root}/", httponly=True,
                            samesite="lax", secure=request.url.scheme == "https")  # fmt: skip
        return response

    @app.get("/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        root = request.scope.get("root_path", "")
        response = RedirectResponse(f"{root}/login", status_code=303)
        response.delete_cookie(COOKIE, path=f"{root}/")
        return response


def login_redirect(root_path: str, path: str, query: bytes) -> str:
    target = path + (("?" + query.decode("latin-1")) if query else "")
    return f"{root_path}/login?next={quote(safe_next(target), safe='/')}"
