"""What stands in front of the API routes: request ids, bearer auth, rate limit, body size.

A plain ASGI middleware rather than FastAPI dependencies, because the body limit has to
count bytes as they stream in (a client may omit or lie about Content-Length) before any
route parses them. Only API paths are guarded: the embed page, health check and Gradio UI
(which uploads files through its own routes) pass straight through.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import threading
import time
import uuid
from collections import OrderedDict, deque

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from advisor.config import Settings
from advisor.interfaces.http_errors import error_response
from knowledge.bilingual import AdvisorError

GUARDED_PREFIXES = ("/api/", "/v1/")
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


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def _bearer(scope: Scope) -> str | None:
    value = _header(scope, b"authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class ApiGuard:
    def __init__(self, app: ASGIApp, settings: Settings, clock=time.monotonic):
        self.app = app
        self.token = settings.api_token.get_secret_value() if settings.api_token else None
        self.max_body = settings.max_body_bytes
        self.limiter = SlidingWindowLimiter(settings.rate_limit_per_minute, clock=clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id
        send = _with_request_id(send, request_id)
        if not scope["path"].startswith(GUARDED_PREFIXES):
            await self.app(scope, receive, send)
            return
        refusal = self._refuse_before_body(scope)
        if refusal is None:
            body, refusal = await self._read_body(receive)
        if refusal is not None:
            status, error, headers = refusal
            await error_response(status, error, request_id, headers)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _refuse_before_body(self, scope: Scope):
        token = _bearer(scope)
        authorized = self.token is None or (token is not None and hmac.compare_digest(token.encode(), self.token.encode()))
        # A verified token names the client, otherwise its address does: nobody dodges the limit
        # by inventing tokens, and guessing tokens is itself rate limited.
        if self.token is not None and authorized:
            client = "token:" + hashlib.sha256(token.encode()).hexdigest()
        else:
            client = client_address_key((scope.get("client") or ("?",))[0])
        wait = self.limiter.hit(client)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            limit = self.limiter.limit
            error = AdvisorError(
                "rate_limited",
                f"Too many requests: the limit is {limit} per minute. Retry in {seconds} s.",
                f"请求过于频繁：每分钟最多 {limit} 次，请 {seconds} 秒后重试。",
            )
            return 429, error, {"Retry-After": str(seconds)}
        if not authorized:
            error = AdvisorError(
                "unauthorized",
                "Missing or invalid API token: send the header 'Authorization: Bearer <ADVISOR_API_TOKEN>'.",
                "缺少或错误的 API 令牌：请在请求头中加入 'Authorization: Bearer <ADVISOR_API_TOKEN>'。",
            )
            return 401, error, {"WWW-Authenticate": "Bearer"}
        length = _header(scope, b"content-length")
        if length and length.strip().isdigit() and int(length) > self.max_body:
            return self._too_large()
        return None

    def _too_large(self):
        error = AdvisorError(
            "body_too_large",
            f"The request body exceeds the limit of {self.max_body} bytes (ADVISOR_MAX_BODY_BYTES).",
            f"请求体超过上限 {self.max_body} 字节（ADVISOR_MAX_BODY_BYTES）。",
        )
        return 413, error, None

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


def _with_request_id(send: Send, request_id: str) -> Send:
    async def send_with_id(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
        await send(message)

    return send_with_id
