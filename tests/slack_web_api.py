"""A loopback stand-in for https://slack.com/api/ that records every call the bot makes.

Real ``WebClient`` requests (JSON, form or query string) reach it over HTTP, so retry handlers,
headers and serialisation are exercised exactly as against Slack. It also serves a response_url.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

BOT_USER_ID = "UBOT"
BOT_ID = "B0BOT"
TEAM_ID = "T111"


@dataclass
class Call:
    method: str
    params: dict
    status: int


@dataclass
class FakeSlackWebAPI:
    threads: dict[str, list[dict]] = field(default_factory=dict)  # thread_ts → conversations.replies messages
    rate_limit_once: set[str] = field(default_factory=set)  # methods that answer 429 on their next call
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self):
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/api/"

    @property
    def response_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/commands/{TEAM_ID}/1/hook"

    def __enter__(self) -> FakeSlackWebAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def accepted(self, method: str) -> list[dict]:
        """Parameters of the calls to ``method`` that succeeded (not rate-limited)."""
        with self._lock:
            return [c.params for c in self.calls if c.method == method and c.status == 200]

    def wait_for(self, condition, timeout: float = 30.0):
        """Poll until ``condition()`` is truthy (listeners run on Bolt's worker threads)."""
        deadline = time.monotonic() + timeout
        while not (result := condition()):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; calls so far: {[(c.method, c.status) for c in self.calls]}")
            time.sleep(0.02)
        return result

    def _answer(self, method: str, params: dict) -> tuple[int, dict]:
        with self._lock:
            if method in self.rate_limit_once:
                self.rate_limit_once.discard(method)
                self.calls.append(Call(method, params, 429))
                return 429, {"ok": False, "error": "ratelimited"}
            self.calls.append(Call(method, params, 200))
            if method == "auth.test":
                return 200, {"ok": True, "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "user": "gpu-advisor"}
            if method == "chat.postMessage":
                return 200, {"ok": True, "channel": params.get("channel"), "ts": f"2000000000.{next(self._ts):06d}"}
            if method == "chat.update":
                return 200, {"ok": True, "channel": params.get("channel"), "ts": params.get("ts"), "text": params.get("text")}
            if method == "conversations.replies":
                return 200, {"ok": True, "messages": self.threads.get(params.get("ts"), []), "has_more": False}
            if method == "files.getUploadURLExternal":  # files_upload_v2: ask where to put the bytes, put them, complete
                return 200, {"ok": True, "upload_url": self.base_url.replace("/api/", "/upload/F1"), "file_id": "F1"}
            if method == "files.completeUploadExternal":
                return 200, {"ok": True, "files": [{"id": "F1"}]}
            if method == "response_url":
                return 200, {}
            return 200, {"ok": False, "error": "unknown_method"}

    def _handler_class(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self._handle(b"")

            def do_POST(self):
                self._handle(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _handle(self, body: bytes):
                url = urlsplit(self.path)
                if url.path.startswith("/upload/"):  # the file's bytes themselves (multipart), kept whole for the test
                    with api._lock:
                        api.calls.append(Call("upload", {"body": body}, 200))
                    self.send_response(200)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"OK")
                    return
                params = dict(parse_qsl(url.query))
                if body and "json" in (self.headers.get("Content-Type") or ""):
                    params.update(json.loads(body))
                elif body:
                    params.update(parse_qsl(body.decode()))
                method = url.path.removeprefix("/api/") if url.path.startswith("/api/") else "response_url"
                status, payload = api._answer(method, params)
                data = json.dumps(payload).encode() if method != "response_url" else b"ok"
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Type", "application/json" if method != "response_url" else "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep pytest output clean
                pass

        return Handler
