"""The code-aware term analyzer shared by indexing and querying.

One function, :func:`analyze`, turns text into index terms; the same function runs on rows at
write time and on questions at search time, so both sides always agree.

- Identifiers are kept whole (lower-cased) AND split into parts: ``HttpClient`` -> httpclient,
  http, client; ``self.parse_query`` -> self.parse_query, self, parse_query, parse, query.
  A query for ``HttpClient`` therefore meets ``http_client`` through the shared parts.
- Russian words are lemmatised (pymorphy3), so ``файлы`` and ``файлов`` both give ``файл``.
- English words are lower-cased and lightly stemmed (plural ``-s``/``-es``/``-ies`` only, by
  :func:`ragstrata.text.plurals.light_stem`, the rules the glossary look-up uses too);
  identifier parts get the same stemming, whole identifiers never do.
- Numbers of two or more digits are kept (ports, status codes, versions); single digits are
  dropped, they are everywhere in code and mean nothing alone. One-letter words are dropped.
- Stopwords (``ragstrata.text.stopwords``) are dropped from words and identifier parts, never
  from whole identifiers.

:data:`ANALYZER_VERSION` names the behaviour; a store records it and re-analyzes its rows when
it changes, so an index never mixes terms produced by two analyzers.
"""

from __future__ import annotations

from functools import lru_cache

from ragstrata.text.morph import lemmatize as _lemma_impl
from ragstrata.text.plurals import light_stem
from ragstrata.text.stopwords import is_stopword as _is_stopword
from ragstrata.text.tokens import has_cyrillic, identifier_parts, is_identifier, word_tokens

__all__ = ["ANALYZER_VERSION", "analyze", "lemmatize", "light_stem"]

ANALYZER_VERSION = "code-terms-1"
"""Changes whenever analysis output may change; stores re-analyze rows on a mismatch."""


@lru_cache(maxsize=32_768)
def lemmatize(word: str) -> str:
    """Lower-cased normal form of a Russian word (other words are only lower-cased)."""
    low = word.lower()
    if not has_cyrillic(low):
        return low
    return _lemma_impl(low).lower().replace("ё", "е")


def _word_term(word: str) -> str | None:
    low = word.lower()
    if len(low) < 2 or _is_stopword(low):
        return None
    if has_cyrillic(low):
        lemma = lemmatize(low)
        return None if _is_stopword(lemma) else lemma
    return light_stem(low)


@lru_cache(maxsize=32_768)
def _token_terms(token: str) -> tuple[str, ...]:
    # classification is a pure function of the token, so it is cached with the terms
    # (same kinds as ragstrata.text.tokens.tokenize, without building Token objects)
    if token.isdigit():
        return (token,) if len(token) >= 2 else ()
    if not is_identifier(token):
        if "-" in token:
            pieces = [token, *token.split("-")]
            return tuple(dict.fromkeys(t for p in pieces if (t := _word_term(p))))
        term = _word_term(token)
        return (term,) if term else ()
    out: list[str] = [token.lower()]
    segments = [s for s in token.replace("::", ".").split(".") if s]
    if len(segments) > 1:
        out.extend(s.lower() for s in segments)
    for segment in segments:
        for part in identifier_parts(segment):
            if part.isdigit():
                if len(part) >= 2:
                    out.append(part)
                continue
            term = _word_term(part)
            if term:
                out.append(term)
    return tuple(dict.fromkeys(out))


def analyze(text: str) -> list[str]:
    """Index terms of ``text`` in order of appearance (repeats kept, for term frequency)."""
    terms: list[str] = []
    for token in word_tokens(text):
        terms.extend(_token_terms(token))
    return terms
