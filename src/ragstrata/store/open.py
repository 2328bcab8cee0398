"""Open the configured store for a repository."""

from __future__ import annotations

from pathlib import Path

from ragstrata.errors import ConfigError
from ragstrata.settings import Settings
from ragstrata.store.base import Store

__all__ = ["open_store"]


def open_store(repo: Path, settings: Settings, *, create: bool = True) -> Store:
    """The embedded SQLite store under ``REPO/<index_dir_name>/`` unless ``store.url`` is set."""
    url = settings.store.url
    if url:
        scheme = url.split(":", 1)[0].lower()
        raise ConfigError(
            f"store url scheme {scheme!r} is not available in this version; "
            "leave store.url empty for the embedded SQLite index"
        )
    from ragstrata.store.sqlite import SQLiteStore

    return SQLiteStore.for_repo(repo, settings.store.index_dir_name, create=create)
