"""The ``Query`` a paraphraser chain enriches, the ``QueryParaphraser`` protocol and the chain.

Contract (seed 004): a paraphraser receives a ``Query`` and returns a ``Query``; a chain applies
its paraphrasers in order, each receiving the previous output. Built-ins mutate the query they
receive and return it (``keywords`` is a set and they only ever *add* to it; fields a
paraphraser does not own stay untouched). ``Query`` is therefore deliberately mutable, unlike
the frozen values that cross stages: it is a working object inside the query stage.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ParaphraserChain", "Query", "QueryParaphraser"]


class Query(BaseModel):
    """A question being prepared for retrieval.

    ``query_str`` is the original text; ``query_text_bundles`` holds rewritten or split texts
    to search as well; ``keywords`` feeds lexical search; ``embeddings`` and
    ``similarity_top_k`` are for dense search; ``ext_info`` carries anything else.
    """

    model_config = ConfigDict(extra="forbid")

    query_str: str | None = None
    query_text_bundles: list[str] = Field(default_factory=list)
    keywords: set[str] = Field(default_factory=set)
    embeddings: list[list[float]] = Field(default_factory=list)
    ext_info: dict[str, Any] = Field(default_factory=dict)
    similarity_top_k: int | None = Field(default=None, ge=1)


@runtime_checkable
class QueryParaphraser(Protocol):
    """Turns a ``Query`` into an enriched ``Query`` (built-ins mutate and return their input)."""

    def paraphrase(self, query: Query) -> Query: ...


class ParaphraserChain:
    """Paraphrasers applied in order; itself a ``QueryParaphraser``."""

    def __init__(
        self, paraphrasers: Sequence[QueryParaphraser], names: Sequence[str] | None = None
    ) -> None:
        self._items = tuple(paraphrasers)
        if names is None:
            names = [getattr(p, "name", type(p).__name__) for p in self._items]
        if len(names) != len(self._items):
            raise ValueError(f"{len(names)} names for {len(self._items)} paraphrasers")
        self.names: tuple[str, ...] = tuple(names)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[QueryParaphraser]:
        return iter(self._items)

    def paraphrase(self, query: Query) -> Query:
        """Apply every paraphraser in order, each to the previous one's output."""
        for name, item in zip(self.names, self._items, strict=True):
            result = item.paraphrase(query)
            if not isinstance(result, Query):
                raise TypeError(f"paraphraser {name!r} returned {type(result).__name__}, not Query")
            query = result
        return query

    def __repr__(self) -> str:
        return f"ParaphraserChain({list(self.names)!r})"
