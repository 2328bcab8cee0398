"""Response headers and the ``Host`` check of the HTTP app (pure ASGI middleware).

- :class:`SecurityHeaders` adds CSP and friends to every response (the page loads nothing from
  elsewhere).
- :class:`HostCheck` is Starlette's :class:`TrustedHostMiddleware` (its ``Host`` parsing,
  bracketed IPv6 included) whose refusal is the API's JSON error ``400 bad_host`` instead of a
  plain-text body. ``ragstrata serve`` on loopback passes the loopback names, so a web page
  elsewhere cannot reach the API through DNS rebinding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragstrata.http.errors import error_body

__all__ = ["CSP", "HostCheck", "SecurityHeaders"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
_PASSED = "ragstrata.host_ok"  # set in the scope once the host check let a request through


class SecurityHeaders:
    """Adds the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *_HEADERS]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class _MarkPassed:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[_PASSED] = True
        await self.app(scope, receive, send)


class HostCheck(TrustedHostMiddleware):
    """Refuses requests whose ``Host`` (without the port) is not one of ``hosts``, with
    ``{"error": {"code": "bad_host", ...}}``."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        super().__init__(_MarkPassed(app), allowed_hosts=list(hosts), www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        raw = dict(scope.get("headers", ())).get(b"host", b"").decode("latin-1")
        body = json.dumps(error_body("bad_host", f"host {raw!r} is not served here")).encode()

        async def refuse_as_json(message: Message) -> None:
            if scope.get(_PASSED):  # the app's own response: pass it on untouched
                await send(message)
            elif message["type"] == "http.response.start":
                headers = [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ]
                await send({**message, "headers": headers})
            elif message["type"] == "http.response.body":
                await send({"type": "http.response.body", "body": body})

        await super().__call__(scope, receive, refuse_as_json)
