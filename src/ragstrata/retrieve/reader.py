"""The one object through which later stages read the index: :class:`IndexReader`.

The answer stage (graphs and generated docs) holds a reader, never a store. It reads by path
(a file's rows, outline, sections, text), by name (the :class:`SymbolResolver`, relations,
whether a name occurs anywhere in the index) and by a literal term (rows that write it); it
never runs a top-k search of its own to list rows (a search silently drops what ranks past its
``top_k``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ragstrata.core.names import last_segment
from ragstrata.core.rows import DefinitionRow, FileRow, Layer, Row, SectionRow
from ragstrata.core.values import (
    CatalogEntry,
    DefinitionKey,
    Direction,
    RelationKey,
    ScoredRow,
    SearchFilters,
)
from ragstrata.retrieve import rows as _rows
from ragstrata.retrieve.resolve import SymbolResolver, parse_name
from ragstrata.store.protocols import Store

__all__ = ["IndexReader", "mentions"]

# Where a name the question uses may be written when no definition or relation carries it.
_TEXT_LAYERS = ("C1", "C3", "D1", "D2")
_TEXT_POOL = 20


def _word_re(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])", re.IGNORECASE)


def mentions(text: str, name: str) -> bool:
    """True when ``text`` contains ``name`` as a whole word (case-insensitive)."""
    return bool(name) and _word_re(name).search(text) is not None


class IndexReader:
    """Read-only access to one index for the answer stage (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.resolver = SymbolResolver(store)

    # ---------------------------------------------------------------- by path
    def catalog(self) -> Mapping[str, CatalogEntry]:
        """Every indexed file: path -> catalog entry."""
        return self._store.catalog()

    def paths(self) -> list[str]:
        """Every indexed path, sorted."""
        return sorted(self._store.catalog())

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        """The rows with these ids (those that exist)."""
        return list(self._store.get_rows(list(ids)))

    def rows_by_path(
        self, layers: Iterable[Layer | str] | None = None, paths: Iterable[str] | None = None
    ) -> dict[str, list[Row]]:
        """Rows of ``layers`` in ``paths`` (all when None): path -> rows in file order."""
        return _rows.rows_by_path(self._store, layers, paths)

    def file_rows(self, path: str, layers: Iterable[Layer | str] | None = None) -> list[Row]:
        """Every row of one file (of ``layers`` when given), in the file's order."""
        return _rows.file_rows(self._store, path, layers)

    def file_row(self, path: str) -> FileRow | None:
        """The file's C0 row (code files only), or None."""
        return _rows.file_row(self._store, path)

    def outline(self, path: str) -> list[DefinitionRow]:
        """The file's definitions (C1) by start line."""
        return _rows.outline(self._store, path)

    def sections(self, path: str) -> list[SectionRow]:
        """The document's sections (D1) by start line."""
        return _rows.sections(self._store, path)

    def file_text(self, path: str) -> str | None:
        """The file's text as indexed (rebuilt from its chunks), or None."""
        return _rows.file_text(self._store, path)

    def definition_keys(self) -> list[DefinitionKey]:
        """What every definition is (symbol, kind, parent, file), without its text."""
        return list(self._store.scan_definition_keys())

    def relation_keys(self) -> list[RelationKey]:
        """What every relation names (from, to, resolved target), without decoding rows."""
        return list(self._store.scan_relation_keys())

    # ---------------------------------------------------------------- by name
    def relations(
        self,
        symbol: str,
        direction: Direction,
        kinds: Sequence[str] | None = None,
        filters: SearchFilters | None = None,
        limit: int = 50,
    ) -> list[ScoredRow]:
        """C2 relations to (``CALLERS``) or from (``CALLEES``) ``symbol``."""
        return list(self._store.relations(symbol, direction, kinds, filters, limit))

    def name_in_index(self, name: str) -> bool:
        """True when a definition, a relation or indexed text carries ``name`` (the question's
        word for a symbol): what decides an honest "not found"."""
        query = parse_name(name)
        if self.resolver.resolve(query.name, limit=1, widen=True).found:
            return True
        for direction in (Direction.CALLERS, Direction.CALLEES):
            if self._store.relations(query.name, direction, None, None, 1):
                return True
        tail = last_segment(query.name)
        words = [w for w in {query.name, tail} if w]
        filters = SearchFilters(layers=_TEXT_LAYERS)
        for scored in self._store.search_lexical(words, filters, _TEXT_POOL):
            if mentions(scored.text, tail) or mentions(scored.text, query.name):
                return True
        return False

    # ---------------------------------------------------------------- by literal term
    def rows_writing(
        self,
        terms: str | Sequence[str],
        layers: Sequence[str],
        limit: int,
        *,
        is_test: bool | None = None,
    ) -> list[ScoredRow]:
        """Rows of ``layers`` whose analysed text holds ``terms`` (a string is analysed, a
        sequence term by term), best first: the candidates for a literal the question quotes
        (an option, a header, a heading). ``is_test=False`` leaves tests out."""
        query = terms if isinstance(terms, str) else list(terms)
        filters = SearchFilters(layers=tuple(layers), is_test=is_test)
        return list(self._store.search_lexical(query, filters, limit))
