"""The decomposer paraphraser: sub-questions of a decomposer become text bundles."""

from __future__ import annotations

import logging
from typing import ClassVar

from ragstrata.errors import ConfigError, DecomposerError
from ragstrata.query.decompose import QueryDecomposer, RuleQueryDecomposer
from ragstrata.query.paraphrase.base import Query

__all__ = ["DecomposerParaphraser"]

log = logging.getLogger(__name__)


class DecomposerParaphraser:
    """Appends the sub-questions of ``query_str`` to ``query.query_text_bundles``.

    Sub-questions equal to the original or already present are not added again. A decomposer
    that fails (``DecomposerError``) leaves the query unchanged: retrieval then runs the
    original question alone. ``decomposer`` defaults to ``RuleQueryDecomposer()``.
    """

    name: ClassVar[str] = "decompose"

    def __init__(self, decomposer: QueryDecomposer | None = None) -> None:
        if decomposer is None:
            decomposer = RuleQueryDecomposer()
        if not isinstance(decomposer, QueryDecomposer):
            raise ConfigError(
                f"decompose: {type(decomposer).__name__!r} has no decompose(query) method"
            )
        self.decomposer = decomposer

    def paraphrase(self, query: Query) -> Query:
        """Add sub-questions as text bundles; other fields stay as they are."""
        if not query.query_str:
            return query
        try:
            subs = self.decomposer.decompose(query.query_str)
        except DecomposerError as exc:
            log.warning("decompose paraphraser: %s; keeping the single query", exc)
            return query
        for sub in subs or ():
            if sub != query.query_str and sub not in query.query_text_bundles:
                query.query_text_bundles.append(sub)
        return query
