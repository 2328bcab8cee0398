"""Paraphraser chains declared by name (settings ``router.paraphrasers``), validated on load.

A name is a built-in (``keywords``, ``identifiers``, ``ru_en_terms``, ``decompose``) or
``module:Class`` for a user component: the class is imported, instantiated without arguments
and must have a ``paraphrase(query)`` method. Every problem raises ``ConfigError`` naming the
bad entry (and, for unknown names, the valid ones) when the chain is built, not when it runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from ragstrata.errors import ConfigError
from ragstrata.query.decompose import QueryDecomposer
from ragstrata.query.paraphrase.base import ParaphraserChain, QueryParaphraser
from ragstrata.query.paraphrase.keywords import IdentifierSplitter, KeywordExtractor
from ragstrata.query.paraphrase.ru_en import RuEnTermExpander
from ragstrata.query.paraphrase.subqueries import DecomposerParaphraser

__all__ = ["BUILTIN_PARAPHRASERS", "build_chain", "load_paraphraser"]

BUILTIN_PARAPHRASERS: Mapping[str, Callable[[], QueryParaphraser]] = MappingProxyType(
    {
        "keywords": KeywordExtractor,
        "identifiers": IdentifierSplitter,
        "ru_en_terms": RuEnTermExpander,
        "decompose": DecomposerParaphraser,
    }
)
"""Built-in paraphrasers by configuration name (each constructed with its defaults)."""


def _valid_names() -> str:
    return ", ".join(sorted(BUILTIN_PARAPHRASERS)) + ", or module:Class"


def _import_component(spec: str) -> QueryParaphraser:
    module_name, _, attr_path = spec.partition(":")
    if not module_name or not attr_path:
        raise ConfigError(f"paraphraser {spec!r}: expected module:Class")
    try:
        obj: object = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or anything the module raises while importing
        raise ConfigError(
            f"paraphraser {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc})"
        ) from exc
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"paraphraser {spec!r}: {module_name!r} has no {attr_path!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigError(f"paraphraser {spec!r}: {attr_path!r} is not a class")
    try:
        instance = obj()
    except Exception as exc:
        raise ConfigError(
            f"paraphraser {spec!r}: cannot construct {attr_path} ({type(exc).__name__}: {exc})"
        ) from exc
    if not isinstance(instance, QueryParaphraser) or not callable(
        getattr(instance, "paraphrase", None)
    ):
        raise ConfigError(
            f"paraphraser {spec!r}: {attr_path} is not a QueryParaphraser "
            "(needs a paraphrase(query) -> Query method)"
        )
    return instance


def load_paraphraser(name: str, *, decomposer: QueryDecomposer | None = None) -> QueryParaphraser:
    """One paraphraser by configuration name; ``decomposer`` is used by ``decompose``."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"paraphraser name {name!r} is empty; valid: {_valid_names()}")
    name = name.strip()
    if ":" in name:
        return _import_component(name)
    if name == "decompose":
        return DecomposerParaphraser(decomposer)
    factory = BUILTIN_PARAPHRASERS.get(name)
    if factory is None:
        raise ConfigError(f"unknown paraphraser {name!r}; valid: {_valid_names()}")
    return factory()


def build_chain(
    names: Sequence[str], *, decomposer: QueryDecomposer | None = None
) -> ParaphraserChain:
    """The chain for ``names`` in order; raises ``ConfigError`` on the first bad entry."""
    if isinstance(names, str):
        raise ConfigError(f"paraphrasers must be a list of names, got the string {names!r}")
    items = [load_paraphraser(n, decomposer=decomposer) for n in names]
    return ParaphraserChain(items, [n.strip() for n in names])
