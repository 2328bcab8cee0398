"""The embedded default store: one SQLite file per repository (see :mod:`.store`)."""

from ragstrata.store.sqlite.schema import MIGRATIONS, ROW_SCHEMA_VERSION, SCHEMA_VERSION
from ragstrata.store.sqlite.store import SQLiteStore

__all__ = ["MIGRATIONS", "ROW_SCHEMA_VERSION", "SCHEMA_VERSION", "SQLiteStore"]
