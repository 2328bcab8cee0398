"""The FastAPI app: ``/v1/*`` JSON routes over the facade, the web page at ``/``.

Every route parses its body, picks the repository by name, calls one facade method and returns
its ``to_dict()``; errors become ``{"error": {"code", "message"}}`` (see ``errors.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragstrata import __version__
from ragstrata.errors import IndexMissingError, RagstrataError
from ragstrata.facade import Ragstrata
from ragstrata.http import models as m
from ragstrata.http.auth import TokenCheck
from ragstrata.http.errors import ApiError, error_body, install_error_handlers
from ragstrata.http.jobs import JobManager
from ragstrata.http.limits import BodyLimit
from ragstrata.http.render import highlight, highlight_hit, language_of, markdown_html, pygments_css
from ragstrata.http.symbols import symbol_router
from ragstrata.ingest.secrets import redact_text

__all__ = ["DEFAULT_MAX_BODY_BYTES", "Repos", "create_app"]

DEFAULT_MAX_BODY_BYTES = 64 * 1024
MAX_SOURCE_LINES = 2000
_NAME_RE = re.compile(m.REPO_NAME)
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": m.ErrorResponse, "description": text}
    for status, text in (
        (400, "Bad request (malformed JSON, repository name needed, path outside repository)"),
        (401, "Missing or wrong bearer token"),
        (404, "Unknown repository, job or file"),
        (409, "No index yet (index_missing) or an index job already running (index_busy)"),
        (413, "Request body too large"),
        (422, "Body failed validation"),
        (503, "A provider or the store failed"),
    )
}
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


class Repos:
    """The served repositories, by name."""

    def __init__(self, repos: Mapping[str, Ragstrata] | Iterable[Ragstrata]) -> None:
        items = (
            list(repos.items())
            if isinstance(repos, Mapping)
            else [(rs.repo.name, rs) for rs in repos]
        )
        if not items:
            raise ValueError("serve at least one repository")
        self.by_name: dict[str, Ragstrata] = {}
        for name, rs in items:
            if not _NAME_RE.match(name):
                raise ValueError(
                    f"invalid repository name {name!r}: use 1-64 letters, digits, '.', '_', '-'"
                )
            if name in self.by_name:
                raise ValueError(f"repository name {name!r} given twice; name them NAME=PATH")
            self.by_name[name] = rs

    def pick(self, name: str | None) -> tuple[str, Ragstrata]:
        """The repository called ``name``; the only one when ``name`` is omitted."""
        if name is None:
            if len(self.by_name) == 1:
                return next(iter(self.by_name.items()))
            raise ApiError(
                400,
                "repo_required",
                f'several repositories are served; give "repo", one of: {self._names()}',
            )
        rs = self.by_name.get(name)
        if rs is None:
            raise ApiError(
                404, "unknown_repo", f"unknown repository {name!r}; served: {self._names()}"
            )
        return name, rs

    def _names(self) -> str:
        return ", ".join(sorted(self.by_name))


def _indexed(rs: Ragstrata, name: str) -> Ragstrata:
    if not rs.has_index():
        raise IndexMissingError(
            f"repository {name!r} has no index yet; start one with POST /v1/index"
        )
    return rs


def _add_html(data: dict[str, Any]) -> dict[str, Any]:
    for hit in data.get("hits", ()):
        hit["html"] = highlight_hit(hit)
    answer = data.get("answer")
    if isinstance(answer, dict):
        answer["html"] = markdown_html(str(answer.get("text", "")))
    return data


def _resolve_inside(rs: Ragstrata, path: str) -> tuple[str, Path]:
    """``path`` as a catalogued, repository-relative file that resolves inside the repository."""
    if "\x00" in path or "\\" in path:
        raise ApiError(400, "path_outside_repo", f"invalid path {path!r}")
    rel = PurePosixPath(path)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ApiError(
            400, "path_outside_repo", f"path {path!r} must be relative to the repository"
        )
    full = (rs.repo / rel).resolve()
    if not full.is_relative_to(rs.repo) or full.is_relative_to(rs.index_dir.resolve()):
        raise ApiError(400, "path_outside_repo", f"path {path!r} resolves outside the repository")
    key = rel.as_posix()
    if key not in rs.store.catalog() or not full.is_file():
        raise ApiError(404, "path_not_indexed", f"{path!r} is not an indexed file")
    return key, full


class _SecurityHeaders:
    """Adds CSP and friends to every response (the page loads nothing from elsewhere)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                headers += [
                    (b"content-security-policy", _CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class _HostCheck:
    """Refuses requests whose ``Host`` (without the port) is not one of ``hosts``."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = dict(scope.get("headers", ())).get(b"host", b"").decode("latin-1").lower()
            host = raw.rsplit(":", 1)[0] if not raw.endswith("]") else raw
            if host not in self.hosts:
                body = json.dumps(error_body("bad_host", f"host {raw!r} is not served here"))
                response = Response(body, status_code=400, media_type="application/json")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _web_file(name: str) -> str:
    return resources.files("ragstrata.http").joinpath("web", name).read_text(encoding="utf-8")


def create_app(
    repos: Mapping[str, Ragstrata] | Iterable[Ragstrata],
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    allowed_hosts: Sequence[str] | None = None,
    jobs: JobManager | None = None,
) -> FastAPI:
    """The HTTP app serving ``repos`` (by name; a bare iterable is named by folder name).

    ``token``: when set, every ``/v1`` request needs ``Authorization: Bearer <token>``.
    ``max_body_bytes``: larger request bodies get 413.
    ``allowed_hosts``: when given, requests whose ``Host`` header names another host get 400
    (``ragstrata serve`` on loopback passes the loopback names: a web page elsewhere cannot
    reach the API through DNS rebinding).
    """
    served = Repos(repos)
    check = TokenCheck(token)
    manager = jobs or JobManager()
    app = FastAPI(
        title="ragstrata",
        version=__version__,
        summary="Answers about a repository's code and docs, with file:line citations.",
        docs_url=None,  # Swagger/ReDoc pull scripts from a CDN; the OpenAPI JSON is enough
        redoc_url=None,
    )
    app.state.repos = served
    app.state.jobs = manager
    install_error_handlers(app)
    api = APIRouter(prefix="/v1", dependencies=[Depends(check)], responses=_ERRORS)

    @api.post("/route", summary="Router plan of a question", response_model=dict[str, Any])
    def route(body: m.RouteRequest) -> dict[str, Any]:
        """The Intent Router plan (schema 1.1): intent, anchors, expansions, layers."""
        _, rs = served.pick(body.repo) if body.repo else next(iter(served.by_name.items()))
        return rs.route(body.query, body.conversation_state, body.repo_context)

    @api.post("/search", summary="Plan and ranked hits", response_model=m.SearchResponse)
    def search(body: m.SearchRequest) -> JSONResponse:
        """Route the query and return the ranked evidence (``ragstrata search --json``)."""
        name, rs = served.pick(body.repo)
        result = _indexed(rs, name).search(body.query, layers=body.layers, top_k=body.top_k)
        data = result.to_dict()
        return JSONResponse(_add_html(data) if body.render else data)

    @api.post("/ask", summary="Cited answer", response_model=dict[str, Any])
    def ask(body: m.AskRequest) -> JSONResponse:
        """Answer from cited evidence (``ragstrata ask --json``): ``plan``, ``hits``,
        ``evidence``, ``answer`` (``status``, ``lead``, ``text``, ``citations``), ``session``."""
        name, rs = served.pick(body.repo)
        result = _indexed(rs, name).ask(body.query, session=body.session, top_k=body.top_k)
        data = result.to_dict()
        return JSONResponse(_add_html(data) if body.render else data)

    @api.post("/index", status_code=202, summary="Start an index run", response_model=m.JobStarted)
    def index(body: m.IndexRequest) -> m.JobStarted:
        """Build or refresh the index in the background; poll ``GET /v1/jobs/{job_id}``.
        One run per repository at a time (409 ``index_busy``)."""
        name, rs = served.pick(body.repo)
        job = manager.start(name, rs, rebuild=body.rebuild)
        return m.JobStarted(job_id=job.job_id, repo=name, state=job.state)

    @api.get("/jobs/{job_id}", summary="Index job progress", response_model=m.JobResponse)
    def job(job_id: Annotated[str, PathParam(max_length=64)]) -> dict[str, Any]:
        """Phase, files done/total, embeddings done/total; the report when done."""
        return manager.get(job_id).snapshot()

    @api.get("/status", summary="Index status", response_model=m.StatusResponse)
    def status(
        repo: Annotated[str | None, Query(pattern=m.REPO_NAME)] = None,
    ) -> m.StatusResponse:
        """Rows per layer, stale files, pending embeddings of every served repository (or the
        one named by ``?repo=``)."""
        names = [served.pick(repo)[0]] if repo else list(served.by_name)
        return m.StatusResponse(repos=[_status(name) for name in names])

    def _status(name: str) -> m.RepoStatus:
        rs = served.by_name[name]
        data: dict[str, Any] | None = None
        error: m.ErrorInfo | None = None
        try:
            data = _indexed(rs, name).status().to_dict()
        except RagstrataError as exc:
            error = m.ErrorInfo(code=exc.code, message=" ".join(str(exc).split()))
        return m.RepoStatus(
            name=name,
            path=str(rs.repo),
            indexed=data is not None,
            job_id=manager.busy(name),
            status=data,
            error=error,
        )

    @api.get("/source", summary="Lines of an indexed file", response_model=m.SourceResponse)
    def source(
        path: Annotated[str, Query(min_length=1, max_length=1024)],
        repo: Annotated[str | None, Query(pattern=m.REPO_NAME)] = None,
        start: Annotated[int, Query(ge=1, le=10_000_000)] = 1,
        end: Annotated[int | None, Query(ge=1, le=10_000_000)] = None,
    ) -> m.SourceResponse:
        """Lines ``start``-``end`` of an indexed file, highlighted with line numbers. Only files
        in the index are served; paths are resolved and must stay inside the repository."""
        name, rs = served.pick(repo)
        key, full = _resolve_inside(_indexed(rs, name), path)
        last = end if end is not None else start + MAX_SOURCE_LINES - 1
        if last < start:
            raise ApiError(422, "invalid_request", f"end ({last}) is before start ({start})")
        last = min(last, start + MAX_SOURCE_LINES - 1)
        # The file as the index saw it: secrets redacted (ingest.secrets), lines unchanged.
        text, _ = redact_text(full.read_text(encoding="utf-8", errors="replace"), key)
        every = text.split("\n")
        if every and every[-1] == "":
            every.pop()
        lines = [f"{line}\n" for line in every[start - 1 : last]]
        text = "".join(lines).rstrip("\n")
        return m.SourceResponse(
            repo=name,
            path=key,
            start_line=start,
            end_line=start + max(len(lines), 1) - 1,
            language=language_of(key),
            text=text,
            html=highlight(text, key, start),
        )

    def pick_indexed(repo: str | None) -> tuple[str, Ragstrata]:
        name, rs = served.pick(repo)
        return name, _indexed(rs, name)

    api.include_router(symbol_router(pick_indexed))
    app.include_router(api)

    @app.get("/healthz", summary="Liveness", response_model=m.HealthResponse)
    async def healthz() -> m.HealthResponse:
        """Always 200 while the server runs (no token needed). ``async``: it answers on the
        event loop itself, never queued behind the worker threads that run searches."""
        return m.HealthResponse(status="ok", version=__version__, repos=sorted(served.by_name))

    page = {
        "app.js": ("application/javascript; charset=utf-8", _web_file("app.js")),
        "style.css": ("text/css; charset=utf-8", _web_file("style.css")),
        "pygments.css": ("text/css; charset=utf-8", pygments_css()),
    }
    index_html = _web_file("index.html")

    @app.get("/", include_in_schema=False)
    def home() -> HTMLResponse:
        return HTMLResponse(index_html)

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str) -> Response:
        found = page.get(name)
        if found is None:
            raise ApiError(404, "not_found", f"no static file {name!r}")
        return Response(found[1], media_type=found[0], headers={"cache-control": "no-cache"})

    app.add_middleware(_SecurityHeaders)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    if allowed_hosts is not None:
        app.add_middleware(_HostCheck, hosts=frozenset(h.lower() for h in allowed_hosts))
    return app
