"""The fine-tuned code encoder (``bench/train_encoder.py``): when its int8 file is shipped, it
loads through the packaged model's path unchanged and finds held-out definitions from their
docstrings better than the packaged MiniLM with its query map; the quality bar itself rejects
the packaged model, so it pins the fine-tuning and not the code path."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from ragstrata.embed.local import OnnxMiniLMEmbedder
from stdlib_pairs import stdlib_pairs

FOLDER = ("data", "embed", "all-MiniLM-L6-v2-code")
MODEL = Path(str(resources.files("ragstrata").joinpath(*FOLDER, "model.onnx")))


BAR = 0.60
"""Dense MRR the shipped model must reach on the held-out stdlib modules of
:mod:`stdlib_pairs`, which no training package is (packaged MiniLM: 0.534 without,
0.565 with its query map)."""


class _FileEmbedder(OnnxMiniLMEmbedder):
    """The packaged embedder (tokenizer, pooling, integer kernels) running another file."""

    def __init__(self, path: Path, *, query_adapter: bool = False) -> None:
        super().__init__(query_adapter=query_adapter)
        self._file = path

    @property
    def model_path(self) -> Path:
        return self._file


def _dense_mrr(embedder: OnnxMiniLMEmbedder) -> float:
    pairs = stdlib_pairs()
    assert len(pairs) >= 150, len(pairs)
    docs = np.asarray(embedder.embed_documents([d for _, d in pairs]))
    queries = np.asarray(embedder.embed_queries([q for q, _ in pairs]))
    scores = queries @ docs.T
    own = np.diag(scores)
    return float((1.0 / ((scores > own[:, None]).sum(axis=1) + 1)).mean())


def _meets_the_bar(embedder: OnnxMiniLMEmbedder) -> None:
    mrr = _dense_mrr(embedder)
    assert mrr >= BAR, f"dense MRR {mrr:.3f} on held-out stdlib definitions, bar {BAR}"


@pytest.mark.slow
def test_the_bar_rejects_the_packaged_model_with_its_query_map() -> None:
    with pytest.raises(AssertionError, match="dense MRR"):
        _meets_the_bar(OnnxMiniLMEmbedder(query_adapter=True))


@pytest.mark.slow
@pytest.mark.skipif(
    not MODEL.is_file(),
    reason="no fine-tuned encoder shipped yet: bench/train_encoder.py export writes it",
)
def test_the_shipped_code_encoder_meets_the_bar() -> None:
    embedder = _FileEmbedder(MODEL)
    assert MODEL.stat().st_size <= 25 * 2**20
    probe = np.asarray(embedder.embed_documents(["def add(a, b):\n    return a + b"]))
    assert probe.shape == (1, 384)
    np.testing.assert_allclose(np.linalg.norm(probe, axis=1), 1.0, atol=1e-5)
    _meets_the_bar(embedder)
