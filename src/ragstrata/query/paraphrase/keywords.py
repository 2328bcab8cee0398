"""Keyword paraphrasers: a RU/EN keyword extractor and an identifier splitter.

Candidates keep code whole: paths (``src/app/main.py``, ``../etc/passwd``), URLs, identifiers
(``parse_query``, ``HttpClient``, ``a.b.c``, ``std::vector``) and ``C++``/``C#``-style names are
single keywords. Stopwords of both languages and one-character tokens are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal

from ragstrata.errors import ConfigError
from ragstrata.query.paraphrase.base import Query
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import identifier_parts, is_identifier, tokenize

__all__ = ["Candidate", "IdentifierSplitter", "KeywordExtractor", "keyword_candidates"]

CandidateKind = Literal["path", "url", "ident", "word", "number"]

_SEG = r"[\w.\-~@+]+"
_CODE_RE = re.compile(
    # URLs first so their "//host/path" is not read as a path.
    # Every alternative starts only where a segment starts (lookbehinds), which keeps the scan
    # linear on long runs of word characters.
    r"(?P<url>(?<![\w+.\-])[a-z][a-z0-9+.\-]*://[^\s`'\"<>()\[\]]+)"
    # Paths: at least one separator; anchored (./ ../ / ~/) or with 2+ separators, a trailing
    # separator, or an extension on the last segment. "и/или", "read/write" stay words.
    rf"|(?P<path>(?<![\w.\-~@+/\\])(?:(?:(?:\.{{1,2}}|~)?[/\\])?{_SEG}(?:[/\\]{_SEG})+[/\\]?"
    rf"|(?:\.{{1,2}}|~)[/\\]{_SEG}|{_SEG}[/\\](?![\w/\\])))"
    r"|(?P<lang>(?<![\w+#])[A-Za-z]\+\+|(?<![\w+#])[A-Za-z]#(?!\w))"
)
_EXT_RE = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_TRAILING = ".,;:!?"


def _is_path(text: str) -> bool:
    if not any(c.isalpha() for c in text) or sum(c.isalnum() for c in text) < 2:
        return False  # "29/11/2026", "50/50", "a/"
    body = text.rstrip("/\\")
    seps = len(re.findall(r"[/\\]", body))
    anchored = text.startswith(("/", "\\", "./", "../", "~/", ".\\", "..\\"))
    trailing = text != body
    return seps >= 2 or anchored or trailing or bool(_EXT_RE.search(body))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A keyword candidate with its code-point span in the query text."""

    text: str
    start: int
    end: int
    kind: CandidateKind

    @property
    def is_code(self) -> bool:
        """Paths, URLs and identifiers: the most discriminative keywords for code search."""
        return self.kind in ("path", "url", "ident")


def keyword_candidates(text: str) -> list[Candidate]:
    """All candidates of ``text`` in order (stopwords not yet removed)."""
    out: list[Candidate] = []
    covered: list[tuple[int, int]] = []
    for m in _CODE_RE.finditer(text):
        value = m.group()
        kind: CandidateKind = "ident"  # C++ / C#
        if m.lastgroup == "url":
            kind, value = "url", value.rstrip(_TRAILING)
        elif m.lastgroup == "path":
            kind, value = "path", value.rstrip(_TRAILING)
            if not _is_path(value):
                continue
        start = m.start()
        end = start + len(value)
        out.append(Candidate(value, start, end, kind))
        covered.append((start, end))
    for tok in tokenize(text):
        if any(s <= tok.start < e for s, e in covered):
            continue
        out.append(Candidate(tok.text, tok.start, tok.end, tok.kind))
    out.sort(key=lambda c: c.start)
    return out


def _tier(candidate: Candidate) -> int:
    """Code first; then Latin words (in a Russian question they are nearly always technical
    terms that also occur in the code); then other words; numbers last."""
    if candidate.is_code:
        return 0
    if candidate.kind == "number":
        return 3  # weak alone; still kept after the words (error codes, ports)
    return 1 if candidate.text.isascii() else 2


def _keep(candidate: Candidate) -> bool:
    if len(candidate.text) < 2:
        return False
    return candidate.is_code or not is_stopword(candidate.text)


class KeywordExtractor:
    """Adds up to ``top_k`` keywords of ``query_str`` to ``query.keywords`` (set union).

    Ranking: code-like candidates, Latin-script words, other words, numbers; within
    a tier by frequency (case-insensitive), then first occurrence. Surface forms are kept (first spelling seen). ``top_k=None`` keeps all.
    """

    name: ClassVar[str] = "keywords"

    def __init__(self, top_k: int | None = 8) -> None:
        if top_k is not None and (isinstance(top_k, bool) or top_k < 1):
            raise ConfigError(f"keyword extractor: top_k must be >= 1 or None, got {top_k!r}")
        self.top_k = top_k

    def extract(self, text: str) -> list[str]:
        """The ranked keywords of ``text`` (at most ``top_k``)."""
        first: dict[str, Candidate] = {}
        freq: dict[str, int] = {}
        for cand in keyword_candidates(text):
            if not _keep(cand):
                continue
            key = cand.text.casefold()
            first.setdefault(key, cand)
            freq[key] = freq.get(key, 0) + 1
        ranked = sorted(first, key=lambda k: (_tier(first[k]), -freq[k], first[k].start))
        if self.top_k is not None:
            ranked = ranked[: self.top_k]
        return [first[k].text for k in ranked]

    def paraphrase(self, query: Query) -> Query:
        """Union the keywords of ``query.query_str`` into ``query.keywords``; nothing else."""
        if query.query_str:
            query.keywords.update(self.extract(query.query_str))
        return query


def _split(token: str) -> list[str]:
    parts: list[str] = []
    for segment in re.split(r"[/\\]+", token):
        if segment:
            parts.extend(identifier_parts(segment))
    return parts


class IdentifierSplitter:
    """Adds the lower-cased parts of identifiers and paths as extra keywords.

    ``parse_query`` -> parse, query; ``HttpClient`` -> http, client; ``src/app/main.py`` ->
    src, app, main, py. Identifiers come from ``query_str`` and from keywords already present;
    one-character and stopword parts are skipped.
    """

    name: ClassVar[str] = "identifiers"

    def split(self, text: str) -> list[str]:
        """The parts of every identifier or path in ``text``, in order, without repeats."""
        tokens = [
            c.text
            for c in keyword_candidates(text)
            if c.kind in ("ident", "path")
            or (c.kind == "word" and "-" in c.text and c.text.isascii())
        ]
        return self._parts(tokens)

    @staticmethod
    def _parts(tokens: list[str]) -> list[str]:
        seen: dict[str, None] = {}
        for token in tokens:
            whole = token.casefold()
            for part in _split(token):
                low = part.lower()
                if len(low) >= 2 and low != whole and low.isalnum() and not is_stopword(low):
                    seen.setdefault(low, None)
        return list(seen)

    def paraphrase(self, query: Query) -> Query:
        """Union identifier parts into ``query.keywords``; nothing else changes."""
        parts = self.split(query.query_str) if query.query_str else []
        existing = sorted(k for k in query.keywords if is_identifier(k) or "/" in k or "\\" in k)
        parts += self._parts(existing)
        query.keywords.update(parts)
        return query
