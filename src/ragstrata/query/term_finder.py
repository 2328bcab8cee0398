"""Finding programming terms in a question: the glossary expander, or a built-in minimum.

``term_finder`` adapts ``ragstrata.query.terms``' expander to the router's ``TermFinder``
protocol; without it, the mandatory key terms of seed §4.2 from the router data are used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ragstrata.query.intents import RouterData
from ragstrata.query.lexicon import WordSet, fold
from ragstrata.query.terms import TermHit
from ragstrata.settings import RouterSettings

__all__ = ["TermFinder", "term_finder"]


class TermFinder(Protocol):
    """Finds RU (and EN) programming terms with their English expansions."""

    def find(self, text: str) -> list[TermHit]: ...


class _ExpanderAdapter:
    """Calls ``TermExpander.find(text, english=True)`` so English questions get key terms."""

    def __init__(self, expander: Any) -> None:
        self._expander = expander

    def find(self, text: str) -> list[TermHit]:
        try:
            return list(self._expander.find(text, english=True))
        except TypeError:
            return list(self._expander.find(text))


class _MiniTerms:
    """The mandatory key terms of seed §4.2 (used only without ``ragstrata.query.terms``)."""

    def __init__(self, table: Mapping[str, Any]) -> None:
        self._sets: list[tuple[WordSet, str, tuple[str, ...], str]] = []
        for category, words in table.items():
            for lemma, expansions in words.items():
                self._sets.append((WordSet([lemma]), lemma, tuple(expansions), category))

    def find(self, text: str) -> list[TermHit]:
        from ragstrata.text.tokens import tokenize

        hits = []
        for tok in tokenize(text):
            f = fold(tok.text)
            for words, lemma, expansions, category in self._sets:
                if f in words:
                    hits.append(
                        TermHit(tok.start, tok.end, tok.text, lemma, expansions, True, category)
                    )
                    break
        return hits


def term_finder(settings: RouterSettings, data: RouterData) -> TermFinder:
    """The glossary expander of ``ragstrata.query.terms`` (the settings' glossary files if
    any), else the built-in mandatory key terms.
    """
    try:
        from ragstrata.query import terms
    except ImportError:  # pragma: no cover
        return _MiniTerms(data.key_terms)
    expander_cls = getattr(terms, "TermExpander", None)
    if settings.glossary_files and expander_cls is not None:
        return _ExpanderAdapter(expander_cls.from_files(settings.glossary_files))
    default = getattr(terms, "default_expander", None)
    if default is None:
        return _MiniTerms(data.key_terms)
    return _ExpanderAdapter(default())
