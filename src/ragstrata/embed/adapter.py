"""A linear map over the packaged MiniLM's query vectors, fitted to where code answers a question.

all-MiniLM-L6-v2 was trained mostly on natural-language pairs; a short English description
("Return the number of seconds until the request times out.") and the code that does it land
further apart than two paraphrases do. The map ``W`` (384 x 384, float16, ~290 KB, shipped as
``data/embed/all-MiniLM-L6-v2/query-adapter.npy``) turns a query vector ``q`` into
``normalize(q @ W)``; stored document vectors are untouched, so an index never needs
rebuilding when it is switched on or off (``[embedder] query_adapter = false``).

It was fitted by ``bench/fit_query_adapter.py`` on first docstring sentences paired with
their definitions (docstrings stripped) from 72 PyPI packages, none of them in any evaluation
set; the fit and its measurements are described there.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np

__all__ = ["QUERY_ADAPTER", "adapt_queries", "query_adapter"]

QUERY_ADAPTER = ("data", "embed", "all-MiniLM-L6-v2", "query-adapter.npy")
"""Resource path (under ``ragstrata``) of the MiniLM query map."""


@cache
def query_adapter(parts: tuple[str, ...] = QUERY_ADAPTER) -> np.ndarray:
    """The packaged map as float32, loaded once."""
    with resources.files("ragstrata").joinpath(*parts).open("rb") as fh:
        matrix = np.load(fh, allow_pickle=False)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"query adapter must be a square matrix, got shape {matrix.shape}")
    return np.asarray(matrix, dtype=np.float32)


def adapt_queries(vectors: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``normalize(vectors @ matrix)`` row by row; a zero row stays zero."""
    mapped = vectors @ matrix
    norms = np.linalg.norm(mapped, axis=1, keepdims=True)
    return np.divide(mapped, norms, out=np.zeros_like(mapped), where=norms > 0)
