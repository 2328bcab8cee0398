"""Tokenization that keeps code identifiers whole and splits them on demand.

A token is a maximal run of letters/digits/underscores, optionally joined by single dots
(``a.b.c``) or, between letters, hyphens (``юнит-тест``). Spans are Python code-point offsets,
end exclusive, so ``text[t.start:t.end] == t.text``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = [
    "Token",
    "cyrillic_dominant",
    "cyrillic_ratio",
    "has_cyrillic",
    "identifier_parts",
    "is_identifier",
    "tokenize",
    "word_tokens",
]

TokenKind = Literal["word", "ident", "number"]

# \w without the underscore restriction; dots join identifier segments, hyphens join letters.
_TOKEN_RE = re.compile(r"\w+(?:(?:\.|::)(?=\w)\w+)*(?:-(?=[^\W\d_])[^\W\d_]+)*")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
_CYRILLIC_RE = re.compile(r"[\u0400-\u04FF]")


@dataclass(frozen=True, slots=True)
class Token:
    """One token with its code-point span in the source text."""

    text: str
    start: int
    end: int
    kind: TokenKind


def is_identifier(token: str) -> bool:
    """True for code-like tokens: snake_case, camelCase/PascalCase with an inner capital,
    dotted paths, ``::`` paths, or letters mixed with digits."""
    if "_" in token.strip("_") or "." in token or "::" in token:
        return True
    if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
        return True
    inner = token[1:]
    return any(c.isupper() for c in inner) and any(c.islower() for c in token)


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text`` in order, each classified as word, ident or number."""
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(text):
        tok = m.group()
        if tok.isdigit():
            kind: TokenKind = "number"
        elif is_identifier(tok):
            kind = "ident"
        else:
            kind = "word"
        out.append(Token(tok, m.start(), m.end(), kind))
    return out


def word_tokens(text: str) -> list[str]:
    """The token strings of ``text`` (identifiers kept whole)."""
    return [m.group() for m in _TOKEN_RE.finditer(text)]


@lru_cache(maxsize=65536)
def identifier_parts(token: str) -> tuple[str, ...]:
    """Split an identifier into its words: ``HTTPClientError`` -> (HTTP, Client, Error),
    ``parse_query`` -> (parse, query), ``a.b.c`` -> (a, b, c). A plain word gives itself."""
    parts: list[str] = []
    for segment in re.split(r"[._:\-]+", token):
        if segment:
            parts.extend(_CAMEL_RE.findall(segment))
    return tuple(parts) if parts else (token,)


def latin_halves(token: str) -> list[str]:
    """The Latin parts of a hyphenated Russian compound (``HEAD-запрос`` -> ``HEAD``,
    ``JSONP-запросы`` -> ``JSONP``): the name the question gives in code's alphabet; ``[]``
    for any other token."""
    if "-" not in token or not has_cyrillic(token):
        return []
    return [p for p in token.split("-") if p and p.isascii() and any(c.isalpha() for c in p)]


def has_cyrillic(text: str) -> bool:
    """True when ``text`` contains at least one Cyrillic letter."""
    return _CYRILLIC_RE.search(text) is not None


def cyrillic_ratio(text: str) -> float:
    """Share of letters in ``text`` that are Cyrillic (0.0 for text without letters)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if _CYRILLIC_RE.match(c)) / len(letters)


_LATIN_LETTER = re.compile(r"[A-Za-z]")


def cyrillic_dominant(toks: Sequence[Token]) -> bool:
    """True when at least as many word tokens are Cyrillic as Latin (and some are)."""
    cyr = lat = 0
    for tok in toks:
        if tok.kind != "word":
            continue
        if has_cyrillic(tok.text):
            cyr += 1
        elif _LATIN_LETTER.search(tok.text):
            lat += 1
    return cyr > 0 and cyr >= lat
