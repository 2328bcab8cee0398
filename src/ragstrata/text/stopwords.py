"""Russian and English stopwords, loaded once from ``ragstrata/data/stopwords/{ru,en}.txt``.

The lists hold function words, pronouns, question words (где, как, что, what, how, where) and
discourse words, as lemmas *and* common inflected forms, so a check is one set look-up on the
folded word (lower-case, ``ё`` as ``е``) — no morphology needed on the hot path.
"""

from __future__ import annotations

from importlib import resources

from ragstrata.text.morph import fold

__all__ = ["STOPWORDS_EN", "STOPWORDS_RU", "is_stopword", "load_stopword_file"]


def load_stopword_file(text: str) -> frozenset[str]:
    """Parse a stopword file's text: one word per line, blank lines and ``#`` comments skipped."""
    words = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return frozenset(fold(w) for w in words if w)


def _load(name: str) -> frozenset[str]:
    ref = resources.files("ragstrata").joinpath("data", "stopwords", name)
    return load_stopword_file(ref.read_text(encoding="utf-8"))


STOPWORDS_RU: frozenset[str] = _load("ru.txt")
"""Russian stopwords (folded: lower-case, ``ё`` written as ``е``)."""

STOPWORDS_EN: frozenset[str] = _load("en.txt")
"""English stopwords (lower-case)."""

_ALL: frozenset[str] = STOPWORDS_RU | STOPWORDS_EN


def is_stopword(word: str) -> bool:
    """True when ``word`` (any case, ``ё`` or ``е``) is a Russian or English stopword."""
    return fold(word) in _ALL
