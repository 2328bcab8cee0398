"""Symbol matching shared by every backend: normalized names, suffixes, fuzzy names, and the
scores :meth:`~ragstrata.store.protocols.SymbolLookup.lookup_symbol` and ``relations`` give."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from ragstrata.core.values import Direction, SearchFilters, SymbolMode

__all__ = [
    "abbreviated_match",
    "fuzzy_key",
    "fuzzy_key_score",
    "fuzzy_score",
    "last_segment",
    "lookup_key",
    "normalize_symbol",
    "rank_symbol_matches",
    "relation_score",
    "suffix_match",
    "symbol_score",
]


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


def abbreviated_match(symbol: str, query: str) -> bool:
    """True when ``query`` names ``symbol`` by its last segment and abbreviated owners: each
    earlier segment of the query starts a segment of the symbol, in order (``res.format`` names
    ``lib/response.format``: JavaScript's ``res`` is the object ``lib/response.js`` exports)."""
    s = normalize_symbol(symbol).split(".")
    q = normalize_symbol(query).split(".")
    if not q[-1] or q[-1] != s[-1] or len(q) > len(s):
        return False
    rest = s[:-1]
    for part in reversed(q[:-1]):
        while rest and not rest[-1].startswith(part):
            rest.pop()
        if not rest:
            return False
        rest.pop()
    return True


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
    """Score of one C2 relation for :meth:`SymbolLookup.relations` (0 = no match).

    Case matters between two real symbols (Go's ``Cache.Set`` and ``Cache.set``, the public
    face and the one doing the work, are two definitions): an all-lower-case query matches
    any case."""
    if direction == Direction.CALLEES:
        return _symbol_match(rel_from, symbol)
    if rel_to_symbol:  # resolved precisely (the resolver sets it only then)
        return _symbol_match(rel_to_symbol, symbol)
    # unresolved: a name match is only a possible caller, however much of the name matches
    return 0.5 if last_segment(rel_to_name) == last_segment(symbol) else 0.0


def _symbol_match(real: str, symbol: str) -> float:
    """1.0 when the real symbol ``real`` is ``symbol``, 0.9 when it ends with it."""

    def seps(name: str) -> str:
        for sep in ("::", "#", "/", "\\"):
            name = name.replace(sep, ".")
        return name.strip().strip(".")

    target = seps(real if symbol != symbol.lower() else real.lower())
    query = seps(symbol)
    if target == query:
        return 1.0
    return 0.9 if query and target.endswith("." + query) else 0.0


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


def lookup_key(mode: SymbolMode, name: str) -> tuple[str, str]:
    """The indexed name column a strict (non-fuzzy) lookup compares, and the key it looks for."""
    return {
        SymbolMode.EXACT: ("name_lower", name.lower()),
        SymbolMode.QUALIFIED: ("symbol_norm", normalize_symbol(name)),
        SymbolMode.SUFFIX: ("symbol_last", last_segment(name)),
    }[mode]


def rank_symbol_matches(
    found: Iterable[Sequence[Any]],
    mode: SymbolMode,
    name: str,
    filters: SearchFilters | None,
    limit: int,
) -> list[tuple[Any, ...]]:
    """Candidate rows ``(seq, name, symbol, layer, path, language, is_test, start_line, id)``
    that match ``name`` under ``mode`` and pass ``filters``, best first, at most ``limit``: as
    ``(-score, is_test, path, start_line, id, seq)`` (best score, non-test, path, line)."""
    ranked = []
    for seq, row_name, symbol, layer, path, language, is_test, start, rid in found:
        if filters is not None and not filters.matches(layer, path, language, is_test):
            continue
        score = symbol_score(mode, name, row_name, symbol)
        if score > 0:
            ranked.append((-score, is_test, path, start, rid, seq))
    ranked.sort()
    return ranked[:limit]
