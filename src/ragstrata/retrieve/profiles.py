"""Rerank profiles: weights per list and per layer for weighted RRF, kept as data.

The table lives in ``ragstrata/data/retrieve/profiles.toml`` (one section per profile named in
``RouterPlan.retrieval_spec.rerank_profile``); it is read once.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from ragstrata.errors import ConfigError

__all__ = [
    "LIST_KINDS",
    "PROFILE_NAMES",
    "Profile",
    "direction_weight",
    "get_profile",
    "load_profiles",
]

LIST_KINDS = ("lexical", "ident", "raw", "dense", "symbol", "flow", "path")
"""Every kind of ranked list the retriever fuses."""
PROFILE_NAMES = ("code", "docs", "generate", "project")
_LAYERS = ("C0", "C1", "C2", "C3", "D0", "D1", "D2")


@dataclass(frozen=True, slots=True)
class Profile:
    """Fusion weights of one rerank profile."""

    name: str
    rrf_k: float
    sub_query_weight: float
    flow_boost: float
    fuzzy_weight: float
    raw_dense_weight: float
    lists: MappingProxyType[str, float] = field(hash=False)
    layers: MappingProxyType[str, float] = field(hash=False)

    def weight(self, kind: str, layer: str) -> float:
        """The RRF weight of a list of ``kind`` over ``layer``."""
        return self.lists.get(kind, 0.0) * self.layers.get(layer, 0.0)


def _parse(name: str, data: dict[str, Any]) -> Profile:
    lists = dict(data.get("lists", {}))
    layers = dict(data.get("layers", {}))
    bad = sorted(set(lists) - set(LIST_KINDS)) + sorted(set(layers) - set(_LAYERS))
    if bad:
        raise ConfigError(
            f"profile {name!r}: unknown list/layer {bad}; valid: {[*LIST_KINDS, *_LAYERS]}"
        )
    for key, value in (*lists.items(), *layers.items()):
        if not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"profile {name!r}: weight {key} must be >= 0, got {value!r}")
    rrf_k = float(data.get("rrf_k", 60))
    if rrf_k <= 0:
        raise ConfigError(f"profile {name!r}: rrf_k must be > 0, got {rrf_k}")
    for key in ("sub_query_weight", "flow_boost", "fuzzy_weight", "raw_dense_weight"):
        value = data.get(key, 0.0)
        if not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"profile {name!r}: {key} must be a number >= 0, got {value!r}")
    return Profile(
        name=name,
        rrf_k=rrf_k,
        sub_query_weight=float(data.get("sub_query_weight", 0.5)),
        flow_boost=float(data.get("flow_boost", 1.0)),
        fuzzy_weight=float(data.get("fuzzy_weight", 0.2)),
        raw_dense_weight=float(data.get("raw_dense_weight", 0.5)),
        lists=MappingProxyType({k: float(v) for k, v in lists.items()}),
        layers=MappingProxyType({k: float(v) for k, v in layers.items()}),
    )


_DIRECTION_SECTION = "flow_direction"
_ENCODER_SECTION = "encoder"
_NOT_PROFILES = (_DIRECTION_SECTION, _ENCODER_SECTION)


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "retrieve", "profiles.toml")
    return tomllib.loads(ref.read_text("utf-8"))


@lru_cache(maxsize=1)
def direction_weight() -> float:
    """How much a flow question's side (callers or callees, from the question facets) is
    preferred: ``[flow_direction] direction_weight`` of the packaged table."""
    data = _table().get(_DIRECTION_SECTION, {})
    weight = data.get("direction_weight", 1.0)
    if not isinstance(weight, int | float) or weight < 1:
        raise ConfigError(f"flow_direction.direction_weight must be >= 1, got {weight!r}")
    return float(weight)


@lru_cache(maxsize=1)
def load_profiles() -> dict[str, Profile]:
    """Every profile of the packaged table, by name."""
    data = _table()
    profiles = {
        name: _parse(name, section) for name, section in data.items() if name not in _NOT_PROFILES
    }
    missing = [n for n in PROFILE_NAMES if n not in profiles]
    if missing:
        raise ConfigError(f"profiles.toml lacks profile(s) {missing}")
    return profiles


@lru_cache(maxsize=8)
def get_profile(name: str, encoder: str = "") -> Profile:
    """The profile ``name``, adjusted for the local model ``encoder`` when the table has an
    ``[encoder."<model>"]`` section (``dense_scale`` multiplies the dense list's weight,
    ``raw_dense_weight`` replaces the profile's); raises ``ConfigError`` naming the valid set."""
    profiles = load_profiles()
    if name not in profiles:
        raise ConfigError(f"unknown rerank profile {name!r}; valid: {', '.join(sorted(profiles))}")
    profile = profiles[name]
    adjust = _table().get(_ENCODER_SECTION, {}).get(encoder) if encoder else None
    if not adjust:
        return profile
    scale = adjust.get("dense_scale", 1.0)
    raw = adjust.get("raw_dense_weight", profile.raw_dense_weight)
    for key, value in (("dense_scale", scale), ("raw_dense_weight", raw)):
        if not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"encoder {encoder!r}: {key} must be a number >= 0, got {value!r}")
    lists = {**profile.lists, "dense": profile.lists.get("dense", 0.0) * float(scale)}
    return replace(profile, raw_dense_weight=float(raw), lists=MappingProxyType(lists))
