"""Store stage: rows, vectors and their searches (SQLite embedded default)."""

from ragstrata.store.base import (
    CatalogEntry,
    Direction,
    Manifest,
    ScoredRow,
    SearchFilters,
    Store,
    StoreStats,
    SymbolMode,
)

__all__ = [
    "CatalogEntry",
    "Direction",
    "Manifest",
    "ScoredRow",
    "SearchFilters",
    "Store",
    "StoreStats",
    "SymbolMode",
]
