"""RU->EN programming terms: glossary look-up after lemmatisation, transliteration fallback.

INTERFACE (being implemented): ``TermExpander.find(text) -> list[TermHit]``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TermHit"]


@dataclass(frozen=True, slots=True)
class TermHit:
    """A Russian (or English) term found in a text, with its English expansions."""

    start: int  # code-point span in the text passed to find(), end exclusive
    end: int
    surface: str  # text[start:end]
    lemma: str  # the normal form looked up
    expansions: tuple[str, ...]  # English terms, most specific first
    key_term: bool  # steers layers/evidence: becomes a KEY_TERM anchor
    category: str | None = None  # steering category, e.g. "code_unit", "test", "docs", "flow"
    source: str = "glossary"  # glossary | translit | dictionary
