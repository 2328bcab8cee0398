"""The values that cross the store seam: enums, manifest, catalog entry, filters, hits, stats."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from ragstrata.core.rows import ChunkRow, DefinitionRow, Layer, RelationRow, Row, SectionRow
from ragstrata.core.texts import lexical_text

__all__ = [
    "CatalogEntry",
    "DefinitionKey",
    "Direction",
    "Manifest",
    "PendingVector",
    "RelationKey",
    "RelationScope",
    "ScoredRow",
    "SearchFilters",
    "StoreStats",
    "SummaryKind",
    "SymbolMode",
    "display_text",
    "manifest_mismatches",
    "row_symbol",
    "scored_row",
]


class RelationKey(NamedTuple):
    """What a stored C2 row names, without decoding the row: the fields the indexer's scoped
    relation re-resolution matches against a change (``indexer/reach.py``) and the resolver
    reads of the relations it only learns from (imports, base classes: ``to_symbol``)."""

    path: str
    id: str
    relation: str
    from_symbol: str
    to_name: str
    receiver_type: str | None
    language: str
    to_symbol: str | None


class DefinitionKey(NamedTuple):
    """What the relation resolver reads of a stored C1 row, without decoding the row."""

    path: str
    symbol: str
    name: str
    parent: str | None
    kind: str
    language: str
    signature: str


@dataclass(frozen=True, slots=True)
class RelationScope:
    """Which relation keys :meth:`RowReader.scan_relation_keys` returns besides those of its
    ``paths``: a key is in scope when its ``relation`` is one of ``relations``, or one of
    ``mentioning`` is a substring (case kept) of its ``to_name``, ``receiver_type`` or
    ``from_symbol``, or (``first_of_file``) it is the first C2 row of its file. A superset
    filter: the indexer refines what it gets."""

    relations: frozenset[str] = frozenset()
    mentioning: frozenset[str] = frozenset()
    first_of_file: bool = False

    def __post_init__(self) -> None:
        if any(not m for m in self.mentioning):
            raise ValueError("RelationScope.mentioning holds an empty string (it matches all)")

    def matches(self, key: RelationKey, first: bool) -> bool:
        """The rule, for a store that filters in Python (``first``: the file's first key)."""
        if key.relation in self.relations or (self.first_of_file and first):
            return True
        fields = (key.to_name, key.receiver_type or "", key.from_symbol)
        return any(m in f for m in self.mentioning for f in fields)


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    """What built an index; a mismatch with the running configuration means rebuild."""

    schema_version: int
    package_version: str
    embedder_fingerprint: str
    dimensions: int
    splitter: Mapping[str, Any] = field(default_factory=dict, hash=False)
    extractor: str = ""  # the extraction rules' fingerprint; "" in indexes built before it
    created_at: str = ""  # ISO-8601 UTC; filled by the store on first write
    updated_at: str = ""  # ISO-8601 UTC; set by the store on every write

    def to_json(self) -> str:
        """Canonical JSON (sorted keys)."""
        return json.dumps(
            dataclasses.asdict(self) | {"splitter": dict(self.splitter)}, sort_keys=True
        )

    def stamped(self, created: str, now: str) -> Manifest:
        """This manifest as a store writes it at ``now``: created at its own ``created_at``,
        else at the stored one's (``created``), else now; updated now."""
        return dataclasses.replace(
            self,
            splitter=dict(self.splitter),
            created_at=self.created_at or created or now,
            updated_at=now,
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


def display_text(row: Row) -> str:
    """The text shown for a hit."""
    if isinstance(row, (DefinitionRow, ChunkRow, SectionRow)) and row.text:
        return row.text
    if isinstance(row, DefinitionRow):
        return row.signature
    return lexical_text(row)


def row_symbol(row: Row) -> str | None:
    """Qualified name a hit is about: definition symbol, chunk's enclosing symbol, relation's
    source; None for file and doc rows."""
    if isinstance(row, (DefinitionRow, ChunkRow)):
        return row.symbol
    if isinstance(row, RelationRow):
        return row.from_symbol
    return None


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
