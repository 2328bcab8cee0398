"""``POST /v1/index`` starts a background index run; ``GET /v1/jobs/{job_id}`` polls it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam

from ragstrata.http import models as m
from ragstrata.http.state import Jobs, Served

__all__ = ["router"]

router = APIRouter()


@router.post("/index", status_code=202, summary="Start an index run", response_model=m.JobStarted)
def index(body: m.IndexRequest, served: Served, jobs: Jobs) -> m.JobStarted:
    """Build or refresh the index in the background; poll ``GET /v1/jobs/{job_id}``.
    One run per repository at a time (409 ``index_busy``)."""
    job = jobs.start(served, body.repo, rebuild=body.rebuild)
    return m.JobStarted(job_id=job.job_id, repo=job.repo, state=job.state)


@router.get("/jobs/{job_id}", summary="Index job progress", response_model=m.JobResponse)
def job(job_id: Annotated[str, PathParam(max_length=64)], jobs: Jobs) -> dict[str, Any]:
    """Phase, files done/total, embeddings done/total; the report when done."""
    return jobs.get(job_id).snapshot()
