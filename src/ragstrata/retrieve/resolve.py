"""One symbol resolver: a name as a user or agent writes it -> the ranked definitions (C1).

Every place that turns a name into a definition asks this module: the retriever's symbol list,
the evidence policy, the answer graphs, gendocs, and the facade's ``definition()`` /
``references()`` (which MCP and HTTP call). So ``ask "where is X"``, ``search``, MCP
``get_definition X``, ``GET /v1/definition`` and ``gendocs X`` lead with the same definition.

Accepted forms: ``UserService``, ``userservice`` (case), ``pkg.mod.Class.method``,
``Class::method``, ``Class#method``, ``Class.method``, ``a/b.py:func`` or ``a/b.py::Class.m``
(the name inside that file), ``charge()`` and ```charge``` (decoration stripped), typos.

Precedence — the first mode that finds anything wins, so ``UserService`` never drowns among
fuzzy neighbours when it exists:

1. ``exact``: the short name, case-insensitive (the exact case ranks first);
2. ``qualified``: the whole qualified name, with ``::``, ``#``, ``/`` read as dots;
3. ``suffix``: trailing dotted segments (``Store.search`` -> ``pkg.store.Store.search``);
4. ``fuzzy``: similar short names (``fuzzy_score``), from a lexical pool of candidates and,
   when that finds none, the store's exhaustive name scan.

Within a mode: the store's score (exact case first), then non-test code, then non-module
definitions, then path and line. Scope (``path_prefixes``, ``languages``, ``is_test``) limits
every mode; with ``widen`` a strict mode that finds nothing in a path scope is tried again
without it before falling back to fuzzy ("who calls X in src/app": X may live elsewhere).
A match is *found* when a strict mode (1-3) matched, or a fuzzy one scored at least
``accept`` (default 0.95: the same letters ignoring case, ``_`` and ``-``, as
``http_client`` ~ ``HttpClient``). Fuzzy matches below ``accept`` are *candidates* ("did you
mean"); below ``threshold`` they are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragstrata.core.languages import detect_language
from ragstrata.core.names import fuzzy_score, last_segment
from ragstrata.core.rows import DefinitionRow, RelationRow
from ragstrata.core.values import Direction, ScoredRow, SearchFilters, SymbolMode
from ragstrata.store.protocols import Store

_NAME_MARKS = ("!", "?")
_SCREAMING = re.compile(
    r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$"
)  # the last character of Ruby and Elixir names

__all__ = [
    "CASCADE",
    "DEFAULT_ACCEPT",
    "REFERENCE_KINDS",
    "STRICT_MODES",
    "References",
    "SymbolMatch",
    "SymbolQuery",
    "SymbolResolver",
    "parse_name",
]

CASCADE: tuple[SymbolMode, ...] = (
    SymbolMode.EXACT,
    SymbolMode.QUALIFIED,
    SymbolMode.SUFFIX,
    SymbolMode.FUZZY,
)
STRICT_MODES = frozenset({SymbolMode.EXACT, SymbolMode.QUALIFIED, SymbolMode.SUFFIX})
"""Modes whose matches count as "the named symbol was found"."""
DEFAULT_ACCEPT = 0.95
"""A fuzzy match at least this close counts as found (same letters ignoring case, ``_``, ``-``)."""
REFERENCE_KINDS: tuple[str, ...] = (
    "calls",
    "constructs",
    "references",
    "imports",
    "inherits",
    "implements",
)
"""C2 relation kinds that are uses of a symbol (``contains`` is structure, not a use)."""

_FUZZY_POOL = 50  # lexical candidates graded by name similarity
_DECORATION = "`'\" \t\r\n"
_PATH_NAME = re.compile(r"^(?P<path>[^\s:]+?):{1,2}(?P<name>[A-Za-z_$][\w$.:#]*)$")


@dataclass(frozen=True, slots=True)
class SymbolQuery:
    """A name as written, split into the file it names (if any) and the symbol part."""

    raw: str
    name: str  # the symbol part, decoration stripped
    path: str | None = None  # ``a/b.py`` of ``a/b.py:func``


def parse_name(text: str) -> SymbolQuery:
    """Strip decoration (backticks, quotes, a trailing ``()``) and split ``path:name``.

    ``Class::method`` stays a name: the part before ``:`` is a path only when it has a ``/`` or
    a recognised source-file extension (``b.py``, ``main.go``).
    """
    value = text.strip(_DECORATION)
    if value.endswith("()"):
        value = value[:-2]
    value = value.strip(_DECORATION)
    found = _PATH_NAME.match(value)
    if found:
        path = found["path"].replace("\\", "/").removeprefix("./")
        looks_like_file = "." in path.rsplit("/", 1)[-1] and detect_language(path) != "unknown"
        if "/" in path or looks_like_file:
            return SymbolQuery(text, found["name"], path)
    return SymbolQuery(text, value)


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """The definitions found for one name, the mode that found them, and near candidates."""

    name: str
    mode: SymbolMode | None
    hits: tuple[ScoredRow, ...]
    accept: float = DEFAULT_ACCEPT

    @property
    def found(self) -> bool:
        """True when a strict mode matched, or a fuzzy match scored at least ``accept``."""
        if not self.hits or self.mode is None:
            return False
        return self.mode in STRICT_MODES or self.hits[0].score >= self.accept

    @property
    def definitions(self) -> tuple[ScoredRow, ...]:
        """The matches that count as the named symbol (empty when not found)."""
        if not self.found:
            return ()
        if self.mode in STRICT_MODES:
            return self.hits
        return tuple(h for h in self.hits if h.score >= self.accept)

    @property
    def candidates(self) -> tuple[ScoredRow, ...]:
        """Fuzzy matches that do not count as found: "did you mean" suggestions."""
        if self.mode is not SymbolMode.FUZZY:
            return ()
        return tuple(h for h in self.hits if h.score < self.accept)

    @property
    def best(self) -> DefinitionRow | None:
        """The leading definition, when found."""
        defs = self.definitions
        row = defs[0].row if defs else None
        return row if isinstance(row, DefinitionRow) else None


@dataclass(frozen=True, slots=True)
class References:
    """Where a symbol is used: C2 relations into it, out of it, and its uses in tests."""

    name: str
    symbol: str  # the qualified name followed (the resolved definition's, else the name)
    match: SymbolMatch
    callers: tuple[ScoredRow, ...]
    callees: tuple[ScoredRow, ...]
    tests: tuple[ScoredRow, ...]


_KIND_POOL = 5  # a lookup narrowed to kinds reads this many times its limit first


def _of_kinds(hits: list[ScoredRow], kinds: Sequence[str]) -> list[ScoredRow]:
    """The hits whose definition is of one of ``kinds`` (all of them when none is)."""
    if not kinds:
        return hits
    wanted = [h for h in hits if getattr(h.row, "kind", None) in kinds]
    return wanted or hits


class SymbolResolver:
    """Resolves names against one store (see the module docstring for the precedence).

    ``threshold``: fuzzy matches scoring below it are dropped (``fuzzy_score`` is 0 or at least
    0.6); ``accept``: a fuzzy match scoring at least this counts as found.
    """

    def __init__(
        self, store: Store, *, threshold: float = 0.0, accept: float = DEFAULT_ACCEPT
    ) -> None:
        if not 0.0 <= threshold <= 1.0 or not 0.0 < accept <= 1.0:
            raise ValueError(
                f"fuzzy threshold {threshold!r} and accept {accept!r} must be within [0, 1]"
            )
        self.store = store
        self.threshold = threshold
        self.accept = accept

    # ------------------------------------------------------------------ definitions
    def resolve(
        self,
        name: str,
        filters: SearchFilters | None = None,
        *,
        limit: int = 10,
        widen: bool = True,
        modes: Sequence[SymbolMode] = CASCADE,
        kinds: Sequence[str] = (),
    ) -> SymbolMatch:
        """The definitions of ``name``: the first mode of ``modes`` that matches, ranked.

        ``kinds`` (C1 kinds the question names: "the Value enum") narrows the matches of a mode
        to definitions of those kinds when it has any; otherwise they all stay."""
        query = parse_name(name)
        scope = _c1(filters)
        scopes = [scope]
        if query.path is not None:  # the name inside the file it names: no widening
            scopes = [replace(scope, path_prefixes=(query.path,))]
        elif widen and scope.path_prefixes:
            scopes.append(replace(scope, path_prefixes=None))
        for mode in modes:
            for where in scopes if mode in STRICT_MODES else scopes[:1]:
                hits = self._lookup(query.name, mode, where, limit * (_KIND_POOL if kinds else 1))
                if hits:
                    hits = _of_kinds(hits, kinds)[:limit]
                    return SymbolMatch(query.name, mode, tuple(hits), self.accept)
        return SymbolMatch(query.name, None, (), self.accept)

    def _lookup(
        self, name: str, mode: SymbolMode, filters: SearchFilters, limit: int
    ) -> list[ScoredRow]:
        if mode is SymbolMode.FUZZY:
            hits = self._fuzzy(name, filters, limit)
        else:
            hits = self.store.lookup_symbol(name, mode, filters, limit)
            if not hits and mode is SymbolMode.EXACT and name[-1:].isalnum():
                # Ruby's `static!` / `etag_matches?`: a question drops the mark from the name
                for mark in _NAME_MARKS:
                    hits = self.store.lookup_symbol(name + mark, mode, filters, limit)
                    if hits:
                        break
        hits = [h for h in hits if isinstance(h.row, DefinitionRow)]
        return sorted(hits, key=_rank)

    def _fuzzy(self, name: str, filters: SearchFilters, limit: int) -> list[ScoredRow]:
        """Lexical candidates (the name and its last segment) graded by name similarity; the
        store's exhaustive scan only when the pool has none (it costs about a second at tens
        of thousands of definitions)."""
        tail = last_segment(name)
        graded = []
        for row in self.store.search_lexical([name, tail], filters, _FUZZY_POOL):
            own = getattr(row.row, "name", None) or last_segment(row.symbol or "")
            score = fuzzy_score(tail, own)
            if _SCREAMING.match(name.rsplit(".", 1)[-1]) and not _SCREAMING.match(own):
                score *= 0.5  # `GIN_MODE` (an environment variable, a constant) is no `ginMode`
            if score > 0 and score >= self.threshold:
                graded.append(replace(row, score=score))
        if not graded:
            graded = [
                h
                for h in self.store.lookup_symbol(name, SymbolMode.FUZZY, filters, limit)
                if h.score > 0 and h.score >= self.threshold
            ]
        return sorted(graded, key=_rank)[:limit]

    # ------------------------------------------------------------------ relations
    def references(
        self,
        name: str,
        filters: SearchFilters | None = None,
        *,
        kinds: Sequence[str] | None = REFERENCE_KINDS,
        limit: int = 50,
    ) -> References:
        """Callers, callees and test uses of the definition ``name`` resolves to (of ``name``
        as written when it resolves to nothing: relations keep unresolved call names)."""
        match = self.resolve(name, filters)
        best = match.best
        symbol = best.symbol if best is not None else parse_name(name).name
        scope = _relations_scope(filters)
        callers = self.relations(symbol, Direction.CALLERS, kinds, scope, limit)
        callees = self.relations(symbol, Direction.CALLEES, kinds, scope, limit)
        tests = tuple(h for h in callers if h.row.is_test)
        if scope is None or scope.is_test is None:
            tested = replace(scope or SearchFilters(), is_test=True)
            extra = self.relations(symbol, Direction.CALLERS, kinds, tested, limit)
            seen = {h.row_id for h in tests}
            tests += tuple(h for h in extra if h.row_id not in seen)
        return References(name, symbol, match, callers, callees, tests)

    def relations(
        self,
        symbol: str,
        direction: Direction,
        kinds: Sequence[str] | None = ("calls",),
        filters: SearchFilters | None = None,
        limit: int = 50,
    ) -> tuple[ScoredRow, ...]:
        """C2 relations of ``symbol`` (a qualified name): non-test first, then resolved targets
        (this repository's code), path and line. Callees are only those made from the symbol
        itself."""
        found = [
            h
            for h in self.store.relations(symbol, direction, kinds, filters, limit)
            if isinstance(h.row, RelationRow)
        ]
        if direction is Direction.CALLEES:
            exact = [h for h in found if _is(h.row, symbol)]
            found = exact or found
        found.sort(key=_relation_rank)
        return tuple(found)


def _is(row: object, symbol: str) -> bool:
    return isinstance(row, RelationRow) and row.from_symbol == symbol


def _rank(hit: ScoredRow) -> tuple[float, bool, bool, str, int, str]:
    row = hit.row
    module = isinstance(row, DefinitionRow) and row.kind == "module"
    return (-hit.score, row.is_test, module, hit.path, hit.start_line, hit.row_id)


def _relation_rank(hit: ScoredRow) -> tuple[bool, bool, str, int]:
    """Non-test uses first (tests never lead a list when the code has others), resolved
    targets before name matches, then path and line."""
    row = hit.row
    assert isinstance(row, RelationRow)
    return (row.is_test, row.to_symbol is None, row.path, row.line or row.start_line)


def _c1(filters: SearchFilters | None) -> SearchFilters:
    if filters is None:
        return SearchFilters(layers=("C1",))
    return SearchFilters(
        layers=("C1",),
        path_prefixes=filters.path_prefixes,
        languages=filters.languages,
        is_test=filters.is_test,
    )


def _relations_scope(filters: SearchFilters | None) -> SearchFilters | None:
    if filters is None:
        return None
    return SearchFilters(
        path_prefixes=filters.path_prefixes, languages=filters.languages, is_test=filters.is_test
    )
