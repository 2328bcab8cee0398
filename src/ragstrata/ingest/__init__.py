"""Ingestion: a repository on disk -> the rows of layers C0-C3 and D0-D2 (pure, no storage)."""

from ragstrata.core import rows as _rows
from ragstrata.core.rows import *  # noqa: F403  (the row types are this package's API)

__all__ = list(_rows.__all__)
