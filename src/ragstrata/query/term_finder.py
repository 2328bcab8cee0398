"""Finding programming terms in a question: the RU->EN glossary expander behind the router's
``TermFinder`` protocol.

``term_finder`` adapts ``ragstrata.query.terms.TermExpander`` (the packaged glossary, or the
settings' glossary files) so that English questions get key terms too, and the code words of
their plain-English phrases (``ragstrata.query.en_phrases``).
"""

from __future__ import annotations

from typing import Protocol

from ragstrata.query.en_phrases import paraphrase_hits
from ragstrata.query.terms import TermExpander, TermHit, default_expander
from ragstrata.settings import RouterSettings

__all__ = ["TermFinder", "term_finder"]


class TermFinder(Protocol):
    """Finds RU (and EN) programming terms with their English expansions."""

    def find(self, text: str) -> list[TermHit]: ...


class _ExpanderAdapter:
    """Calls ``TermExpander.find(text, english=True)`` so English questions get key terms;
    adds the paraphrases of an English question."""

    def __init__(self, expander: TermExpander) -> None:
        self._expander = expander

    def find(self, text: str) -> list[TermHit]:
        hits = self._expander.find(text, english=True)
        return sorted([*hits, *paraphrase_hits(text)], key=lambda h: h.start)


def term_finder(settings: RouterSettings) -> TermFinder:
    """The expander of the settings' glossary files if any, else of the packaged glossary."""
    if settings.glossary_files:
        return _ExpanderAdapter(TermExpander.from_files(settings.glossary_files))
    return _ExpanderAdapter(default_expander())
