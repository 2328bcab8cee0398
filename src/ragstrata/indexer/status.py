"""``ragstrata status``: rows per layer, stale files, pending embeddings, what built the index."""

from __future__ import annotations

from pathlib import Path

from ragstrata.core.events import IndexStatus
from ragstrata.embed.base import Embedder
from ragstrata.errors import IndexMissingError
from ragstrata.indexer.plan import make_plan
from ragstrata.indexer.secrets_ledger import total_redacted
from ragstrata.ingest.extractor import extractor_fingerprint
from ragstrata.settings import Settings
from ragstrata.store.protocols import Store

__all__ = ["index_status"]


def index_status(repo: Path, store: Store, embedder: Embedder, settings: Settings) -> IndexStatus:
    """The index's state against the disk; reads only what changed by mtime/size.

    Pending embeddings are counted for the index's own fingerprint (the manifest's), falling
    back to the configured embedder's. Raises ``IndexMissingError`` when there is no index.
    """
    if not store.has_index():
        raise IndexMissingError(f"no index for {repo}; run `ragstrata index {repo}` first")
    manifest = store.read_manifest()
    if manifest is None and not store.catalog():  # emptied between the two reads
        raise IndexMissingError(f"no index for {repo}; run `ragstrata index {repo}` first")
    fingerprint = manifest.embedder_fingerprint if manifest else embedder.fingerprint
    stats = store.stats(fingerprint)
    plan = make_plan(Path(repo), settings, store.catalog())
    return IndexStatus(
        rows=stats.rows,
        stale=plan.stale,
        pending_embeddings=stats.pending_vectors,
        fingerprint=stats.fingerprint,
        updated_at=stats.updated_at,
        schema_version=manifest.schema_version if manifest else stats.schema_version,
        files=stats.files,
        secrets_redacted=total_redacted(Path(repo) / settings.store.index_dir_name),
        extraction_current=manifest is None or manifest.extractor == extractor_fingerprint(),
    )
