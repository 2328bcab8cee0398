"""``GET /v1/source``: lines of an indexed file, highlighted, never a file outside the index."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Annotated

from fastapi import APIRouter, Query

from ragstrata.app import redact_text
from ragstrata.app.facade import Ragstrata
from ragstrata.http import models as m
from ragstrata.http.errors import ApiError
from ragstrata.http.render import highlight, language_of
from ragstrata.http.state import Served

__all__ = ["MAX_SOURCE_LINES", "resolve_inside", "router"]

MAX_SOURCE_LINES = 2000

router = APIRouter()


def resolve_inside(rs: Ragstrata, path: str) -> tuple[str, Path]:
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


@router.get("/source", summary="Lines of an indexed file", response_model=m.SourceResponse)
def source(
    served: Served,
    path: Annotated[str, Query(min_length=1, max_length=1024)],
    repo: Annotated[str | None, Query(pattern=m.REPO_NAME)] = None,
    start: Annotated[int, Query(ge=1, le=10_000_000)] = 1,
    end: Annotated[int | None, Query(ge=1, le=10_000_000)] = None,
) -> m.SourceResponse:
    """Lines ``start``-``end`` of an indexed file, highlighted with line numbers. Only files
    in the index are served; paths are resolved and must stay inside the repository."""
    with served.reading(repo) as (name, rs):
        key, full = resolve_inside(rs, path)
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
