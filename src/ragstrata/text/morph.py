"""Russian morphology: normal forms of words via pymorphy3 and its packaged dictionary.

The analyser (a few MB of dictionary, ~0.15 s) loads lazily on first use, once per process,
behind a lock so concurrent first calls do not build it twice. Every per-word result is
``lru_cache``-d, so repeated words cost one dict look-up.

Words are compared in a *folded* form: lower-cased with ``ё`` written as ``е`` (people type
both; pymorphy3 accepts either).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ragstrata.text.tokens import Token, has_cyrillic, tokenize

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pymorphy3 import MorphAnalyzer

__all__ = [
    "TRANSLIT_POS",
    "analyzer",
    "dictionary_pos",
    "fold",
    "index_forms",
    "lemma_candidates",
    "lemma_tokens",
    "lemmatize",
    "lexeme_forms",
]

TRANSLIT_POS: frozenset[str | None] = frozenset({None, "NOUN"})
"""Readings whose loanword-looking words are transliterated: nouns the dictionary knows
("коннектор" -> connector) and words it does not (slang: "задеплоить"). Known verbs,
participles and adjectives ("гарантируют", "зарегистрированные") are Russian words with a
borrowed stem whose transliterations ("garant", "zaregistr") name nothing in code."""

_LOCK = threading.Lock()
_ANALYZER: MorphAnalyzer | None = None


def analyzer() -> MorphAnalyzer:
    """The process-wide pymorphy3 analyser, built on first call (thread-safe)."""
    global _ANALYZER
    if _ANALYZER is None:
        with _LOCK:
            if _ANALYZER is None:
                import pymorphy3  # heavy: imported only when first needed

                _ANALYZER = pymorphy3.MorphAnalyzer(lang="ru")
    return _ANALYZER


def fold(word: str) -> str:
    """Lower-case ``word`` and write ``ё`` as ``е``."""
    return word.lower().replace("ё", "е")


@lru_cache(maxsize=65536)
def lemma_candidates(word: str) -> tuple[str, ...]:
    """All distinct normal forms of ``word``, most probable first (folded).

    A Russian word is often ambiguous ("данные" -> данный / дать / данные), and a glossary
    look-up should try every reading. Non-Cyrillic words give their folded self.
    """
    w = fold(word)
    if not has_cyrillic(w):
        return (w,)
    seen: dict[str, None] = {}
    for parse in _parses(w):
        seen.setdefault(fold(parse.normal_form), None)
    return tuple(seen) or (w,)


@lru_cache(maxsize=65536)
def lemmatize(word: str) -> str:
    """The most probable normal form of a Cyrillic ``word``, lower-cased; other words are just
    lower-cased (``"Классе"`` -> ``"класс"``, ``"HttpClient"`` -> ``"httpclient"``)."""
    if not has_cyrillic(word):
        return word.lower()
    return lemma_candidates(word)[0]


@lru_cache(maxsize=65536)
def dictionary_pos(word: str) -> str | None:
    """The part of speech (pymorphy3's ``NOUN``, ``VERB``, ``PRTF``...) of the most probable
    reading of the Cyrillic ``word`` when pymorphy3's dictionary knows it; None when it only
    guesses (slang such as "задеплоить", "хэндлер") or for other words."""
    w = fold(word)
    if not has_cyrillic(w) or not analyzer().word_is_known(w):
        return None
    return str(_parses(w)[0].tag.POS or "") or None


def lemma_tokens(text: str) -> list[tuple[Token, str]]:
    """Every token of ``text`` (see ``ragstrata.text.tokens.tokenize``) with its lemma."""
    return [(tok, lemmatize(tok.text)) for tok in tokenize(text)]


@lru_cache(maxsize=4096)
def _parses(word: str) -> tuple[Any, ...]:
    """pymorphy3's readings of a folded word (cached: glossary indexing asks several times)."""
    return tuple(analyzer().parse(word))


def _pick_parse(word: str) -> Any:
    """The reading of ``word`` whose normal form is ``word`` itself, else the most probable."""
    parses = _parses(word)
    for parse in parses:
        if fold(parse.normal_form) == word:
            return parse
    return parses[0]


@lru_cache(maxsize=8192)
def lexeme_forms(word: str) -> frozenset[str]:
    """Every inflected form (folded) of the lexeme ``word`` names, ``word`` included.

    Used on the *glossary* side: a dictionary word is expanded into all its forms so that a
    surface form pymorphy3 lemmatises oddly (guessed slang such as "ретраев") still matches.
    Non-Cyrillic words give ``{word}``.
    """
    w = fold(word)
    if not has_cyrillic(w):
        return frozenset({w})
    if "-" in w:
        # pymorphy3 inflects only the last part of most hyphenated compounds ("юнит-тест").
        head, _, tail = w.rpartition("-")
        return frozenset({w} | {f"{head}-{form}" for form in lexeme_forms(tail)})
    parse = _pick_parse(w)
    return frozenset({w} | {fold(form.word) for form in parse.lexeme})


@lru_cache(maxsize=8192)
def index_forms(word: str) -> frozenset[str]:
    """The folded forms under which a dictionary word is indexed for look-up, ``word`` included.

    A word pymorphy3 knows needs only its own normal form besides itself ("переменная" ->
    переменный: any inflected query word lemmatises to that). A word it only guesses (slang
    such as "ретрай", "хендлер") gets its whole guessed lexeme, because the guess for an
    inflected query word ("ретраев") may land on a different normal form.
    """
    w = fold(word)
    if not has_cyrillic(w):
        return frozenset({w})
    parse = _pick_parse(w)
    if "-" in w and not parse.is_known:
        return lexeme_forms(w)
    if parse.is_known:
        return frozenset({w, fold(parse.normal_form)})
    # a guess often splits singular and plural into separate readings: take every reading
    # whose normal form is the word itself
    readings = [p for p in _parses(w) if fold(p.normal_form) == w] or [parse]
    return frozenset({w} | {fold(form.word) for p in readings for form in p.lexeme})
