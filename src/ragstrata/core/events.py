"""Values the indexer hands out: progress events, the run report, the index status.

Progress is data (CONVENTIONS 8): the indexer calls ``progress(IndexEvent)``; the CLI draws the
events with rich, tests collect them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ragstrata.core.rows import Layer

__all__ = ["WAITING_FOR_RUN", "Estimate", "IndexEvent", "IndexReport", "IndexStatus", "Phase"]

Phase = Literal["scan", "extract", "resolve", "write", "remove", "embed", "done"]
WAITING_FOR_RUN = "waiting for another indexing run of this repository to finish"
"""The message of the ``scan`` event a run emits while another one holds the repository."""


@dataclass(frozen=True, slots=True)
class IndexEvent:
    """One step of an index run.

    ``phase`` says what is going on; ``done``/``total`` count its units (files for ``scan``,
    ``extract`` and ``write``; texts for ``embed``); ``rows`` is how many rows the step produced
    (``extract``/``write``); ``path`` names the file for ``extract``. ``work`` is the share of
    the phase's estimated effort done, 0..1, when units differ in cost (``embed``: long texts
    take longer; 0 when not estimated).
    """

    phase: Phase
    done: int = 0
    total: int = 0
    path: str | None = None
    rows: int = 0
    message: str = ""
    work: float = 0.0


def _layer_counts(rows: Mapping[str, int]) -> dict[str, int]:
    return {layer.value: int(rows.get(layer.value, 0)) for layer in Layer}


@dataclass(frozen=True, slots=True, kw_only=True)
class Estimate:
    """What a ``--dry-run`` expects the run to do (rows extrapolated from a sample by bytes;
    time = measured extraction rate + measured per-text embedding cost)."""

    files: int
    rows: Mapping[str, int]
    embedding_texts: int
    embedding_calls: int
    seconds: float
    sampled_files: int
    seconds_per_text: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "files": self.files,
            "rows": _layer_counts(self.rows),
            "embedding_texts": self.embedding_texts,
            "embedding_calls": self.embedding_calls,
            "seconds": round(self.seconds, 1),
            "sampled_files": self.sampled_files,
            "seconds_per_text": self.seconds_per_text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexReport:
    """The outcome of one ``Indexer.run``.

    ``rows``: rows in the index after the run, per layer. ``embeddings_done``: texts embedded by
    this run; ``embeddings_pending``: distinct texts still without a vector of the current
    embedder (left for a later run with embedding on). A dry run writes nothing: ``rows`` are
    the index as it is, ``estimate`` what the run would add, and the path lists say which files.
    """

    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict)
    rows: Mapping[str, int] = field(default_factory=dict)
    embeddings_done: int = 0
    embeddings_pending: int = 0
    seconds: float = 0.0
    relations_rewritten: int = 0  # unchanged files whose C2 targets moved
    warnings: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()  # what the user should be told once (the model changed, ...)
    dry_run: bool = False
    estimate: Estimate | None = None
    paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # dry run only
    secrets_redacted: Mapping[str, int] = field(default_factory=dict)  # by kind, this run

    def to_dict(self) -> dict[str, Any]:
        """``{"files": {...}, "rows": {...}, "embeddings": {...}, "seconds"}``; a dry run adds
        ``"dry_run": true`` and ``"estimate"``."""
        out: dict[str, Any] = {
            "files": {
                "added": self.added,
                "changed": self.changed,
                "removed": self.removed,
                "unchanged": self.unchanged,
                "skipped": dict(sorted(self.skipped.items())),
            },
            "rows": _layer_counts(self.rows),
            "embeddings": {"done": self.embeddings_done, "pending": self.embeddings_pending},
            "seconds": round(self.seconds, 3),
            "secrets": _secrets(self.secrets_redacted),
        }
        if self.notices:  # only when there is something to tell (the model changed, ...)
            out["notices"] = list(self.notices)
        if self.dry_run:
            out["dry_run"] = True
            out["estimate"] = self.estimate.to_dict() if self.estimate else None
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexStatus:
    """What ``ragstrata status`` shows. ``stale``: files new, removed, or whose mtime or size
    differ from the catalog (the cheap check; content is not hashed for catalogued files)."""

    rows: Mapping[str, int]
    stale: int
    pending_embeddings: int
    fingerprint: str | None
    updated_at: str | None
    schema_version: int
    files: int = 0
    secrets_redacted: Mapping[str, int] = field(default_factory=dict)  # by kind, whole index
    extraction_current: bool = True  # False: built by other extraction rules; index again

    def to_dict(self) -> dict[str, Any]:
        """``{"rows", "stale", "pending_embeddings", "fingerprint", "updated_at",
        "schema_version", "extraction_current", "secrets"}``."""
        return {
            "rows": _layer_counts(self.rows),
            "stale": self.stale,
            "pending_embeddings": self.pending_embeddings,
            "fingerprint": self.fingerprint,
            "updated_at": self.updated_at,
            "schema_version": self.schema_version,
            "extraction_current": self.extraction_current,
            "secrets": _secrets(self.secrets_redacted),
        }


def _secrets(by_kind: Mapping[str, int]) -> dict[str, Any]:
    """``{"redacted": total, "by_kind": {...}}``: counts only, never a secret."""
    return {"redacted": sum(by_kind.values()), "by_kind": dict(sorted(by_kind.items()))}
