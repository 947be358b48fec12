# What keeps one client from holding the server: a deadline on each request's line and
# headers and a cap on open connections (GuardedH11Protocol, at the connection), a cap on
# requests in flight (RequestLimit), and a cap and a deadline on request bodies
# (BodyLimit). Each refusal is an HTTP answer that says which limit was met.
#
# Why a protocol class: uvicorn arms its keep-alive timer only after a response, and a
# byte received cancels it, so a connection that sends half a request line is held
# forever; its `limit_concurrency` counts such connections, so a few hundred of them
# made every other client get 503. uvicorn has no header-read timeout, so the h11
# protocol is subclassed: from the moment a connection opens (or its last response
# ends) the request line and headers must be complete within `header_timeout`, and a
# connection over `max_connections` makes room by closing the one that has waited
# longest for its headers. Requests, not connections, are what RequestLimit counts.
from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import h11
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from errdex import codec

HEADER_TIMEOUT = 10.0  # seconds for a request line and its headers
BODY_TIMEOUT = 30.0  # seconds for a whole request body (a 512 KiB body at 18 KB/s)
MAX_CONNECTIONS = 1000  # open connections per server process
MAX_REQUESTS = 200  # requests in flight per server process


def _answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 response with a JSON error body, closing the connection."""
    body = codec.dumps(codec.http_error_to_json(status, message)).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on request headers and a connection cap.

    A connection whose request line and headers are not complete `header_timeout`
    seconds after it opened, or after its previous response, is closed (with a 408 if
    part of a request had arrived). Over `max_connections`, a new connection closes the
    open one that has waited longest for its headers, else it is closed itself. Set the
    limits by subclassing (a class, so uvicorn's worker processes can import it).
    """

    header_timeout: ClassVar[float] = HEADER_TIMEOUT
    max_connections: ClassVar[int] = MAX_CONNECTIONS

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._header_deadline: asyncio.TimerHandle | None = None
        self.waiting_since: float | None = None  # loop time since headers are awaited

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._await_headers()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._headers_done()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.waiting_since is not None and self.conn.their_state is not h11.IDLE:
            self._headers_done()  # a request (or a protocol error) has been read

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._await_headers()  # the next request's headers, on a kept-alive connection
        super().on_response_complete()

    def _await_headers(self) -> None:
        self._headers_done()
        self.waiting_since = self.loop.time()
        self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_late)

    def _headers_done(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None
        self.waiting_since = None

    def _headers_late(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:  # part of a request came, and no more in time
            message = (
                f"the request line and headers did not arrive within {self.header_timeout:g} s"
            )
            self.transport.write(_answer(408, "Request Timeout", message))
        self._drop()

    def _make_room(self) -> None:
        waiting = [
            c
            for c in self.connections
            if isinstance(c, GuardedH11Protocol) and c is not self and c.waiting_since is not None
        ]
        if waiting:
            min(waiting, key=lambda c: c.waiting_since or 0.0)._drop()
        else:
            self._drop()

    def _drop(self) -> None:
        self._headers_done()
        if not self.transport.is_closing():
            if self.conn.our_state is h11.IDLE:
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()


class RequestLimit:
    """ASGI middleware answering 503 while `max_requests` requests are in flight."""

    def __init__(self, app: ASGIApp, max_requests: int = MAX_REQUESTS) -> None:
        self.app = app
        self.max_requests = max_requests
        self.active = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.active >= self.max_requests:
            await _refuse(
                send,
                503,
                f"the server is answering {self.max_requests} requests already; try again",
                [(b"retry-after", b"1")],
            )
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1


class BodyLimit:
    """ASGI middleware answering 413 to request bodies over `max_bytes`, and 408 to a
    body that has not wholly arrived `timeout` seconds after the headers.

    A declared Content-Length over the cap is refused at once, and a chunked body is
    counted as it arrives (held, never past the cap, until the app reads it).
    """

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float = BODY_TIMEOUT) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                if not value.isdigit():
                    await _refuse(send, 400, "the Content-Length header is not a number")
                    return
                if int(value) > self.max_bytes:
                    await _refuse(send, 413, self._message(int(value)))
                    return
        # Read the whole body first (at most max_bytes are ever held), then hand it on:
        # the handlers never see a body over the cap, whatever framing the client used.
        chunks: list[bytes] = []
        seen = 0
        try:
            async with asyncio.timeout(self.timeout):
                more = True
                while more:
                    message = await receive()
                    if message["type"] != "http.request":  # the client went away
                        return
                    chunk = message.get("body", b"")
                    seen += len(chunk)
                    if seen > self.max_bytes:
                        break
                    chunks.append(chunk)
                    more = bool(message.get("more_body", False))
        except TimeoutError:
            await _refuse(
                send,
                408,
                f"the request body did not arrive within {self.timeout:g} s"
                f" ({seen:,} bytes came); send it whole, or send a shorter one",
            )
            return
        if seen > self.max_bytes:
            await _refuse(send, 413, self._message(seen))
            return
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _message(self, size: int) -> str:
        return (
            f"the request body is {size:,} bytes or more, over the {self.max_bytes:,}-byte"
            " limit; send only the traceback's last exception or the message line"
        )


async def _refuse(
    send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Answer `status` with a JSON error body and close the connection."""
    body = codec.dumps(codec.http_error_to_json(status, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
