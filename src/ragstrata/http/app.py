"""The FastAPI app: ``/v1/*`` JSON routes over the facade, the web page at ``/``.

``create_app`` only assembles: the served :class:`~ragstrata.app.registry.Registry` and the job
manager on ``app.state``, the routers of :mod:`ragstrata.http.routers` (and the symbol routes
of :mod:`ragstrata.http.symbols`) under ``/v1`` behind the token check, the error handlers
(``errors.py``: ``{"error": {"code", "message"}}``) and the middleware (body limit, security
headers, ``Host`` check).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fastapi import APIRouter, Depends, FastAPI

from ragstrata.app.facade import Ragstrata
from ragstrata.app.registry import Registry
from ragstrata.core.version import __version__
from ragstrata.http import models as m
from ragstrata.http.auth import TokenCheck
from ragstrata.http.errors import install_error_handlers
from ragstrata.http.jobs import JobManager
from ragstrata.http.limits import BodyLimit
from ragstrata.http.routers import index, page, query, source, status
from ragstrata.http.security import HostCheck, SecurityHeaders
from ragstrata.http.state import INDEX_HINT
from ragstrata.http.symbols import symbol_router

__all__ = ["DEFAULT_MAX_BODY_BYTES", "create_app"]

DEFAULT_MAX_BODY_BYTES = 64 * 1024
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": m.ErrorResponse, "description": text}
    for code, text in (
        (400, "Bad request (malformed JSON, repository name needed, path outside repository)"),
        (401, "Missing or wrong bearer token"),
        (404, "Unknown repository, job or file"),
        (409, "No index yet (index_missing) or an index job already running (index_busy)"),
        (413, "Request body too large"),
        (422, "Body failed validation"),
        (503, "A provider or the store failed"),
    )
}


def create_app(
    repos: Mapping[str, Ragstrata] | Iterable[Ragstrata] | Registry,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    allowed_hosts: Sequence[str] | None = None,
    jobs: JobManager | None = None,
) -> FastAPI:
    """The HTTP app serving ``repos`` (a registry, or facades by name; a bare iterable is named
    by folder name).

    ``token``: when set, every ``/v1`` request needs ``Authorization: Bearer <token>``.
    ``max_body_bytes``: larger request bodies get 413.
    ``allowed_hosts``: when given, requests whose ``Host`` header names another host get 400
    ``bad_host`` (``ragstrata serve`` on loopback passes the loopback names: a web page
    elsewhere cannot reach the API through DNS rebinding).
    """
    served = repos if isinstance(repos, Registry) else Registry(repos, index_hint=INDEX_HINT)
    app = FastAPI(
        title="ragstrata",
        version=__version__,
        summary="Answers about a repository's code and docs, with file:line citations.",
        docs_url=None,  # Swagger/ReDoc pull scripts from a CDN; the OpenAPI JSON is enough
        redoc_url=None,
    )
    app.state.repos = served
    app.state.jobs = jobs or JobManager()
    install_error_handlers(app)
    api = APIRouter(prefix="/v1", dependencies=[Depends(TokenCheck(token))], responses=_ERRORS)
    for group in (query, index, status, source):
        api.include_router(group.router)
    api.include_router(symbol_router(served.reading))
    app.include_router(api)
    app.include_router(status.health_router)
    app.include_router(page.router)
    # The last added runs first: security headers on every response, refusals included.
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, hosts=[h.lower() for h in allowed_hosts])
    app.add_middleware(SecurityHeaders)
    return app
