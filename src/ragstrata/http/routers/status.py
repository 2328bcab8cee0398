"""``GET /v1/status``: the index of every served repository; ``GET /healthz``: liveness."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from ragstrata.app.registry import Registry
from ragstrata.core.version import __version__
from ragstrata.errors import RagstrataError, one_line
from ragstrata.http import models as m
from ragstrata.http.jobs import JobManager
from ragstrata.http.state import Jobs, Served

__all__ = ["health_router", "router"]

router = APIRouter()
health_router = APIRouter()


@router.get("/status", summary="Index status", response_model=m.StatusResponse)
def status(
    served: Served,
    jobs: Jobs,
    repo: Annotated[str | None, Query(pattern=m.REPO_NAME)] = None,
) -> m.StatusResponse:
    """Rows per layer, stale files, pending embeddings of every served repository (or the
    one named by ``?repo=``)."""
    names = [served.resolve(repo)] if repo else list(served.names)
    return m.StatusResponse(repos=[_status(served, jobs, name) for name in names])


def _status(served: Registry, jobs: JobManager, name: str) -> m.RepoStatus:
    data: dict[str, Any] | None = None
    error: m.ErrorInfo | None = None
    try:
        with served.reading(name, during_rebuild=True) as (_, rs):
            data = rs.status().to_dict()
    except RagstrataError as exc:
        error = m.ErrorInfo(code=exc.code, message=one_line(exc))
    return m.RepoStatus(
        name=name,
        path=str(served.get(name).repo),
        indexed=data is not None,
        job_id=jobs.busy(name),
        status=data,
        error=error,
        watcher=_watcher(served, name),
    )


def _watcher(served: Registry, name: str) -> m.WatcherInfo | None:
    state = served.watchers.get(name)
    return None if state is None else m.WatcherInfo.model_validate(state)


@health_router.get("/healthz", summary="Liveness", response_model=m.HealthResponse)
async def healthz(served: Served) -> m.HealthResponse:
    """Always 200 while the server runs (no token needed); ``status`` is ``degraded`` while a
    file watcher is dead (``watchers`` says which and why). ``async`` (and so is its
    dependency): it answers on the event loop itself, never queued behind the worker threads
    that run searches."""
    watchers = {n: m.WatcherInfo.model_validate(s) for n, s in served.watchers.snapshot().items()}
    return m.HealthResponse(
        status="degraded" if served.watchers.dead() else "ok",
        version=__version__,
        repos=sorted(served.names),
        watchers=watchers,
    )
