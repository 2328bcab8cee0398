"""The RU->EN term paraphraser: English expansions of Russian programming terms as keywords.

Uses the router's glossary (``ragstrata.query.terms``), so a Russian question ("где
обрабатывается заголовок запроса") also searches English code ("header", "request").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol

from ragstrata.errors import ConfigError
from ragstrata.query.paraphrase.base import Query

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ragstrata.query.terms import TermHit

__all__ = ["RuEnTermExpander", "TermFinder"]


class TermFinder(Protocol):
    """Anything that finds terms with English expansions (``TermExpander`` does)."""

    def find(self, text: str) -> Sequence[TermHit]: ...


class RuEnTermExpander:
    """Adds up to ``max_per_term`` English expansions of each Russian term to ``keywords``.

    ``expander`` defaults to ``ragstrata.query.terms.default_expander()``, built on first use
    (it loads the glossary and the Russian morphology). ``include_translit=False`` keeps only
    glossary/dictionary expansions and drops transliteration guesses for loanwords.
    """

    name: ClassVar[str] = "ru_en_terms"

    def __init__(
        self,
        expander: TermFinder | None = None,
        *,
        max_per_term: int = 3,
        include_translit: bool = True,
    ) -> None:
        if max_per_term < 1:
            raise ConfigError(f"ru_en_terms: max_per_term must be >= 1, got {max_per_term}")
        self._expander = expander
        self.max_per_term = max_per_term
        self.include_translit = include_translit

    @property
    def expander(self) -> TermFinder:
        """The term finder (the packaged glossary's unless one was given)."""
        if self._expander is None:
            from ragstrata.query.terms import default_expander  # heavy: glossary + morphology

            self._expander = default_expander()
        return self._expander

    def expansions(self, text: str) -> list[str]:
        """The English expansions for ``text``, in order of the terms, without repeats."""
        seen: dict[str, None] = {}
        for hit in self.expander.find(text):
            if hit.source == "translit" and not self.include_translit:
                continue
            for term in hit.expansions[: self.max_per_term]:
                if term.strip():
                    seen.setdefault(term.strip(), None)
        return list(seen)

    def paraphrase(self, query: Query) -> Query:
        """Union the expansions of ``query.query_str`` into ``query.keywords``."""
        if query.query_str:
            query.keywords.update(self.expansions(query.query_str))
        return query
