"""The store contract: small role Protocols and the composite :class:`Store`.

Every backend (embedded SQLite, PostgreSQL, the in-memory fake) implements the same methods and
passes ``ragstrata.testing.store_conformance``. Roles::

    ManifestStore  read_manifest / write_manifest      what built this index
    Catalog        catalog                             path -> (mtime_ns, size, sha256)
    RowWriter      replace_files / remove_files        per-file atomic replacement, one txn/batch
    RowReader      get_rows / scan_rows                rows by id; rows by layer and path, in order
    LexicalSearch  search_lexical                      BM25 over :func:`analyze` terms
    DenseSearch    search_dense                        cosine over stored vectors of a fingerprint
    SymbolLookup   lookup_symbol / relations           C1 names, C2 callers / callees
    VectorQueue    pending_vectors / put_vectors / drop_vectors   lazy, resumable embedding
    SummaryStore   get_summaries / put_summaries       cached LLM summaries of files and definitions
    StoreInfo      has_index / stats                   is there an index; counts and freshness

What a row embeds and what makes it searchable is not the store's decision: a backend applies
the :class:`RowTexts` policy it is given (``ragstrata.core.texts.TextRules``, owned by the
indexer). Vectors are content-addressed: they are keyed by (embedder fingerprint, hash of the
row's embedding text), not by row id, so a row whose text did not change keeps its vector when
its file is re-indexed, identical texts are embedded once, and a new fingerprint makes every
embeddable row pending again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from ragstrata.core.rows import Layer, Row
from ragstrata.core.values import (
    CatalogEntry,
    DefinitionKey,
    Direction,
    Manifest,
    PendingVector,
    RelationKey,
    RelationScope,
    ScoredRow,
    SearchFilters,
    StoreStats,
    SummaryKind,
    SymbolMode,
)

__all__ = [
    "Catalog",
    "DenseSearch",
    "LexicalSearch",
    "ManifestStore",
    "Rebuildable",
    "RowReader",
    "RowTexts",
    "RowWriter",
    "Store",
    "StoreInfo",
    "SummaryStore",
    "SymbolLookup",
    "VectorQueue",
]


@runtime_checkable
class RowTexts(Protocol):
    """The text policy a backend applies to the rows it writes (see ``ingest.texts``)."""

    @property
    def embed_layers(self) -> tuple[Layer, ...]:
        """Layers whose rows may get a vector."""
        ...

    def embedding(self, row: Row) -> str | None:
        """The text embedded for ``row``; None: no vector."""
        ...

    def lexical(self, row: Row) -> str:
        """The text whose analyzed terms make ``row`` findable."""
        ...


@runtime_checkable
class ManifestStore(Protocol):
    """Reads and writes the index manifest."""

    def read_manifest(self) -> Manifest | None:
        """The stored manifest, or None for a new index."""
        ...

    def write_manifest(self, manifest: Manifest) -> Manifest:
        """Store it; returns it with ``created_at``/``updated_at`` filled in."""
        ...


@runtime_checkable
class Catalog(Protocol):
    """Which files the index holds, as last seen on disk."""

    def catalog(self) -> dict[str, CatalogEntry]:
        """Every indexed file, keyed by path."""
        ...


@runtime_checkable
class RowWriter(Protocol):
    """Atomic, batched writes; each call is one transaction (all of it or none of it)."""

    def replace_files(self, batch: Sequence[tuple[CatalogEntry, Sequence[Row]]]) -> None:
        """For each file: delete its old rows, insert the new ones, update its catalog entry."""
        ...

    def remove_files(self, paths: Sequence[str]) -> int:
        """Delete the files' rows and catalog entries; returns how many files were known."""
        ...


@runtime_checkable
class RowReader(Protocol):
    """Rows by id, and every row of some layers and paths."""

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        """The rows that exist, in the order of ``ids``."""
        ...

    def scan_rows(
        self, layers: Sequence[Layer | str] | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[Row]:
        """Stored rows of ``layers`` (all when None) in ``paths`` (all when None; unknown paths
        are skipped), from one consistent snapshot: by path (code-point order), then each
        file's rows in the order they were written."""
        ...

    def scan_relation_keys(
        self, paths: Sequence[str] | None = None, scope: RelationScope | None = None
    ) -> Iterator[RelationKey]:
        """The :class:`RelationKey` of every stored C2 row in ``paths`` (all when None) — only
        those ``scope`` holds, when given — in :meth:`scan_rows` order, from one snapshot: a
        light read for the incremental indexer (no row is decoded whole)."""
        ...

    def scan_definition_keys(self) -> Iterator[DefinitionKey]:
        """The :class:`DefinitionKey` of every stored C1 row, in :meth:`scan_rows` order, from
        one snapshot (no row is decoded whole)."""
        ...


@runtime_checkable
class LexicalSearch(Protocol):
    """BM25 over the code-aware analyzer's terms."""

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        """A string is analyzed; a sequence of terms is analyzed term by term and unioned."""
        ...


@runtime_checkable
class DenseSearch(Protocol):
    """Exact cosine search over the vectors of one embedder fingerprint."""

    def search_dense(
        self,
        vector: Sequence[float],
        fingerprint: str,
        filters: SearchFilters | None = None,
        top_k: int = 10,
    ) -> list[ScoredRow]:
        """Rows without a vector for ``fingerprint`` are never returned."""
        ...


@runtime_checkable
class SymbolLookup(Protocol):
    """Definitions (C1) by name and relations (C2) around a symbol."""

    def lookup_symbol(
        self,
        name: str,
        mode: SymbolMode | str = SymbolMode.EXACT,
        filters: SearchFilters | None = None,
        limit: int = 10,
    ) -> list[ScoredRow]:
        """C1 rows matching ``name``; score 1.0 for the best kind of match."""
        ...

    def relations(
        self,
        symbol: str,
        direction: Direction | str = Direction.CALLERS,
        kinds: Sequence[str] | None = ("calls",),
        filters: SearchFilters | None = None,
        limit: int = 50,
    ) -> list[ScoredRow]:
        """C2 rows into (callers) or out of (callees) ``symbol``; ``kinds=None`` means all.

        Score: 1.0 resolved exact, 0.9 resolved by dotted suffix, 0.5 unresolved name match.
        """
        ...


@runtime_checkable
class VectorQueue(Protocol):
    """Lazy, resumable embedding: ask what is missing, embed it, hand the vectors back."""

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        """Distinct embedding texts that have no vector for ``fingerprint`` yet."""
        ...

    def put_vectors(self, fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Store ``(text_hash, vector)`` pairs; unknown hashes are ignored. Returns stored count."""
        ...

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        """Delete vectors of every other fingerprint (all when None); returns how many."""
        ...


@runtime_checkable
class SummaryStore(Protocol):
    """Cached LLM summaries, each with the hash of the prompt that produced it.

    Summaries are searchable: their analyzed terms are added to the lexical terms of the C0
    row of that path or the C1 rows of that symbol (now, and whenever those rows are rewritten
    by a later index run). They are not embedded (see :func:`summary_key`).
    """

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        """Every stored summary of ``kind``: key -> ``(prompt_hash, text)``."""
        ...

    def put_summaries(self, kind: SummaryKind | str, items: Sequence[tuple[str, str, str]]) -> int:
        """Store ``(key, prompt_hash, text)`` triples (replacing older ones); one transaction.
        Returns how many were stored."""
        ...


@runtime_checkable
class StoreInfo(Protocol):
    """Whether there is an index; counts and freshness."""

    def has_index(self) -> bool:
        """True when an index was written here (a manifest or an indexed file); never creates
        anything (no file, no repository entry). A damaged index raises ``StoreError``."""
        ...

    @property
    def schema_version(self) -> int:
        """The backend's schema version (what :class:`Manifest` ``schema_version`` should be)."""
        ...

    def stats(self, fingerprint: str | None = None) -> StoreStats:
        """Vector counts are for ``fingerprint`` (default: the manifest's)."""
        ...


@runtime_checkable
class Store(
    ManifestStore,
    Catalog,
    RowWriter,
    RowReader,
    LexicalSearch,
    DenseSearch,
    SymbolLookup,
    VectorQueue,
    SummaryStore,
    StoreInfo,
    Protocol,
):
    """Everything the indexer and retrieval need from an index backend."""

    def close(self) -> None:
        """Release connections and caches; the store may be reopened by using it again."""
        ...


@runtime_checkable
class Rebuildable(Protocol):
    """A store that rebuilds beside itself: readers keep answering from the old index until
    the new one is swapped in whole (the SQLite file; the in-memory fake)."""

    def beside(self) -> Store:
        """A new, empty store of the same kind where the rebuild is written."""
        ...

    def replace_with(self, built: Store) -> None:
        """Make ``built`` (from :meth:`beside`) this store's index, atomically."""
        ...
