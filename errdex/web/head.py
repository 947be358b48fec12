# HEAD wherever GET is served (RFC 9110, 9.3.2): uptime checks and link checkers send it.
# FastAPI routes answer only the methods they name, so a HEAD request is handled as the
# GET it stands for and its answer sent without the body: the same status and headers
# (Content-Length, ETag, Cache-Control) as the GET's.
from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    """ASGI middleware answering HEAD as GET, without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of the body is not sent; its end is
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
