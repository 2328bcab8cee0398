"""PostgreSQL + pgvector store: many repositories in one database (see :mod:`.store`)."""

from ragstrata.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
