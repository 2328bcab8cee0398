"""Symbol candidate generation: C1 lookup of the question's SYMBOL anchors.

The lookup cascades exact -> qualified -> suffix -> fuzzy and stops at the first mode that
finds anything, so ``UserService`` never drowns among fuzzy neighbours when it exists, and a
misspelt ``UserServise`` still finds candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.store.base import (
    ScoredRow,
    SearchFilters,
    Store,
    SymbolMode,
    fuzzy_score,
    last_segment,
)

__all__ = [
    "CASCADE",
    "STRICT_MODES",
    "SymbolMatch",
    "fuzzy_lookup",
    "lookup",
    "named_symbols",
]

_FUZZY_POOL = 50  # lexical candidates graded by name similarity

CASCADE: tuple[SymbolMode, ...] = (
    SymbolMode.EXACT,
    SymbolMode.QUALIFIED,
    SymbolMode.SUFFIX,
    SymbolMode.FUZZY,
)
STRICT_MODES = frozenset({SymbolMode.EXACT, SymbolMode.QUALIFIED, SymbolMode.SUFFIX})
"""Modes whose matches count as "the named symbol was found"."""


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """The definitions found for one name and the mode that found them."""

    name: str
    mode: SymbolMode | None
    hits: tuple[ScoredRow, ...]

    @property
    def found(self) -> bool:
        """True when an exact, qualified or suffix match exists."""
        return self.mode in STRICT_MODES and bool(self.hits)


def named_symbols(plan: RouterPlan) -> list[str]:
    """SYMBOL anchor values, the question's own first, then those carried from the session."""
    anchors = [a for a in plan.query_plan.anchors if a.type is AnchorType.SYMBOL]
    anchors.sort(key=lambda a: (a.source != "query", -a.confidence))
    return list(dict.fromkeys(a.value.strip("`()") for a in anchors if a.value.strip("`()")))


def lookup(
    store: Store,
    name: str,
    filters: SearchFilters | None,
    limit: int = 10,
    modes: Sequence[SymbolMode] = CASCADE,
) -> SymbolMatch:
    """The first mode of ``modes`` that matches ``name`` (C1 rows only). A strict mode that
    finds nothing inside the path scope is tried again without it before falling back to
    fuzzy matching."""
    c1 = _c1(filters)
    scopes = [c1]
    if c1.path_prefixes:  # "who calls X in src/app": X itself may be defined elsewhere
        scopes.append(replace(c1, path_prefixes=None))
    for mode in modes:
        for scope in scopes if mode in STRICT_MODES else scopes[:1]:
            if mode is SymbolMode.FUZZY:
                hits = fuzzy_lookup(store, name, scope, limit)
            else:
                hits = store.lookup_symbol(name, mode, scope, limit)
            if hits:
                return SymbolMatch(name, mode, tuple(hits))
    return SymbolMatch(name, None, ())


def fuzzy_lookup(
    store: Store, name: str, filters: SearchFilters, limit: int = 10
) -> list[ScoredRow]:
    """Definitions with names similar to ``name`` (``fuzzy_score`` > 0), best first.

    Candidates come from a lexical search over C1 with the name's identifier parts, then are
    graded by name similarity: this scales with the index (the store's exhaustive fuzzy scan
    compares every name and costs about a second at tens of thousands of definitions), at
    the price of missing typos that share no identifier part with the definition.
    """
    tail = last_segment(name)
    candidates = store.search_lexical([name, tail], filters, _FUZZY_POOL)
    graded = []
    for row in candidates:
        own = getattr(row.row, "name", None) or last_segment(row.symbol or "")
        score = fuzzy_score(tail, own)
        if score > 0:
            graded.append(replace(row, score=score))
    graded.sort(key=lambda r: (-r.score, r.row.is_test, r.path, r.start_line))
    return graded[:limit]


def _c1(filters: SearchFilters | None) -> SearchFilters:
    if filters is None:
        return SearchFilters(layers=("C1",))
    return SearchFilters(
        layers=("C1",),
        path_prefixes=filters.path_prefixes,
        languages=filters.languages,
        is_test=filters.is_test,
    )
