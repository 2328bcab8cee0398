"""The store contract: small role Protocols, the composite :class:`Store`, and its values.

Every backend (embedded SQLite, in-memory fake, a server engine later) implements the same
methods and passes ``ragstrata.testing.store_conformance``. Roles::

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

Vectors are content-addressed: they are keyed by (embedder fingerprint, hash of the row's
:func:`embedding_text`), not by row id, so a row whose text did not change keeps its vector when
its file is re-indexed, identical texts are embedded once, and a new fingerprint makes every
embeddable row pending again.

This module also holds the pure functions every backend shares (which text is embedded, which
text is searched, row <-> JSON payload, filter and symbol matching), so backends cannot drift.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from ragstrata.ingest.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    Layer,
    RelationRow,
    Row,
    SectionRow,
    content_hash,
)

__all__ = [
    "DEFAULT_EMBED_LAYERS",
    "DEFINITION_HEAD_LINES",
    "DEFINITION_MAX_CHARS",
    "EMBED_MAX_CHARS",
    "Catalog",
    "CatalogEntry",
    "DenseSearch",
    "Direction",
    "LexicalSearch",
    "Manifest",
    "ManifestStore",
    "PendingVector",
    "RowReader",
    "RowWriter",
    "ScoredRow",
    "SearchFilters",
    "Store",
    "StoreInfo",
    "StoreStats",
    "SummaryKind",
    "SummaryStore",
    "SymbolLookup",
    "SymbolMode",
    "VectorQueue",
    "check_summary_items",
    "check_top_k",
    "display_text",
    "embedding_hash",
    "embedding_text",
    "fuzzy_key",
    "fuzzy_key_score",
    "fuzzy_score",
    "last_segment",
    "lexical_text",
    "manifest_mismatches",
    "normalize_symbol",
    "parse_direction",
    "parse_layers",
    "parse_mode",
    "parse_summary_kind",
    "rank_hits",
    "relation_score",
    "row_from_payload",
    "row_symbol",
    "row_to_payload",
    "scored_row",
    "suffix_match",
    "summary_key",
    "symbol_score",
    "unique_rows",
]

DEFINITION_HEAD_LINES = 12
"""Lines of a definition's body embedded after its signature and docstring."""
DEFINITION_MAX_CHARS = 350
"""A definition's embedding text is cut here (~100 MiniLM tokens of Python, under the 128 the
encoder was trained on). Name, signature, docstring and the first body lines carry what a
question matches; the rest of the body stays reachable by lexical search. Definitions are most
of what an index embeds and the encoder's cost grows with tokens: on the stdlib benchmark this
cut removes ~25% of the embedded tokens with retrieval quality unchanged (eval within ±0.01;
300 starts to lose, 12 vs 8 head lines matters more than the cut)."""
EMBED_MAX_CHARS = 2000
"""Other embedding texts (doc sections and chunks) are cut here; small encoders truncate at
~256 tokens anyway."""

DEFAULT_EMBED_LAYERS: tuple[Layer, ...] = (Layer.C1, Layer.D1, Layer.D2)
"""Embedded by default: definitions and doc sections/chunks. Code chunks (C3) are not: they
overlap the definitions, are many, and embedding is the indexing bottleneck on a CPU; lexical
search covers them. C0 is embedded only when it carries a summary."""


class SymbolMode(StrEnum):
    """How :meth:`SymbolLookup.lookup_symbol` matches a name against C1 definitions."""

    EXACT = "exact"  # short name, case-insensitive (exact case ranks first)
    QUALIFIED = "qualified"  # the whole qualified name
    SUFFIX = "suffix"  # trailing dotted segments: "Store.search" -> pkg.store.Store.search
    FUZZY = "fuzzy"  # similar short names: http_client ~ HttpClient, parse_qery ~ parse_query


class SummaryKind(StrEnum):
    """What a cached LLM summary is about; its key is a path (file) or a qualified symbol."""

    FILE = "file"  # key: the C0 row's path
    DEFINITION = "definition"  # key: the C1 row's qualified symbol


class Direction(StrEnum):
    """Which side of C2 relations :meth:`SymbolLookup.relations` follows."""

    CALLERS = "callers"  # relations pointing TO the symbol
    CALLEES = "callees"  # relations going FROM the symbol


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    """What built an index; a mismatch with the running configuration means rebuild."""

    schema_version: int
    package_version: str
    embedder_fingerprint: str
    dimensions: int
    splitter: Mapping[str, Any] = field(default_factory=dict, hash=False)
    created_at: str = ""  # ISO-8601 UTC; filled by the store on first write
    updated_at: str = ""  # ISO-8601 UTC; set by the store on every write

    def to_json(self) -> str:
        """Canonical JSON (sorted keys)."""
        return json.dumps(
            dataclasses.asdict(self) | {"splitter": dict(self.splitter)}, sort_keys=True
        )

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        """Inverse of :meth:`to_json`; unknown keys are ignored (forward compatible)."""
        data = json.loads(text)
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def manifest_mismatches(stored: Manifest, expected: Manifest) -> tuple[str, ...]:
    """One readable line per field that differs (timestamps ignored); empty when compatible."""
    out = []
    for name in ("schema_version", "embedder_fingerprint", "dimensions", "splitter"):
        have, want = getattr(stored, name), getattr(expected, name)
        if (dict(have) if name == "splitter" else have) != (
            dict(want) if name == "splitter" else want
        ):
            out.append(f"{name}: index has {have!r}, configuration wants {want!r}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One indexed file as last seen on disk."""

    path: str
    mtime_ns: int
    size: int
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchFilters:
    """Metadata filters; ``None`` (or an empty tuple) means no restriction.

    ``path_prefixes`` are folder-aware: ``src/app`` matches ``src/app`` and ``src/app/x.py`` but
    not ``src/apple.py``; a prefix ending in ``/`` matches only below that folder.
    """

    layers: tuple[Layer | str, ...] | None = None  # normalized to Layer members
    path_prefixes: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None
    is_test: bool | None = None

    def __post_init__(self) -> None:
        if self.layers is not None:
            valid = {layer.value for layer in Layer}
            bad = [str(x) for x in self.layers if str(x) not in valid]
            if bad:
                raise ValueError(f"unknown layer(s) {bad}; valid: {sorted(valid)}")
            layers = tuple(Layer(str(x)) for x in self.layers)
            object.__setattr__(self, "layers", layers or None)
        for name in ("path_prefixes", "languages"):
            value = getattr(self, name)
            if value is not None:
                if isinstance(value, str):
                    raise ValueError(
                        f"{name} must be a sequence of strings, got the string {value!r}"
                    )
                object.__setattr__(self, name, tuple(value) or None)

    def matches_path(self, path: str) -> bool:
        """True when ``path`` is under one of the prefixes (or there are none)."""
        if not self.path_prefixes:
            return True
        return any(_under(path, p) for p in self.path_prefixes)

    def matches(self, layer: str, path: str, language: str, is_test: bool) -> bool:
        """True when a row with this metadata passes every filter."""
        if self.layers and layer not in self.layers:
            return False
        if self.languages and language not in self.languages:
            return False
        if self.is_test is not None and bool(is_test) != self.is_test:
            return False
        return self.matches_path(path)


def _under(path: str, prefix: str) -> bool:
    prefix = prefix.replace("\\", "/")
    while prefix.startswith(("./", "/")):
        prefix = prefix[2:] if prefix.startswith("./") else prefix[1:]
    if prefix in ("", "."):
        return True
    if prefix.endswith("/"):
        return path.startswith(prefix)
    return path == prefix or path.startswith(prefix + "/")


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoredRow:
    """One hit: where it is, how it scored, its text, and the full row."""

    row_id: str
    layer: Layer
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    score: float
    text: str
    row: Row


@dataclass(frozen=True, slots=True)
class PendingVector:
    """A text waiting for a vector; pass ``text_hash`` back to :meth:`VectorQueue.put_vectors`."""

    row_id: str  # one row with this text (several rows may share it)
    text_hash: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreStats:
    """Counts for ``ragstrata status``."""

    rows: Mapping[str, int]  # layer id -> rows (every layer present, zeros included)
    files: int
    vectors: int  # stored vectors of the fingerprint asked about
    pending_vectors: int  # distinct embedding texts without a vector of that fingerprint
    fingerprint: str | None
    updated_at: str | None
    schema_version: int


# --------------------------------------------------------------------------- protocols


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


# --------------------------------------------------------------------------- shared rules


def embedding_text(row: Row, layers: Sequence[Layer] = DEFAULT_EMBED_LAYERS) -> str | None:
    """The text embedded for ``row``, or None when its layer is not embedded.

    - C1 definition: qualified name, signature, docstring, then the first
      :data:`DEFINITION_HEAD_LINES` body lines after the signature; at most
      :data:`DEFINITION_MAX_CHARS` characters.
    - D1 section: heading path, then the text.  D2 / C3 chunks: heading path or symbol, text.
    - C0 file: path and summary, only when a summary exists.  C2 and D0: never.
    """
    if row.layer not in layers:
        return None
    text: str | None
    if isinstance(row, DefinitionRow):
        body = row.text.splitlines()
        head = "\n".join(body[1 : 1 + DEFINITION_HEAD_LINES]) if len(body) > 1 else ""
        text = "\n".join(p for p in (row.symbol, row.signature, row.docstring or "", head) if p)
        text = text[:DEFINITION_MAX_CHARS]
    elif isinstance(row, SectionRow):
        text = f"{row.heading_path}\n{row.text}"
    elif isinstance(row, ChunkRow):
        lead = row.heading_path or row.symbol or ""
        text = f"{lead}\n{row.text}" if lead else row.text
    elif isinstance(row, FileRow):
        text = f"{row.path}\n{row.summary}" if row.summary else None
    else:
        text = None
    if text is None or not text.strip():
        return None
    return text[:EMBED_MAX_CHARS]


def embedding_hash(text: str) -> str:
    """Key of a vector under one fingerprint (first 32 hex of SHA-256)."""
    return content_hash(text)[:32]


def lexical_text(row: Row) -> str:
    """The text whose analyzed terms make the row findable by lexical search."""
    if isinstance(row, DefinitionRow):
        return "\n".join(p for p in (row.symbol, row.signature, row.docstring or "", row.text) if p)
    if isinstance(row, RelationRow):
        return f"{row.from_symbol} {row.relation} {row.to_symbol or row.to_name}"
    if isinstance(row, ChunkRow):
        lead = row.heading_path or row.symbol or ""
        return f"{lead}\n{row.text}" if lead else row.text
    if isinstance(row, SectionRow):
        return f"{row.heading_path}\n{row.text}"
    if isinstance(row, FileRow):
        return "\n".join(
            (row.path, " ".join(row.symbols), " ".join(row.imports), row.summary or "")
        )
    return "\n".join((row.path, row.title, "\n".join(row.outline)))


def summary_key(row: Row) -> tuple[SummaryKind, str] | None:
    """The summary a row carries as extra lexical terms: C0 by path, C1 by qualified symbol.

    Summaries are kept out of the row payloads and of :func:`embedding_text` on purpose: rows
    stay exactly what ingestion produced (content-addressed ids and vectors do not move when a
    summary is regenerated), and the default embedded layers already cover definitions.
    """
    if isinstance(row, FileRow):
        return SummaryKind.FILE, row.path
    if isinstance(row, DefinitionRow):
        return SummaryKind.DEFINITION, row.symbol
    return None


def parse_summary_kind(kind: SummaryKind | str) -> SummaryKind:
    """Validate a summary kind, naming the valid set on error."""
    try:
        return SummaryKind(kind)
    except ValueError:
        raise ValueError(
            f"unknown summary kind {kind!r}; valid: {[k.value for k in SummaryKind]}"
        ) from None


def check_summary_items(items: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``(key, prompt_hash, text)`` triples with a non-empty key and hash; last one of a key wins."""
    out: dict[str, tuple[str, str, str]] = {}
    for item in items:
        key, prompt_hash, text = item
        if not isinstance(key, str) or not key:
            raise ValueError(f"summary key must be a non-empty string, got {key!r}")
        if not isinstance(prompt_hash, str) or not prompt_hash:
            raise ValueError(f"summary of {key!r} needs a prompt hash, got {prompt_hash!r}")
        if not isinstance(text, str):
            raise ValueError(f"summary of {key!r} must be a string, got {type(text).__name__}")
        out[key] = (key, prompt_hash, text)
    return list(out.values())


def display_text(row: Row) -> str:
    """The text shown for a hit."""
    if isinstance(row, (DefinitionRow, ChunkRow, SectionRow)) and row.text:
        return row.text
    if isinstance(row, DefinitionRow):
        return row.signature
    return lexical_text(row)


def scored_row(row: Row, score: float) -> ScoredRow:
    """A hit for ``row`` with ``score``."""
    return ScoredRow(
        row_id=row.id,
        layer=row.layer,
        path=row.path,
        start_line=row.start_line,
        end_line=row.end_line,
        symbol=row_symbol(row),
        score=score,
        text=display_text(row),
        row=row,
    )


def unique_rows(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with repeated ids dropped: the first row of an id, at its first position
    (what every backend writes and :meth:`RowReader.scan_rows` returns, in this order)."""
    unique: dict[str, Row] = {}
    for row in rows:
        unique.setdefault(row.id, row)
    return list(unique.values())


def rank_hits(hits: Sequence[ScoredRow]) -> list[ScoredRow]:
    """Best score first; then non-test code, then path and line for a stable order."""
    return sorted(hits, key=lambda h: (-h.score, h.row.is_test, h.path, h.start_line, h.row_id))


def row_symbol(row: Row) -> str | None:
    """Qualified name a hit is about: definition symbol, chunk's enclosing symbol, relation's
    source; None for file and doc rows."""
    if isinstance(row, (DefinitionRow, ChunkRow)):
        return row.symbol
    if isinstance(row, RelationRow):
        return row.from_symbol
    return None


_ROW_TYPES: dict[str, type] = {
    Layer.C0: FileRow,
    Layer.C1: DefinitionRow,
    Layer.C2: RelationRow,
    Layer.C3: ChunkRow,
    Layer.D0: DocFileRow,
    Layer.D1: SectionRow,
    Layer.D2: ChunkRow,
}


def row_to_payload(row: Row) -> str:
    """Compact JSON of every field of the row (tuples as lists)."""
    data = {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def row_from_payload(payload: str) -> Row:
    """Inverse of :func:`row_to_payload`."""
    data: dict[str, Any] = json.loads(payload)
    layer = Layer(data["layer"])
    data["layer"] = layer
    cls = _ROW_TYPES[layer]
    for key, value in data.items():
        if isinstance(value, list):
            data[key] = tuple(value)
    row: Row = cls(**data)
    return row


# --------------------------------------------------------------------------- symbol matching


def normalize_symbol(name: str) -> str:
    """Lower-case, with ``::``, ``#``, ``/`` and ``\\`` separators written as dots."""
    out = name.strip().lower()
    for sep in ("::", "#", "/", "\\"):
        out = out.replace(sep, ".")
    return out.strip(".")


def last_segment(name: str) -> str:
    """``pkg.mod.func`` -> ``func`` (normalized)."""
    return normalize_symbol(name).rsplit(".", 1)[-1]


def suffix_match(symbol: str, query: str) -> bool:
    """True when ``query``'s dotted segments end ``symbol`` (both normalized)."""
    s, q = normalize_symbol(symbol), normalize_symbol(query)
    return bool(q) and (s == q or s.endswith("." + q))


def fuzzy_key(name: str) -> str:
    """The form fuzzy matching compares: lower-case, without ``_`` and ``-``."""
    return name.lower().replace("_", "").replace("-", "")


def fuzzy_score(query: str, name: str) -> float:
    """Similarity of two short names ignoring case and ``_``/``-``: 1.0 same letters,
    0.6..0.95 one contains the other (the shorter at least 3 letters and 40% of the longer),
    else the difflib ratio scaled by 0.9 (0 below 0.7)."""
    return fuzzy_key_score(fuzzy_key(query), fuzzy_key(name))


def fuzzy_key_score(q: str, n: str) -> float:
    """:func:`fuzzy_score` on two :func:`fuzzy_key` forms (lets callers normalize once)."""
    if not q or not n:
        return 0.0
    if q == n:
        return 1.0
    short, long_ = (q, n) if len(q) <= len(n) else (n, q)
    if 2 * len(short) / (len(q) + len(n)) < 0.7:
        if len(short) >= 3 and len(short) >= 0.4 * len(long_) and short in long_:
            return 0.6 + 0.35 * len(short) / len(long_)
        return 0.0  # the ratio cannot reach the cut-off: skip the costly matcher
    if len(short) >= 3 and short in long_:
        return 0.6 + 0.35 * len(short) / len(long_)
    matcher = difflib.SequenceMatcher(None, n, q)
    if matcher.quick_ratio() < 0.7:
        return 0.0  # an upper bound of ratio(); much cheaper
    ratio = matcher.ratio()
    return ratio * 0.9 if ratio >= 0.7 else 0.0


def relation_score(
    rel_from: str, rel_to_name: str, rel_to_symbol: str | None, symbol: str, direction: str
) -> float:
    """Score of one C2 relation for :meth:`SymbolLookup.relations` (0 = no match)."""
    if direction == Direction.CALLEES:
        if normalize_symbol(rel_from) == normalize_symbol(symbol):
            return 1.0
        return 0.9 if suffix_match(rel_from, symbol) else 0.0
    if rel_to_symbol:  # resolved precisely (the resolver sets it only then)
        # case matters between two real symbols (Go ``ValidateStruct`` / ``validateStruct``);
        # an all-lower-case query matches any case
        def seps(name: str) -> str:
            for sep in ("::", "#", "/", "\\"):
                name = name.replace(sep, ".")
            return name.strip().strip(".")

        target = seps(rel_to_symbol if symbol != symbol.lower() else rel_to_symbol.lower())
        query = seps(symbol)
        if target == query:
            return 1.0
        return 0.9 if query and target.endswith("." + query) else 0.0
    # unresolved: a name match is only a possible caller, however much of the name matches
    return 0.5 if last_segment(rel_to_name) == last_segment(symbol) else 0.0


def symbol_score(mode: SymbolMode, query: str, name: str, symbol: str) -> float:
    """Score of one C1 definition for :meth:`SymbolLookup.lookup_symbol` (0 = no match)."""
    if mode is SymbolMode.EXACT:
        if name == query:
            return 1.0
        return 0.95 if name.lower() == query.lower() else 0.0
    if mode is SymbolMode.QUALIFIED:
        if symbol == query:
            return 1.0
        return 0.95 if normalize_symbol(symbol) == normalize_symbol(query) else 0.0
    if mode is SymbolMode.SUFFIX:
        if normalize_symbol(symbol) == normalize_symbol(query):
            return 1.0
        if not suffix_match(symbol, query):
            return 0.0
        return 0.9 if symbol.endswith(query) else 0.85
    return fuzzy_score(last_segment(query), name)


def parse_mode(mode: SymbolMode | str) -> SymbolMode:
    """Validate a symbol mode, naming the valid set on error."""
    try:
        return SymbolMode(mode)
    except ValueError:
        raise ValueError(
            f"unknown symbol mode {mode!r}; valid: {[m.value for m in SymbolMode]}"
        ) from None


def parse_direction(direction: Direction | str) -> Direction:
    """Validate a relation direction, naming the valid set on error."""
    try:
        return Direction(direction)
    except ValueError:
        raise ValueError(
            f"unknown direction {direction!r}; valid: {[d.value for d in Direction]}"
        ) from None


def parse_layers(layers: Sequence[Layer | str] | None) -> tuple[Layer, ...] | None:
    """Validate layer ids (None stays None: every layer), naming the valid set on error."""
    if layers is None:
        return None
    if isinstance(layers, str):
        raise ValueError(f"layers must be a sequence of layer ids, got the string {layers!r}")
    valid = {layer.value for layer in Layer}
    bad = [str(x) for x in layers if str(getattr(x, "value", x)) not in valid]
    if bad:
        raise ValueError(f"unknown layer(s) {bad}; valid: {sorted(valid)}")
    return tuple(sorted({Layer(str(getattr(x, "value", x))) for x in layers}))


def check_top_k(top_k: int) -> int:
    """``top_k``/``limit`` must be a positive int."""
    if not isinstance(top_k, int) or top_k <= 0:
        raise ValueError(f"top_k/limit must be a positive integer, got {top_k!r}")
    return top_k
