"""``/v1/definition``, ``/v1/references``, ``/v1/outline``: the facade's symbol lookups.

Each route parses its body, picks the (indexed) repository, calls one facade method
(``definition``, ``references``, ``outline``) and returns its ``to_dict()`` with ``repo``. A name
that resolves to nothing is not an error: ``found`` is false and ``candidates`` lists similar
names. An outline of a file that is not indexed is 404 ``path_not_indexed``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from ragstrata.app.facade import Ragstrata
from ragstrata.http.errors import ApiError
from ragstrata.http.models import REPO_NAME, RepoField

__all__ = [
    "DefinitionRequest",
    "DefinitionResponse",
    "OutlineResponse",
    "ReferencesRequest",
    "ReferencesResponse",
    "symbol_router",
]

Reader = Callable[[str | None], AbstractContextManager[tuple[str, Ragstrata]]]
"""``repo`` name (or None) -> a context holding ``(name, facade)`` of an indexed repository
for one read, or an error (``Registry.reading``)."""

NameField = Field(
    min_length=1,
    max_length=500,
    description="A symbol as written: `Gateway`, `pkg.mod.Class.method`, `Class::method`, "
    "`a/b.py:func`; case and small typos are tolerated.",
    examples=["Gateway.send"],
)
PathsField = Field(
    default=None, max_length=50, description="Only definitions under these path prefixes."
)
TestField = Field(default=None, description="true: only tests; false: no tests; null: both.")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DefinitionRequest(_Body):
    """``POST /v1/definition``: where a symbol is defined."""

    name: str = NameField
    repo: str | None = RepoField
    paths: list[str] | None = PathsField
    is_test: bool | None = TestField
    limit: int = Field(default=10, ge=1, le=100, description="Most definitions to return.")


class ReferencesRequest(_Body):
    """``POST /v1/references``: who calls a symbol, what it calls, which tests use it."""

    name: str = NameField
    repo: str | None = RepoField
    paths: list[str] | None = PathsField
    is_test: bool | None = TestField
    limit: int = Field(default=50, ge=1, le=500, description="Most relations per list.")


class DefinitionOut(BaseModel):
    symbol: str
    name: str
    kind: str
    path: str
    start_line: int
    end_line: int
    signature: str
    docstring: str | None
    decorators: list[str]
    parent: str | None
    language: str
    is_test: bool
    score: float
    source: str | None = Field(default=None, description="The definition's source lines.")
    source_truncated: bool | None = None


class RelationOut(BaseModel):
    path: str
    line: int
    relation: str
    from_symbol: str
    to_name: str
    to_symbol: str | None
    resolved: bool
    is_test: bool
    score: float


class DefinitionResponse(BaseModel):
    """Definitions best first; ``match``: exact | qualified | suffix | fuzzy."""

    repo: str
    name: str
    found: bool
    match: str | None
    definitions: list[DefinitionOut]
    candidates: list[DefinitionOut]


class ReferencesResponse(BaseModel):
    """Relations of ``symbol`` (the resolved definition's qualified name)."""

    repo: str
    name: str
    symbol: str
    found: bool
    definition: DefinitionOut | None
    callers: list[RelationOut]
    callees: list[RelationOut]
    tests: list[RelationOut]
    candidates: list[DefinitionOut]


class OutlineItem(BaseModel):
    symbol: str
    name: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    parent: str | None
    is_exported: bool
    docstring: str | None


class OutlineResponse(BaseModel):
    """A file's definitions in file order."""

    repo: str
    path: str
    definitions: list[OutlineItem]


def symbol_router(read: Reader) -> APIRouter:
    """The three routes, over repositories opened for reading by ``read``."""
    router = APIRouter()

    @router.post(
        "/definition", summary="Where a symbol is defined", response_model=DefinitionResponse
    )
    def definition(body: DefinitionRequest) -> dict[str, Any]:
        """The definitions the name resolves to, with how they matched (``Ragstrata.definition``):
        the same resolver as ``ask``, ``search``, MCP ``get_definition`` and ``gendocs``."""
        with read(body.repo) as (name, rs):
            result = rs.definition(
                body.name, paths=body.paths, is_test=body.is_test, limit=body.limit
            )
        return {"repo": name, **result.to_dict()}

    @router.post(
        "/references",
        summary="Callers, callees and tests of a symbol",
        response_model=ReferencesResponse,
    )
    def references(body: ReferencesRequest) -> dict[str, Any]:
        """C2 relations of the definition the name resolves to (``Ragstrata.references``)."""
        with read(body.repo) as (name, rs):
            result = rs.references(
                body.name, paths=body.paths, is_test=body.is_test, limit=body.limit
            )
        return {"repo": name, **result.to_dict()}

    @router.get("/outline", summary="Definitions of one file", response_model=OutlineResponse)
    def outline(
        path: Annotated[str, Query(min_length=1, max_length=1024)],
        repo: Annotated[str | None, Query(pattern=REPO_NAME)] = None,
    ) -> dict[str, Any]:
        """Every definition of an indexed file, in file order (``Ragstrata.outline``)."""
        with read(repo) as (name, rs):
            result = rs.outline(path)
        if not result.indexed:
            raise ApiError(404, "path_not_indexed", f"{path!r} is not an indexed file")
        data = result.to_dict()
        return {"repo": name, "path": data["path"], "definitions": data["definitions"]}

    return router
