"""Embedders: the protocol, template and fingerprint helpers (models come with the indexer)."""

from ragstrata.embed.base import Embedder, ProgressCallback, apply_template, fingerprint

__all__ = ["Embedder", "ProgressCallback", "apply_template", "fingerprint"]
