# A Server-Timing header on every response: the time the application spent on the
# request, so that benchmarks and browsers can tell server time from network time.
from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class ServerTiming:
    """ASGI middleware adding `Server-Timing: app;dur=MILLISECONDS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                took = (time.perf_counter() - started) * 1000
                headers = [
                    *message.get("headers", []),
                    (b"server-timing", f"app;dur={took:.2f}".encode()),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, timed)
