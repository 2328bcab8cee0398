"""The shape every docs parser returns: headings with exact line spans, plus line helpers.

Parsers (Markdown, reStructuredText, plain text) only find headings; turning headings into
sections, chunks and rows is shared (:mod:`ragstrata.ingest.docs.sections`), so every format
gets the same line-span rules.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["Heading", "Outline", "Slugger", "github_slug", "is_blank", "source_lines"]


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading: ``line``..``end_line`` are 1-based and cover its whole construct.

    A setext or RST title with an underline spans two lines (three with an overline).
    """

    level: int
    title: str
    slug: str
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Outline:
    """What a parser found in one document.

    ``body_start_line`` is 1 unless front matter precedes the body; front matter lines belong to
    no section and no chunk. ``title`` is the front-matter title, if any.
    """

    headings: tuple[Heading, ...] = ()
    body_start_line: int = 1
    title: str | None = None


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading (github-slugger): lower case, punctuation dropped,
    each space turned into ``-``; letters of every script are kept (``Установка`` stays)."""
    out: list[str] = []
    for ch in text.lower():
        if ch == " ":
            out.append("-")
        elif ch == "-" or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc":
            out.append(ch)
    return "".join(out)


class Slugger:
    """Unique slugs within one document, numbered as GitHub does (``a``, ``a-1``, ``a-2``)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, text: str) -> str:
        """The next unique slug for ``text``."""
        base = github_slug(text)
        result = base
        while result in self._seen:
            self._seen[base] += 1
            result = f"{base}-{self._seen[base]}"
        self._seen[result] = 0
        return result


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` split on ``\\n`` only (a ``\\r`` of CRLF stays on its line).

    A final newline does not open an extra line, so ``len(result)`` equals
    ``SourceFile.line_count``.
    """
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def is_blank(line: str) -> bool:
    """True for a line holding only whitespace."""
    return not line.strip()
