"""Indexing: turn a repository into a searchable index and keep it fresh cheaply.

``Indexer(repo, store, embedder, settings).run()`` diffs the disk against the store's file
catalog (mtime/size pre-check, SHA-256 to confirm), re-extracts only new and changed files,
re-resolves relations repository-wide when code changed, writes in batched transactions
ordered so a killed run resumes to exactly the clean-run index, then fills vectors lazily.
``index_status`` reports rows, stale files and pending embeddings.
"""

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
