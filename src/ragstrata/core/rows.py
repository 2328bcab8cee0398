"""The rows of every index layer (ids are part of the public contract, see docs/architecture.md).

All rows are frozen, carry a content-derived ``id`` (never random), a repository-relative POSIX
``path``, a 1-based inclusive line span, ``language``, ``is_test`` and a ``content_hash``.
Use :func:`row_id` to build ids so every producer derives them the same way.

**Contract.** A change to a row's fields, to :func:`row_id` or to what extraction puts in a row
invalidates every stored index: bump ``ROW_SCHEMA_VERSION`` in each store schema (the manifest check asks for
``ragstrata index --rebuild``) and keep ``tests/test_row_payload.py`` passing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "ChunkRow",
    "DefinitionRow",
    "DocFileRow",
    "FileRow",
    "FileRows",
    "Layer",
    "RelationRow",
    "Row",
    "SectionRow",
    "SourceFile",
    "content_hash",
    "row_id",
]


class Layer(StrEnum):
    """Index layer ids (shared/design/ARCHITECTURE.md)."""

    C0 = "C0"  # source file
    C1 = "C1"  # definition
    C2 = "C2"  # relation
    C3 = "C3"  # code chunk
    D0 = "D0"  # doc file
    D1 = "D1"  # doc section
    D2 = "D2"  # doc chunk


def content_hash(text: str | bytes) -> str:
    """SHA-256 hex of the text (UTF-8) or bytes."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def row_id(layer: Layer | str, path: str, start_line: int, end_line: int, key: str) -> str:
    """Content-derived id: layer + path + span + a hash of ``key`` (text or qualified name).

    Stable across runs for unchanged content; 24 hex chars.
    """
    raw = f"{layer}\x00{path}\x00{start_line}\x00{end_line}\x00{key}"
    return hashlib.blake2b(raw.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """One file the walker accepted, decoded to text."""

    path: str  # repository-relative, POSIX separators
    language: str  # e.g. "python", "markdown", "text"; "unknown" when not recognised
    is_test: bool
    is_doc: bool
    size: int  # bytes on disk
    mtime_ns: int
    sha256: str  # of the raw bytes
    text: str  # decoded (UTF-8, BOM stripped, invalid bytes replaced), newlines kept as-is
    decode_errors: bool = False  # invalid UTF-8 was replaced with U+FFFD
    had_bom: bool = False

    @property
    def line_count(self) -> int:
        if not self.text:
            return 0
        return self.text.count("\n") + (0 if self.text.endswith("\n") else 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class _RowBase:
    id: str
    path: str
    language: str
    is_test: bool
    start_line: int
    end_line: int
    content_hash: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRow(_RowBase):
    """C0: one source file."""

    layer: Layer = Layer.C0
    size: int = 0
    imports: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()  # top-level definition names
    summary: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DefinitionRow(_RowBase):
    """C1: a class, function, method, type, constant or module definition."""

    layer: Layer = Layer.C1
    kind: str  # class|interface|struct|enum|function|method|constant|type_alias|module|trait|...
    name: str
    symbol: str  # qualified name: pkg.module.Class.method (language-appropriate)
    signature: str
    docstring: str | None = None
    decorators: tuple[str, ...] = ()
    parent: str | None = None  # qualified name of the enclosing definition
    is_exported: bool = True
    text: str = ""  # the definition's source lines


@dataclass(frozen=True, slots=True, kw_only=True)
class RelationRow(_RowBase):
    """C2: calls / constructs / references / imports / inherits / implements / contains, at
    ``line``. ``constructs``: a construction that is no call (Go ``T{}``, Rust ``T { .. }``;
    ``new T()`` and Python ``T()`` are calls of the class); ``references``: a type a
    declaration names (parameter, result, field, variable), one row per definition and type."""

    layer: Layer = Layer.C2
    relation: str  # calls|constructs|references|imports|inherits|implements|contains
    from_symbol: str  # qualified name of the definition (or module) where it happens
    to_name: str  # the text as written at the site
    to_symbol: str | None = None  # set only when resolved precisely (see ``resolution``)
    line: int = 0
    # How ``to_symbol`` was decided (ingest/code/resolve.py): "exact" (the code shows the
    # target: receiver, import, scope), "possible" (unresolved; a name match is only a
    # candidate), "external" (the code shows a target outside the repository: an imported
    # library, a builtin, a receiver of a foreign type); "" before resolution.
    resolution: str = ""
    # The receiver's type as the analyzer saw it at a call ``x.m()``: a declared or
    # constructed type name (``Context``), ``call:f()`` (the value of a call), ``?`` (a local
    # variable or parameter of unknown type); None when the receiver is not a local name.
    receiver_type: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkRow(_RowBase):
    """C3 (code) or D2 (docs): a chunk of a file with exact offsets."""

    layer: Layer = Layer.C3
    start_offset: int = 0  # code-point offsets into SourceFile.text, end exclusive
    end_offset: int = 0
    text: str = ""
    symbol: str | None = None  # enclosing definition, for code chunks
    heading_path: str | None = None  # enclosing section, for doc chunks


@dataclass(frozen=True, slots=True, kw_only=True)
class DocFileRow(_RowBase):
    """D0: a documentation file with its title and heading outline."""

    layer: Layer = Layer.D0
    title: str = ""
    outline: tuple[str, ...] = ()  # heading paths in document order


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionRow(_RowBase):
    """D1: one section of a document, fenced code blocks included."""

    layer: Layer = Layer.D1
    heading_path: str  # "README.md > Install > From source"
    title: str = ""
    slug: str = ""  # GitHub-style anchor of the heading
    level: int = 0  # heading level; 0 for the preamble before the first heading
    text: str = ""
    origin: str = "markdown"  # markdown|rst|text|docstring


Row = FileRow | DefinitionRow | RelationRow | ChunkRow | DocFileRow | SectionRow


@dataclass(frozen=True, slots=True)
class FileRows:
    """Everything ingestion produced for one file."""

    file: SourceFile
    rows: tuple[Row, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = ()
    redactions: tuple[str, ...] = ()  # kinds of the secrets redacted from its text
