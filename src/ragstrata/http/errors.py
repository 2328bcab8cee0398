"""JSON errors of the HTTP API: ``{"error": {"code", "message"}}`` with the right status.

Library errors keep their stable ``code`` (``ragstrata.errors``); the status says who must act:

=====================================  ======  =================================
error                                  status  code
=====================================  ======  =================================
malformed JSON / unreadable body       400     ``bad_request``
``ConfigError``, other ``UserError``   400     the error's ``code`` (``repo_required``
                                               when several are served)
missing or wrong bearer token          401     ``unauthorized``
unknown repository / job / file        404     ``unknown_repo`` / ``unknown_job``
                                               / ``path_not_indexed``
``RepositoryNotFoundError``            404     ``repo_not_found``
``IndexMissingError``                  409     ``index_missing`` (run ``POST /v1/index``)
``IndexMismatchError``                 409     ``index_mismatch``
an index job already running           409     ``index_busy``
body over the size limit               413     ``body_too_large``
body fails validation, bad query       422     ``invalid_request`` / ``invalid_query``
                                               / ``invalid_state``
``SystemFailure``                      503     the error's ``code``
=====================================  ======  =================================

An index that is missing is a *conflict* (409), not "not found": the repository exists and the
request is fine, but the server's state must change first (an index run).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ragstrata.errors import (
    IndexBusyError,
    IndexMismatchError,
    IndexMissingError,
    InvalidQueryError,
    InvalidStateError,
    RagstrataError,
    RepositoryNotFoundError,
    SystemFailure,
    UnknownRepositoryError,
)

__all__ = ["ApiError", "error_body", "install_error_handlers", "status_for"]

log = logging.getLogger("ragstrata.http")

_STATUS: tuple[tuple[type[RagstrataError], int], ...] = (
    (InvalidQueryError, 422),
    (InvalidStateError, 422),
    (RepositoryNotFoundError, 404),
    (UnknownRepositoryError, 404),
    (IndexMissingError, 409),
    (IndexBusyError, 409),
    (IndexMismatchError, 409),
    (SystemFailure, 503),
)


class ApiError(Exception):
    """An error raised by the HTTP layer itself (unknown repository, busy index, ...)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def status_for(exc: RagstrataError) -> int:
    """The HTTP status of a library error (400 for user errors not listed above)."""
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 400


def error_body(code: str, message: str) -> dict[str, Any]:
    """The JSON body of every error response."""
    return {"error": {"code": code, "message": " ".join(message.split()) or code}}


def _json(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    where = ".".join(loc) or "body"
    if first.get("type") == "json_invalid":
        return f"request body is not valid JSON: {first.get('msg', '')}"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid value')}{more}"


def install_error_handlers(app: FastAPI) -> None:
    """Map library errors, validation errors and HTTP exceptions to JSON error bodies."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _json(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(RagstrataError)
    async def _library(_: Request, exc: RagstrataError) -> JSONResponse:
        status = status_for(exc)
        if status >= 500:
            log.warning("system failure: %s", exc)
        return _json(status, exc.code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if errors and errors[0].get("type") == "json_invalid":
            return _json(400, "bad_request", _validation_message(exc))
        return _json(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, "http_error")
        return _json(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _json(500, "internal_error", f"internal error: {type(exc).__name__}")
