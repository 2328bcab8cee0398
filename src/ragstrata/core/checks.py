"""Argument checks every backend applies the same way; errors name the valid set."""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.core.rows import Layer
from ragstrata.core.values import Direction, SummaryKind, SymbolMode

__all__ = [
    "check_summary_items",
    "check_top_k",
    "parse_direction",
    "parse_layers",
    "parse_mode",
    "parse_summary_kind",
]


def parse_summary_kind(kind: SummaryKind | str) -> SummaryKind:
    """Validate a summary kind, naming the valid set on error."""
    try:
        return SummaryKind(kind)
    except ValueError:
        raise ValueError(
            f"unknown summary kind {kind!r}; valid: {[k.value for k in SummaryKind]}"
        ) from None


def check_summary_items(items: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``(key, prompt_hash, text)`` triples with a non-empty key and hash; last one of a key wins."""
    out: dict[str, tuple[str, str, str]] = {}
    for item in items:
        key, prompt_hash, text = item
        if not isinstance(key, str) or not key:
            raise ValueError(f"summary key must be a non-empty string, got {key!r}")
        if not isinstance(prompt_hash, str) or not prompt_hash:
            raise ValueError(f"summary of {key!r} needs a prompt hash, got {prompt_hash!r}")
        if not isinstance(text, str):
            raise ValueError(f"summary of {key!r} must be a string, got {type(text).__name__}")
        out[key] = (key, prompt_hash, text)
    return list(out.values())


def parse_mode(mode: SymbolMode | str) -> SymbolMode:
    """Validate a symbol mode, naming the valid set on error."""
    try:
        return SymbolMode(mode)
    except ValueError:
        raise ValueError(
            f"unknown symbol mode {mode!r}; valid: {[m.value for m in SymbolMode]}"
        ) from None


def parse_direction(direction: Direction | str) -> Direction:
    """Validate a relation direction, naming the valid set on error."""
    try:
        return Direction(direction)
    except ValueError:
        raise ValueError(
            f"unknown direction {direction!r}; valid: {[d.value for d in Direction]}"
        ) from None


def parse_layers(layers: Sequence[Layer | str] | None) -> tuple[Layer, ...] | None:
    """Validate layer ids (None stays None: every layer), naming the valid set on error."""
    if layers is None:
        return None
    if isinstance(layers, str):
        raise ValueError(f"layers must be a sequence of layer ids, got the string {layers!r}")
    valid = {layer.value for layer in Layer}
    bad = [str(x) for x in layers if str(getattr(x, "value", x)) not in valid]
    if bad:
        raise ValueError(f"unknown layer(s) {bad}; valid: {sorted(valid)}")
    return tuple(sorted({Layer(str(getattr(x, "value", x))) for x in layers}))


def check_top_k(top_k: int) -> int:
    """``top_k``/``limit`` must be a positive int."""
    if not isinstance(top_k, int) or top_k <= 0:
        raise ValueError(f"top_k/limit must be a positive integer, got {top_k!r}")
    return top_k
