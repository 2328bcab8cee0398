"""Stored row payloads (``store/records.py``): every layer's rows come back equal, a damaged
payload is reported as a damaged index, never decoded into a wrong row."""

from __future__ import annotations

import pytest

from ragstrata.core.rows import Layer
from ragstrata.errors import IndexCorruptError
from ragstrata.store.records import row_from_payload, row_to_payload
from ragstrata.testing.store_samples import sample_batch


def test_rows_of_every_sampled_layer_round_trip() -> None:
    rows = [r for _, batch in sample_batch() for r in batch]
    assert {r.layer for r in rows} >= {Layer.C0, Layer.C1, Layer.C2, Layer.C3, Layer.D1}
    for row in rows:
        back = row_from_payload(row_to_payload(row))
        assert back == row and type(back) is type(row) and back.layer is row.layer


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p + "x",  # trailing data
        lambda p: p + ' {"layer": "C1"}',  # a second object after the row
        lambda p: p[: len(p) // 2],  # truncated
        lambda p: p.replace('"layer":"C2"', '"layer":"C9"'),  # unknown layer
        lambda p: p.replace('"layer":"C2"', '"layer":["C2"]'),  # a layer that is no name
        lambda p: p.replace('"relation":', '"relation_kind":'),  # unknown field
        lambda p: "[" + p + "]",  # not an object
    ],
)
def test_a_damaged_payload_is_a_damaged_index(damage: object) -> None:
    relation = next(r for _, b in sample_batch() for r in b if r.layer == Layer.C2)
    payload = row_to_payload(relation)
    assert '"layer":"C2"' in payload
    with pytest.raises(IndexCorruptError, match="damaged"):
        row_from_payload(damage(payload))  # type: ignore[operator]
