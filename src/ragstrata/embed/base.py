"""The embedder contract (seed 003).

Document and query sides are separate because instruction-tuned encoders want asymmetric
prefixes (``passage: {text}`` / ``query: {text}``). The fingerprint identifies vectors that are
comparable: provider + model + dimensions + a hash of the document template. The query template
is deliberately not part of it: changing it never invalidates stored vectors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Embedder", "ProgressCallback", "apply_template", "fingerprint", "template_digest"]

ProgressCallback = Callable[[int, int], None]
"""Called after each batch with (texts done, texts total)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into dense vectors of a fixed dimension."""

    @property
    def dimensions(self) -> int: ...

    @property
    def fingerprint(self) -> str: ...

    @property
    def batch_size(self) -> int: ...

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]: ...

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...


def apply_template(template: str, texts: Sequence[str]) -> list[str]:
    """Substitute each text for ``{text}``; an empty template leaves texts unchanged."""
    if not template:
        return list(texts)
    return [template.replace("{text}", t) for t in texts]


def template_digest(template: str) -> str:
    """Six hex digits of a template's sha256: how fingerprints name a template."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:6]


def fingerprint(provider: str, model: str, dimensions: int = 0, document_template: str = "") -> str:
    """``provider/model[/dims][/d:<sha256(template)[:6]>]``: each optional part only when set."""
    parts = [provider, model]
    if dimensions > 0:
        parts.append(str(dimensions))
    if document_template:
        parts.append("d:" + template_digest(document_template))
    return "/".join(parts)
