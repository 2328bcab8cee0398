"""Indexing: turn a repository into a searchable index and keep it fresh cheaply.

``Indexer(repo, store, embedder, settings).run()`` diffs the disk against the store's file
catalog (mtime/size pre-check, SHA-256 to confirm), re-extracts only new and changed files,
re-resolves relations repository-wide when code changed, writes in batched transactions
ordered so a killed run resumes to exactly the clean-run index, then fills vectors lazily.
``index_status`` reports rows, stale files and pending embeddings.

The names load on first use (PEP 562), so importing one submodule (``indexer.events``,
``indexer.watch``) does not pull the whole indexer into a command that only needs a constant.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstrata.core.events import Estimate, IndexEvent, IndexReport, IndexStatus
    from ragstrata.indexer.manifest import check_manifest, expected_manifest
    from ragstrata.indexer.run import Indexer
    from ragstrata.indexer.status import index_status

__all__ = [
    "Estimate",
    "IndexEvent",
    "IndexReport",
    "IndexStatus",
    "Indexer",
    "check_manifest",
    "expected_manifest",
    "index_status",
]

_WHERE = {
    "Estimate": "ragstrata.core.events",
    "IndexEvent": "ragstrata.core.events",
    "IndexReport": "ragstrata.core.events",
    "IndexStatus": "ragstrata.core.events",
    "check_manifest": "ragstrata.indexer.manifest",
    "expected_manifest": "ragstrata.indexer.manifest",
    "Indexer": "ragstrata.indexer.run",
    "index_status": "ragstrata.indexer.status",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where), name)
    globals()[name] = value
    return value
