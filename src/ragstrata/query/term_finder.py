"""Finding programming terms in a question: the RU->EN glossary expander behind the router's
``TermFinder`` protocol.

``term_finder`` adapts ``ragstrata.query.terms.TermExpander`` (the packaged glossary, or the
settings' glossary files) so that English questions get key terms too.
"""

from __future__ import annotations

from typing import Protocol

from ragstrata.query.terms import TermExpander, TermHit, default_expander
from ragstrata.settings import RouterSettings

__all__ = ["TermFinder", "term_finder"]


class TermFinder(Protocol):
    """Finds RU (and EN) programming terms with their English expansions."""

    def find(self, text: str) -> list[TermHit]: ...


class _ExpanderAdapter:
    """Calls ``TermExpander.find(text, english=True)`` so English questions get key terms."""

    def __init__(self, expander: TermExpander) -> None:
        self._expander = expander

    def find(self, text: str) -> list[TermHit]:
        return self._expander.find(text, english=True)


def term_finder(settings: RouterSettings) -> TermFinder:
    """The expander of the settings' glossary files if any, else of the packaged glossary."""
    if settings.glossary_files:
        return _ExpanderAdapter(TermExpander.from_files(settings.glossary_files))
    return _ExpanderAdapter(default_expander())
