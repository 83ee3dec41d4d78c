"""What stands in front of every route: one policy for the API, the Gradio UI and its API, and MCP.

A plain ASGI middleware rather than FastAPI dependencies, because it must also cover the mounted
Gradio app and the body limit has to count bytes as they stream in (a client may omit or lie about
Content-Length) before any route parses them. In order, for each request:

1. the client address is resolved (X-Forwarded-For only from ADVISOR_TRUSTED_PROXIES), a request id
   is attached, and every response gets ``frame-ancestors`` and ``nosniff`` unless it set its own;
2. ``/api/embed/*`` needs the narrow embed key (ADVISOR_EMBED_KEY) from an allowed origin and has its
   own rate limit; ``/healthz``, ``/login``, ``/logout`` and the embed page are public;
3. metered paths (``/api``, ``/v1``, ``/mcp``, and every request under ``/gradio_api`` that starts work)
   count against ADVISOR_RATE_LIMIT per client address; with ADVISOR_API_TOKEN set, everything else
   needs ``Authorization: Bearer`` or the signed session cookie from ``/login`` (browsers asking
   for a page are sent there);
4. metered bodies are read up to ADVISOR_MAX_BODY_BYTES.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import math
import os
import threading
import time
import uuid
from collections import OrderedDict, deque
from urllib.parse import unquote

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from advisor.config import Settings
from advisor.interfaces.access_log import log_access
from advisor.interfaces.door_text import worded_error
from advisor.interfaces.embed import frame_origins
from advisor.interfaces.http_errors import error_response
from advisor.interfaces.proxies import TrustedProxies
from advisor.interfaces.same_origin import from_another_site, header, same_site_origin
from advisor.interfaces.sessions import LOGIN_TEXT, SessionSigner, cookie_value, login_page, login_redirect
from knowledge.bilingual import AdvisorError

log = logging.getLogger(__name__)
METERED_PREFIXES = ("/api/", "/v1/", "/gradio_api/", "/mcp")
EMBED_API_PREFIX = "/api/embed/"
PUBLIC_PATHS = {"/healthz", "/login", "/logout", "/embed"}
PUBLIC_PREFIXES = ("/embed/static/",)
# Gradio streams that belong to a call already counted when it was started (join, call, upload).
FOLLOW_UP_PREFIXES = ("/gradio_api/queue/data", "/gradio_api/heartbeat/", "/gradio_api/call/", "/gradio_api/upload_progress")
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
# No component of the UI takes or serves files: these Gradio routes only ever read or write the disk
# on a client's say-so (uploads, `file=` reads, proxied URLs, media streams), so none is open at all.
CACHE_FILE_ROUTE = "/gradio_api/file="
UI_FILE_ROUTES = ("/gradio_api/upload", "/gradio_api/file=", "/gradio_api/file/", "/gradio_api/proxy=", "/gradio_api/stream/",
                  "/file=", "/upload", "/proxy=")  # fmt: skip
# Every HTML page: no image, script, font or connection to another host (a model's answer that links
# a remote image cannot make the browser send conversation text anywhere).
PAGE_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; media-src 'self' blob:; worker-src 'self' blob:; "
               "object-src 'none'; base-uri 'self'; form-action 'self'")  # fmt: skip
WINDOW_S = 60.0
# Past this many clients seen in one window, the least recently seen are forgotten: memory and
# the cost of a hit stay bounded however many addresses a flood comes from.
MAX_TRACKED_CLIENTS = 10_000
IPV6_CLIENT_PREFIX = 64  # one IPv6 host owns a whole /64 and could rotate through it


class SlidingWindowLimiter:
    """At most ``limit`` requests per client in any 60-second window; 0 disables it.

    Clients are kept least recently seen first, so forgetting idle ones only ever looks at the
    front of the table: each hit costs O(1) amortised, whatever the number of clients.
    """

    def __init__(self, limit: int, window_s: float = WINDOW_S, clock=time.monotonic, max_clients: int = MAX_TRACKED_CLIENTS):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.max_clients = max_clients
        self._hits: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Clients currently tracked."""
        return len(self._hits)

    def hit(self, key: str) -> float | None:
        """Record a request; return seconds to wait if it is over the limit (then it is not recorded)."""
        if self.limit <= 0:
            return None
        now = self.clock()
        with self._lock:
            self._forget_idle(now)
            hits = self._hits.get(key)
            if hits is None:
                while len(self._hits) >= self.max_clients:
                    self._hits.popitem(last=False)
                hits = self._hits[key] = deque()
            else:
                self._hits.move_to_end(key)
            while hits and hits[0] <= now - self.window_s:
                hits.popleft()
            if len(hits) >= self.limit:
                return hits[0] + self.window_s - now
            hits.append(now)
            return None

    def blocked(self, key: str) -> float | None:
        """Seconds to wait if ``key`` is at its limit now; records nothing."""
        if self.limit <= 0:
            return None
        now = self.clock()
        with self._lock:
            hits = self._hits.get(key)
            recent = [t for t in hits or () if t > now - self.window_s]
            return recent[0] + self.window_s - now if len(recent) >= self.limit else None

    def _forget_idle(self, now: float) -> None:
        """Drop clients with no request inside the window, from the front until one is still active."""
        while self._hits:
            newest = self._hits[next(iter(self._hits))]
            if newest and newest[-1] > now - self.window_s:
                return
            self._hits.popitem(last=False)


def client_address_key(address: str) -> str:
    """Rate-limit key of a peer address: the address itself, or its /64 network for IPv6."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # a Unix socket or test client: no address to group
        return "ip:" + address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:  # an IPv4 peer on a dual-stack socket
            return "ip:" + str(ip.ipv4_mapped)
        return "ip:" + str(ipaddress.ip_network(f"{ip}/{IPV6_CLIENT_PREFIX}", strict=False))
    return "ip:" + str(ip)


def _bearer(scope: Scope) -> str | None:
    value = header(scope, b"authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def is_metered(method: str, path: str) -> bool:
    """Requests that start work count against the rate limit; the streams that deliver its result do not."""
    if path == "/login":
        return method == "POST"  # guessing the token is rate limited
    if not path.startswith(METERED_PREFIXES):
        return False
    return not (method == "GET" and path.startswith(FOLLOW_UP_PREFIXES))


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


def rate_limited(limit: int, seconds: int) -> AdvisorError:
    return worded_error("rate_limited", limit=limit, seconds=seconds)


UNAUTHORIZED = worded_error("unauthorized")
FILES_REFUSED = worded_error("files_refused")
CROSS_SITE = worded_error("cross_site_request")
# What a wiki reader sees when the page embedding the chat has no valid key: no developer jargon.
EMBED_KEY_REFUSED = worded_error("embed_key_invalid")
EMBED_ORIGIN_REFUSED = worded_error("embed_origin_refused")


class ApiGuard:
    def __init__(self, app: ASGIApp, settings: Settings, signer: SessionSigner | None = None, clock=time.monotonic):
        self.app = app
        self.token = settings.api_token.get_secret_value() if settings.api_token else None
        # One signer per server: the login routes issue and revoke cookies with the same one.
        self.signer = signer if signer is not None or self.token is None else SessionSigner.for_settings(settings)
        self.embed_key = settings.embed_key.get_secret_value() if settings.embed_key else None
        self.embed_origins = set(frame_origins(settings))
        self.max_body = settings.max_body_bytes
        self.limiter = SlidingWindowLimiter(settings.rate_limit_per_minute, clock=clock)
        self.embed_limiter = SlidingWindowLimiter(settings.embed_rate_limit_per_minute, clock=clock)
        self.proxies = TrustedProxies(settings.trusted_proxies)
        ancestors = " ".join(["'self'", *frame_origins(settings)])
        self.default_headers = [
            (b"content-security-policy", f"{PAGE_POLICY}; frame-ancestors {ancestors}".encode()),
            (b"x-content-type-options", b"nosniff"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        self.proxies.apply(scope)
        if not self.proxies.trusts(scope["state"].get("peer")):
            _drop_forwarding_headers(scope)
        path = scope["path"]
        client = client_address_key((scope.get("client") or ("?",))[0])
        if scope["type"] == "websocket":
            if self.token is not None and not is_public(path) and not self._websocket_allowed(scope, client):
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        send = self._with_headers(send, request_id, scope)
        method = scope["method"]
        if path.startswith(EMBED_API_PREFIX):
            refusal = self._embed_refusal(scope, client)
        elif is_public(path) and not is_metered(method, path):
            await self.app(scope, receive, send)
            return
        else:
            refusal = self._refusal(scope, client, method, path)
        body = b""
        if refusal is None and (is_metered(method, path) or path.startswith(EMBED_API_PREFIX)):
            body, refusal = await self._read_body(receive)
            receive = _replay(body, receive)
        if refusal is None and path.startswith(("/gradio_api/", "/file=", "/upload", "/proxy=")):
            refusal = _file_refusal(method, path, body)
        if refusal is not None:
            await self._refuse(scope, receive, send, request_id, refusal)
            return
        await self.app(scope, receive, send)

    # --- decisions ----------------------------------------------------------------------
    def _authenticated(self, scope: Scope) -> bool:
        if self.signer is None:
            return True
        return self.signer.token_matches(_bearer(scope)) or self.signer.valid(cookie_value(header(scope, b"cookie")))

    def _websocket_allowed(self, scope: Scope, client: str) -> bool:
        if self.limiter.blocked(client) is not None:
            return False
        if self._authenticated(scope):
            return True
        self.limiter.hit(client)  # a failed authentication counts, on every door
        return False

    def _refusal(self, scope: Scope, client: str, method: str, path: str):
        metered = is_metered(method, path)
        if metered:
            wait = self.limiter.hit(client)
            if wait is not None:
                return self._limited(wait)
        if self.signer is None or is_public(path):
            return self._too_large(scope)
        # A client over its limit (e.g. after many wrong tokens) is refused before its credentials are
        # even compared: it learns nothing about a guess until the window has passed.
        if not metered and (wait := self.limiter.blocked(client)) is not None:
            return self._limited(wait)
        if self.signer.token_matches(_bearer(scope)):
            return self._too_large(scope)
        if self.signer.valid(cookie_value(header(scope, b"cookie"))):
            if method not in SAFE_METHODS and from_another_site(scope):
                return 403, CROSS_SITE, None
            return self._too_large(scope)
        if not metered:  # every failed authentication counts toward the limit, whatever the route
            wait = self.limiter.hit(client)
            if wait is not None:
                return self._limited(wait)
        accept = header(scope, b"accept") or ""
        if method in ("GET", "HEAD") and not metered and "text/html" in accept:
            location = login_redirect(scope.get("root_path", ""), path, scope.get("query_string", b""))
            return 303, None, {"Location": location, "Cache-Control": "no-store"}
        return 401, UNAUTHORIZED, {"WWW-Authenticate": "Bearer"}

    def _limited(self, wait: float):
        seconds = max(1, math.ceil(wait))
        return 429, rate_limited(self.limiter.limit, seconds), {"Retry-After": str(seconds)}

    def _embed_refusal(self, scope: Scope, client: str):
        wait = self.embed_limiter.hit(client)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            return 429, rate_limited(self.embed_limiter.limit, seconds), {"Retry-After": str(seconds)}
        if self.embed_key is None and self.token is None:
            return self._too_large(scope)  # an open server: the embed is as open as the rest
        if self.embed_key is None or not hmac.compare_digest((header(scope, b"x-embed-key") or "").encode(), self.embed_key.encode()):
            return 401, EMBED_KEY_REFUSED, None
        origin = (header(scope, b"origin") or "").rstrip("/")
        if not origin or not (origin in self.embed_origins or same_site_origin(origin, scope)):
            return 403, EMBED_ORIGIN_REFUSED, None
        return self._too_large(scope)

    def _too_large(self, scope: Scope | None = None):
        length = header(scope, b"content-length") if scope is not None else None
        if scope is not None and not (length and length.strip().isdigit() and int(length) > self.max_body):
            return None
        error = worded_error("body_too_large", "body_too_large_limit", limit=self.max_body)
        return 413, error, None

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, request_id: str, refusal) -> None:
        status, error, headers = refusal
        if error is None:  # a redirect to the sign-in page
            await Response(status_code=status, headers=headers)(scope, receive, send)
        elif scope["path"].startswith("/mcp"):  # MCP clients read JSON-RPC errors, whatever the status
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600 if status == 413 else -32000,
                    "message": f"{error.message('en')} / {error.message('zh')}", "data": error.to_dict()}}  # fmt: skip
            await JSONResponse(body, status_code=status, headers=headers)(scope, receive, send)
        elif scope["path"] == "/login" and status == 429:  # a person at the sign-in form: answer with the form
            page = login_page(scope.get("root_path", ""), "/", LOGIN_TEXT["limited"], status=status)
            page.headers.update(headers or {})
            await page(scope, receive, send)
        else:
            await error_response(status, error, request_id, headers)(scope, receive, send)

    async def _read_body(self, receive: Receive):
        """Read the whole body, stopping as soon as it exceeds the limit (Content-Length may lie)."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # client went away
                return b"", None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), None

    def _with_headers(self, send: Send, request_id: str, scope: Scope) -> Send:
        defaults = self.default_headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {key.lower() for key, _ in headers}
                headers += [(key, value) for key, value in defaults if key not in present]
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
                log_access(scope, message["status"])
            await send(message)

        return send_with_headers


def _drop_forwarding_headers(scope: Scope) -> None:
    """Gradio reads X-Forwarded-Host/-Proto itself to build its URLs: from anyone but a trusted proxy, they go."""
    headers = scope.get("headers", ())
    if any(key.startswith(b"x-forwarded-") for key, _ in headers):
        scope["headers"] = [(key, value) for key, value in headers if not key.startswith(b"x-forwarded-")]


def _in_gradio_cache(name: str) -> bool:
    from gradio.utils import get_upload_folder  # only the UI's routes get here: MCP alone never imports Gradio

    cache = os.path.realpath(get_upload_folder())
    return os.path.commonpath([cache, os.path.realpath(name)]) == cache


def _carries_a_file(value, depth: int = 0) -> bool:
    """Does a JSON body hold a file object anywhere (Gradio's FileData: a dict with a ``path``)?"""
    if depth > 64:  # deeper than any real UI call: treat as hostile
        return True
    if isinstance(value, dict):
        meta = value.get("meta")
        if "path" in value or (isinstance(meta, dict) and meta.get("_type") == "gradio.FileData"):
            return True
        return any(_carries_a_file(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_carries_a_file(item, depth + 1) for item in value)
    return False


def _file_refusal(method: str, path: str, body: bytes):
    """The UI's API reads no file a client names: file routes are closed and file objects refused. The one
    exception is a download the UI itself made (a proposal), which Gradio serves from its own cache folder."""
    if method in ("GET", "HEAD") and path.startswith(CACHE_FILE_ROUTE) and _in_gradio_cache(unquote(path[len(CACHE_FILE_ROUTE) :])):
        return None
    if path.startswith(UI_FILE_ROUTES):
        return 403, FILES_REFUSED, None
    if not body.strip():
        return None
    try:
        value = json.loads(body)
    except ValueError:  # not JSON: Gradio refuses it itself
        return None
    return (400, FILES_REFUSED, None) if _carries_a_file(value) else None


def _replay(body: bytes, receive: Receive) -> Receive:
    """Hand the buffered body to the app once; later receives (disconnect watch) go to the client."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
