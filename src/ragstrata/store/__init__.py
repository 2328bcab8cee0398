"""Store stage: rows, vectors and their searches (SQLite embedded default)."""

from ragstrata.core.values import (
    CatalogEntry,
    Direction,
    Manifest,
    ScoredRow,
    SearchFilters,
    StoreStats,
    SymbolMode,
)
from ragstrata.store.protocols import Store

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
