"""Russian morphology: normal forms of words via pymorphy3 and its packaged dictionary.

The analyser (a few MB of dictionary, ~0.15 s) loads lazily on first use, once per process,
behind a lock so concurrent first calls do not build it twice. Every per-word result is
``lru_cache``-d, so repeated words cost one dict look-up.

Words are compared in a *folded* form: lower-cased with ``ё`` written as ``е`` (people type
both; pymorphy3 accepts either).

Start-up: the Router's glossary and cue words (about 1,500) would cost ~0.6 s of pymorphy3
work in every fresh process, so their results ship precomputed in :data:`SEED_FILE` (made by
``scripts/build_morph_seed.py``; used only when the installed dictionary is the one it was made
with). Words outside it are analysed as before.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from importlib import resources
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
SEED_FILE = "data/morph/seed.json"
"""Precomputed results (package data): ``{"dictionary": version, "lemma_candidates": {word:
[...]}, "lexeme_forms": {...}, "index_forms": {...}}``."""
SEEDED = ("lemma_candidates", "lexeme_forms", "index_forms")
_SEED: dict[str, dict[str, list[str]]] | None = None


def dictionary_version() -> str:
    """The installed pymorphy3 Russian dictionary's version."""
    from pymorphy3_dicts_ru.version import __version__

    return str(__version__)


def _seed(kind: str) -> dict[str, list[str]]:
    """The precomputed ``kind`` results; empty when missing or made with another dictionary."""
    global _SEED
    if _SEED is None:
        with _LOCK:
            if _SEED is None:
                try:
                    data = json.loads(resources.files("ragstrata").joinpath(SEED_FILE).read_text())
                    fresh = data.get("dictionary") == dictionary_version()
                except (OSError, ValueError, ImportError):
                    data, fresh = {}, False
                _SEED = {k: data.get(k, {}) for k in SEEDED} if fresh else {k: {} for k in SEEDED}
    return _SEED[kind]


def use_seed(enabled: bool) -> None:
    """Turn the precomputed results on (the default) or off (to compute every word live, as
    ``scripts/build_morph_seed.py`` and its test do); clears the per-word caches."""
    global _SEED
    with _LOCK:
        _SEED = None if enabled else {k: {} for k in SEEDED}
    for cached in (lemma_candidates, lemmatize, lexeme_forms, index_forms, dictionary_pos):
        cached.cache_clear()


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
    seeded = _seed("lemma_candidates").get(w)
    if seeded is not None:
        return tuple(seeded)
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
    seeded = _seed("lexeme_forms").get(w)
    if seeded is not None:
        return frozenset(seeded)
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
    seeded = _seed("index_forms").get(w)
    if seeded is not None:
        return frozenset(seeded)
    parse = _pick_parse(w)
    if "-" in w and not parse.is_known:
        return lexeme_forms(w)
    if parse.is_known:
        return frozenset({w, fold(parse.normal_form)})
    # a guess often splits singular and plural into separate readings: take every reading
    # whose normal form is the word itself
    readings = [p for p in _parses(w) if fold(p.normal_form) == w] or [parse]
    return frozenset({w} | {fold(form.word) for p in readings for form in p.lexeme})
