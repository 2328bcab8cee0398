"""What every route reads from the app: the served :class:`~ragstrata.app.registry.Registry` and the
:class:`~ragstrata.http.jobs.JobManager`, as FastAPI dependencies (``create_app`` puts them on
``app.state``)."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request

from ragstrata.app.registry import Registry
from ragstrata.http.jobs import JobManager

__all__ = ["INDEX_HINT", "Jobs", "Served", "jobs", "served"]

INDEX_HINT = "start one with POST /v1/index"
"""How a client builds a missing index (ends the ``index_missing`` message)."""


# ``async``: FastAPI runs a sync dependency on a worker thread; these only read app.state, so
# they run on the event loop and never wait behind the threads that run searches.
async def served(request: Request) -> Registry:
    """The repositories this app serves."""
    return cast(Registry, request.app.state.repos)


async def jobs(request: Request) -> JobManager:
    """The app's index jobs."""
    return cast(JobManager, request.app.state.jobs)


Served = Annotated[Registry, Depends(served)]
Jobs = Annotated[JobManager, Depends(jobs)]
