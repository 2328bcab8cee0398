"""Bearer-token check for the API routes, compared in constant time."""

from __future__ import annotations

import hmac

from fastapi import Request

from ragstrata.http.errors import ApiError

__all__ = ["TokenCheck"]


class TokenCheck:
    """A FastAPI dependency: with a token set, every request must send ``Authorization: Bearer
    <token>``; with ``None`` it lets everything through (loopback-only serving)."""

    def __init__(self, token: str | None) -> None:
        if token is not None and not token.strip():
            raise ValueError("the API token is empty; set a non-empty token or none at all")
        self._token = token.encode("utf-8") if token is not None else None

    @property
    def enabled(self) -> bool:
        """True when requests must carry the token."""
        return self._token is not None

    def __call__(self, request: Request) -> None:
        if self._token is None:
            return
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        given = value.strip().encode("utf-8")
        # compare_digest on bytes of any length: the time does not depend on the common prefix.
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, self._token):
            raise ApiError(401, "unauthorized", "missing or wrong bearer token")
