"""A minimal keep-alive HTTP/1.1 client on asyncio streams, for the load test's hot path.

httpx costs several milliseconds of CPU per request; with client and server sharing two
cores that is enough to make the client the bottleneck. This speaks just the HTTP the
server sends back (Content-Length or chunked bodies), one connection per simulated user.
"""

from __future__ import annotations

import asyncio


class HttpError(RuntimeError):
    """The connection broke or the server sent something this client cannot read."""


class Connection:
    def __init__(self, host: str, port: int, timeout_s: float):
        self.host, self.port, self.timeout_s = host, port, timeout_s
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        """(status, lower-cased headers, whole body); reconnects once if a kept-alive socket went stale."""
        try:
            return await asyncio.wait_for(self._exchange(method, path, body), self.timeout_s)
        except (ConnectionError, asyncio.IncompleteReadError):
            await self.close()
            return await asyncio.wait_for(self._exchange(method, path, body), self.timeout_s)

    async def _exchange(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self._writer.write(head.encode() + body)
        status_line = (await self._reader.readuntil(b"\r\n")).split()
        if len(status_line) < 2 or not status_line[1].isdigit():
            raise HttpError(f"not an HTTP status line: {b' '.join(status_line)[:80]!r}")
        status = int(status_line[1])
        headers = {}
        for line in (await self._reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if value:
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            payload = await self._chunked()
        else:
            payload = await self._reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, payload

    async def _chunked(self) -> bytes:
        parts = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")  # no trailers are sent: just the final CRLF
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        self._reader = self._writer = None
