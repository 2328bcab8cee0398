"""What text of a row is embedded, and what text makes it findable: the indexer's policy.

The indexer owns these rules (which layers get vectors, how a definition is cut for the
encoder, what a row's searchable text is); the stores apply them when they write or re-analyse
rows, through the :class:`TextRules` object they are given (``texts=``, default
:data:`DEFAULT_TEXTS`). The rules sit beside the rows they read, in ``core``, below both stages,
so that the store receives the policy without importing the indexer.

**Contract.** Vectors are keyed by the hash of the embedded text: a change to what a row embeds
(:func:`embedding_text`, the embedded layers) re-embeds every changed text on the next index run
(rows are kept); a change to the searchable text (:func:`lexical_text`) needs ``ANALYZER_VERSION``
(``store/analyzer.py``) bumped so stored terms are rebuilt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    FileRow,
    Layer,
    RelationRow,
    Row,
    SectionRow,
)

__all__ = [
    "DEFAULT_EMBED_LAYERS",
    "DEFAULT_TEXTS",
    "DEFINITION_HEAD_LINES",
    "DEFINITION_MAX_CHARS",
    "EMBED_MAX_CHARS",
    "OUTLINE_KINDS",
    "TextRules",
    "definition_outline",
    "embedding_text",
    "lexical_text",
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


OUTLINE_KINDS = frozenset(
    {"class", "interface", "struct", "enum", "trait", "object", "record", "union", "impl", "module"}
)
"""Definition kinds that hold other definitions; their texts are outlines (members' heads)."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def definition_outline(row: DefinitionRow) -> str:
    """A container's own lines: its head and every line no deeper than its body's first line
    (member signatures, decorators, attributes, closing braces); members' bodies are left out.
    Works on indentation, so for Python and for brace languages alike."""
    lines = row.text.splitlines()
    if len(lines) < 3:
        return row.text
    base = _indent(lines[0])
    deeper = [_indent(ln) for ln in lines[1:] if ln.strip() and _indent(ln) > base]
    if not deeper:
        return row.text
    level = min(deeper)
    return "\n".join(ln for ln in lines if ln.strip() and _indent(ln) <= level)


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


def lexical_text(row: Row) -> str:
    """The text whose analyzed terms make the row findable by lexical search.

    A container definition (class, module, ...) is searchable by its own lines only: its
    members' bodies belong to the members' rows (see :func:`definition_outline`), so a class
    does not match every word of every method it holds."""
    if isinstance(row, DefinitionRow):
        body = definition_outline(row) if row.kind in OUTLINE_KINDS else row.text
        return "\n".join(p for p in (row.symbol, row.signature, row.docstring or "", body) if p)
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


@dataclass(frozen=True, slots=True)
class TextRules:
    """The policy a store applies to the rows it writes: :func:`embedding_text` over
    ``embed_layers`` and :func:`lexical_text`. Implements the store's ``RowTexts`` role."""

    embed_layers: tuple[Layer, ...] = DEFAULT_EMBED_LAYERS

    def __post_init__(self) -> None:
        object.__setattr__(self, "embed_layers", tuple(Layer(str(x)) for x in self.embed_layers))

    def embedding(self, row: Row) -> str | None:
        """The text embedded for ``row`` (None: the row gets no vector)."""
        return embedding_text(row, self.embed_layers)

    def lexical(self, row: Row) -> str:
        """The text whose analyzed terms make ``row`` findable."""
        return lexical_text(row)


DEFAULT_TEXTS = TextRules()
"""The rules every index uses unless its builder passes others."""
