# A cap on request bodies, enforced before any handler reads them: a declared
# Content-Length over the cap is refused at once, and a chunked body is counted as it
# arrives (held, never past the cap, until the app reads it). Either way the client
# gets a 413 with a JSON message that says the limit.
from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    """ASGI middleware answering 413 to request bodies over `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                if not value.isdigit():
                    await self._refuse(send, 400, "the Content-Length header is not a number")
                    return
                if int(value) > self.max_bytes:
                    await self._refuse(send, 413, self._message(int(value)))
                    return
        # Read the whole body first (at most max_bytes are ever held), then hand it on:
        # the handlers never see a body over the cap, whatever framing the client used.
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await self._refuse(send, 413, self._message(seen))
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
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

    @staticmethod
    async def _refuse(send: Send, status: int, message: str) -> None:
        body = json.dumps({"error": {"status": status, "message": message}}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
