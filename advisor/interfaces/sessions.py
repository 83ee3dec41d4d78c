"""Signing in to the web UI with ADVISOR_API_TOKEN: a login page and a signed session cookie.

The cookie is an itsdangerous timestamped signature (as Starlette's own sessions use) over a random
session id, keyed by the installation's server secret mixed with the token: a captured cookie gives
nothing to guess the token with offline, changing the token signs everyone out, and the signing time
(not anything the cookie claims) bounds its life to 12 hours. Signing out is a same-origin POST that
revokes the session id on the server (kept in the data directory, so a restart does not revive it).
Browsers send the cookie to the Gradio UI and its ``/gradio_api`` routes; scripts keep sending
``Authorization: Bearer``. ``ApiGuard`` checks both, so every door has the same lock.
"""

from __future__ import annotations

import hmac
import html
import json
import logging
import secrets
import threading
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer

from advisor.config import Settings
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.same_origin import from_another_site
from advisor.server_secret import derive_key, server_secret

log = logging.getLogger(__name__)
COOKIE = "advisor_session"
SESSION_S = 12 * 3600
REVOKED_FILE = "revoked-sessions.json"
STATIC_DIR = Path(__file__).parent / "static"
LOGIN_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
# The sign-in page speaks both languages at once, Chinese first.
LOGIN_TEXT = {key: " · ".join(reversed(TEXT.pair(f"login.{key}"))) for key in TEXT.entry("login")}


class RevokedSessions:
    """Session ids signed out before their cookie expired, until then; saved beside the secret."""

    def __init__(self, path: Path | None, clock=time.time):
        self.path = path
        self.clock = clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()
        if path is not None and path.exists():
            try:
                self._until = {str(k): float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
            except (OSError, ValueError, AttributeError):  # unreadable: sessions it held expire within 12 h anyway
                log.warning("could not read %s; starting with no revoked sessions", path)

    def revoke(self, session_id: str, until: float) -> None:
        with self._lock:
            now = self.clock()
            self._until = {sid: end for sid, end in self._until.items() if end > now}
            self._until[session_id] = until
            if self.path is not None:
                try:
                    self.path.write_text(json.dumps(self._until), encoding="utf-8")
                except OSError:
                    log.warning("could not save revoked sessions to %s", self.path)

    def __contains__(self, session_id: str) -> bool:
        return self._until.get(session_id, 0) > self.clock()


class SessionSigner:
    """Issues and checks session cookies; one per server, shared by the guard and the login routes."""

    def __init__(self, token: str, secret: bytes, lifetime_s: int = SESSION_S, clock=time.time, revoked: RevokedSessions | None = None):
        self._token = token.encode()
        self.lifetime_s = lifetime_s
        self.clock = clock
        self.revoked = revoked or RevokedSessions(None, clock)

        class ClockedSigner(TimestampSigner):  # the signing time comes from our clock, so tests can move it
            def get_timestamp(self) -> int:
                return int(clock())

        key = derive_key(secret, "session cookie", token)
        self._serializer = URLSafeTimedSerializer(key, salt="gpu-advisor session v2", signer=ClockedSigner)

    @classmethod
    def for_settings(cls, settings: Settings) -> SessionSigner | None:
        if settings.api_token is None:
            return None
        data_dir = Path(settings.data_dir)
        return cls(settings.api_token.get_secret_value(), server_secret(data_dir), revoked=RevokedSessions(data_dir / REVOKED_FILE))

    def token_matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self._token)

    def issue(self) -> str:
        return self._serializer.dumps({"sid": secrets.token_urlsafe(16)})

    def session_id(self, value: str | None) -> str | None:
        """The session id of a valid, unexpired, not revoked cookie; None otherwise."""
        if not value or len(value) > 512:
            return None
        try:
            # max_age is measured from the signing time: a cookie cannot claim a longer life.
            payload = self._serializer.loads(value, max_age=self.lifetime_s)
        except (BadSignature, ValueError, TypeError):
            return None
        session_id = payload.get("sid") if isinstance(payload, dict) else None
        if not isinstance(session_id, str) or session_id in self.revoked:
            return None
        return session_id

    def valid(self, value: str | None) -> bool:
        return self.session_id(value) is not None

    def end(self, value: str | None) -> None:
        """Sign a session out for good (its cookie is refused from now on)."""
        session_id = self.session_id(value)
        if session_id is not None:
            self.revoked.revoke(session_id, self.clock() + self.lifetime_s)


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


@lru_cache(maxsize=4)
def _template(name: str) -> str:
    return (STATIC_DIR / name).read_text(encoding="utf-8")


def _page(name: str, values: dict[str, str], status: int) -> HTMLResponse:
    body = _template(name)
    for key, value in values.items():
        body = body.replace("{{" + key + "}}", html.escape(value))
    headers = {"Content-Security-Policy": LOGIN_CSP, "Cache-Control": "no-store"}
    return HTMLResponse(body, status_code=status, headers=headers)


def login_page(root_path: str, next_path: str, message: str = "", status: int = 200) -> HTMLResponse:
    values = {"static": f"{root_path}/embed/static", "action": f"{root_path}/login", "next": next_path, "message": message,
              "message_class": "error" if message else "hidden"}  # fmt: skip
    return _page("login.html", values, status)


def logout_page(root_path: str, message: str = "", status: int = 200) -> HTMLResponse:
    values = {"static": f"{root_path}/embed/static", "action": f"{root_path}/logout", "message": message,
              "message_class": "error" if message else "hidden"}  # fmt: skip
    return _page("logout.html", values, status)


def install_login(app: FastAPI, settings: Settings, signer: SessionSigner | None) -> None:
    """/login and /logout; without ADVISOR_API_TOKEN the UI is open and /login just goes home."""

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
    def logout_form(request: Request) -> Response:
        """A page with a sign-out button: a link or an image on another site cannot sign anyone out."""
        return logout_page(request.scope.get("root_path", ""))

    @app.post("/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        root = request.scope.get("root_path", "")
        if from_another_site(request.scope):
            return logout_page(root, LOGIN_TEXT["cross_site"], status=403)
        if signer is not None:
            signer.end(request.cookies.get(COOKIE))
        response = RedirectResponse(f"{root}/login", status_code=303)
        response.delete_cookie(COOKIE, path=f"{root}/")
        return response


def login_redirect(root_path: str, path: str, query: bytes) -> str:
    target = path + (("?" + query.decode("latin-1")) if query else "")
    return f"{root_path}/login?next={quote(safe_next(target), safe='/')}"
