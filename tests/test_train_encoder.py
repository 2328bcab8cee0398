"""The parts of the encoder training script that decide what a resumed run does and what the
export writes; they need neither torch nor the weights."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.train_encoder import BATCH, _quantise, epoch_batches, learning_rate


def _pairs() -> tuple[dict[str, list[tuple[str, str]]], dict[str, list[int]]]:
    rng = np.random.default_rng(3)
    pairs = {name: [(f"q{name}{i}", f"d{name}{i}") for i in range(n)] for name, n in
             (("a", 100), ("b", 37), ("c", 5))}  # fmt: skip
    lengths = {name: [int(x) for x in rng.integers(5, 128, len(ps))] for name, ps in pairs.items()}
    return pairs, lengths


def test_an_epoch_is_the_same_list_again_for_its_seed_and_covers_each_pair_once() -> None:
    pairs, lengths = _pairs()
    first = epoch_batches(pairs, lengths, seed=0, epoch=0)
    assert first == epoch_batches(pairs, lengths, seed=0, epoch=0)  # --resume relies on it
    assert first != epoch_batches(pairs, lengths, seed=1, epoch=0)
    assert first != epoch_batches(pairs, lengths, seed=0, epoch=1)
    seen = sorted((name, i) for name, chunk in first for i in chunk)
    assert seen == sorted((name, i) for name in pairs for i in range(len(pairs[name])))
    assert all(len(chunk) <= BATCH for _, chunk in first)


def test_a_batch_holds_definitions_of_similar_length() -> None:
    pairs, lengths = _pairs()
    spans = [
        max(lengths[name][i] for i in chunk) - min(lengths[name][i] for i in chunk)
        for name, chunk in epoch_batches(pairs, lengths, seed=0, epoch=0)
        if name == "a" and len(chunk) == BATCH
    ]
    assert spans and max(spans) < 70  # a random 32 of 100 would span ~110 tokens


def test_learning_rate_warms_up_then_decays_to_a_tenth() -> None:
    assert learning_rate(0, 1000, 4e-5) == 4e-5 / 100
    assert learning_rate(99, 1000, 4e-5) == 4e-5
    assert learning_rate(550, 1000, 4e-5) < 4e-5
    assert abs(learning_rate(1000, 1000, 4e-5) - 4e-6) < 1e-12
    assert abs(learning_rate(5000, 1000, 4e-5) - 4e-6) < 1e-12


def test_quantisation_is_symmetric_with_one_scale_per_column() -> None:
    weight = np.random.default_rng(0).normal(size=(16, 8)).astype(np.float32)
    weight[:, 3] = 0.0
    q, scale = _quantise(weight, 0)
    assert q.dtype == np.int8 and scale.shape == (1, 8)
    assert np.abs(q).max(axis=0)[[0, 1, 2, 4]].tolist() == [127] * 4
    assert not q[:, 3].any()
    np.testing.assert_allclose(q * scale, weight, atol=float(scale.max()) / 2 + 1e-7)
