"""The MiniLM query map: it keeps query vectors unit-length, leaves documents alone, and moves
questions toward the code that answers them on code it was not fitted on (the stdlib)."""

from __future__ import annotations

import numpy as np
import pytest

from ragstrata.embed.adapter import adapt_queries, query_adapter
from ragstrata.embed.local import OnnxMiniLMEmbedder
from stdlib_pairs import stdlib_pairs


def _mrr(queries: np.ndarray, docs: np.ndarray) -> float:
    scores = queries @ docs.T
    own = np.diag(scores)
    return float((1.0 / ((scores > own[:, None]).sum(axis=1) + 1)).mean())


def test_map_is_a_square_float32_matrix_near_the_identity() -> None:
    matrix = query_adapter()
    assert matrix.shape == (384, 384) and matrix.dtype == np.float32
    moved = np.linalg.norm(matrix - np.eye(384))
    assert 0.5 < moved < 0.5 * np.linalg.norm(np.eye(384)), moved


def test_adapted_vectors_are_unit_length_and_zero_stays_zero() -> None:
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(5, 384)).astype(np.float32)
    vectors[2] = 0.0
    out = adapt_queries(vectors, query_adapter())
    norms = np.linalg.norm(out, axis=1)
    np.testing.assert_allclose(norms[[0, 1, 3, 4]], 1.0, atol=1e-5)
    assert norms[2] == 0.0


@pytest.mark.slow
def test_map_finds_held_out_definitions_better_and_leaves_documents_alone() -> None:
    pairs = stdlib_pairs()
    assert len(pairs) >= 150, len(pairs)
    mapped = OnnxMiniLMEmbedder(query_adapter=True)
    plain = OnnxMiniLMEmbedder(query_adapter=False)
    docs = np.asarray(plain.embed_documents([d for _, d in pairs]))
    # the document side is untouched (checked on a sample: a text's vector does not depend on
    # the other texts of its batch)
    sample = [d for _, d in pairs[:24]]
    np.testing.assert_array_equal(docs[:24], np.asarray(mapped.embed_documents(sample)))
    before = _mrr(np.asarray(plain.embed_queries([q for q, _ in pairs])), docs)
    after = _mrr(np.asarray(mapped.embed_queries([q for q, _ in pairs])), docs)
    assert after > before + 0.01, (before, after)  # measured: 0.534 -> 0.565


def test_switch_off_in_settings_reaches_the_embedder() -> None:
    from ragstrata.embed.factory import make_embedder
    from ragstrata.settings import EmbedderSettings

    on = make_embedder(EmbedderSettings())
    off = make_embedder(EmbedderSettings(query_adapter=False))
    assert isinstance(on, OnnxMiniLMEmbedder) and isinstance(off, OnnxMiniLMEmbedder)
    assert on._adapter is not None and off._adapter is None
    assert on.fingerprint == off.fingerprint  # stored vectors stay valid either way


def test_query_cache_keeps_mapped_and_plain_vectors_apart() -> None:
    from ragstrata.retrieve.dense import QueryVectorCache

    cache = QueryVectorCache()
    mapped = OnnxMiniLMEmbedder(query_adapter=True)
    plain = OnnxMiniLMEmbedder(query_adapter=False)
    templated = OnnxMiniLMEmbedder(query_adapter=False, query_template="search: {text}")
    assert len({mapped.fingerprint, plain.fingerprint, templated.fingerprint}) == 1
    question = ["где определён класс UserService?"]
    got = [np.asarray(cache.vectors(e, question)[0]) for e in (mapped, plain, templated)]
    want = [np.asarray(e.embed_queries(question)[0]) for e in (mapped, plain, templated)]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, atol=1e-6)
    assert float(got[0] @ got[1]) < 0.99 and float(got[1] @ got[2]) < 0.99
