"""Docs ingestion: one documentation file -> its D0 row, D1 sections and D2 chunks.

The format comes from the walker's language (``markdown``, ``rst``, else plain text), with the
file extension as a fallback. Every line span is exact (1-based, inclusive) and every text is a
verbatim slice of ``SourceFile.text``.
"""

from __future__ import annotations

import posixpath
from bisect import bisect_right
from collections.abc import Callable

from ragstrata.core.rows import (
    ChunkRow,
    DocFileRow,
    Layer,
    Row,
    SectionRow,
    SourceFile,
    content_hash,
    row_id,
)
from ragstrata.ingest.docs.markdown import parse_markdown
from ragstrata.ingest.docs.outline import Outline, github_slug, source_lines
from ragstrata.ingest.docs.rst import parse_rst
from ragstrata.ingest.docs.sections import PATH_SEPARATOR, Section, build_sections
from ragstrata.ingest.docs.text import parse_text

__all__ = [
    "PATH_SEPARATOR",
    "doc_format",
    "extract_docs",
    "github_slug",
    "parse_markdown",
    "parse_rst",
    "parse_text",
]

Parser = Callable[[str], Outline]

# language (as the walker names it) -> format; extensions are the fallback.
_FORMAT_BY_LANGUAGE = {
    "markdown": "markdown",
    "mdx": "markdown",
    "rst": "rst",
    "restructuredtext": "rst",
    "text": "text",
    "plaintext": "text",
}
_FORMAT_BY_EXTENSION = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".rest": "rst",
}
_PARSERS: dict[str, Parser] = {"markdown": parse_markdown, "rst": parse_rst, "text": parse_text}


def doc_format(file: SourceFile) -> str:
    """``markdown``, ``rst`` or ``text``: how :func:`extract_docs` reads ``file``."""
    by_language = _FORMAT_BY_LANGUAGE.get(file.language.lower())
    if by_language is not None:
        return by_language
    return _FORMAT_BY_EXTENSION.get(posixpath.splitext(file.path)[1].lower(), "text")


def extract_docs(
    file: SourceFile, *, chunk_size: int = 1200, chunk_overlap: int = 150
) -> list[Row]:
    """The D0 row, D1 sections and D2 chunks of one documentation file, in that order.

    D0: title = front-matter title, else the first heading, else the file name; outline = the
    heading paths in document order. D1: one row per section (see
    :mod:`ragstrata.ingest.docs.sections`). D2: the recursive splitter over the body (front
    matter excluded) with the file language's separator ladder (headings, then paragraphs for
    Markdown); each chunk carries the heading path of the section it starts in. An empty or blank file yields its D0 row only.
    """
    fmt = doc_format(file)
    outline = _PARSERS[fmt](file.text)
    lines = source_lines(file.text)
    sections = build_sections(file.path, lines, outline)
    rows: list[Row] = [_doc_row(file, outline, sections, len(lines))]
    rows.extend(_section_row(file, section, fmt) for section in sections)
    rows.extend(_chunk_rows(file, lines, outline, sections, chunk_size, chunk_overlap))
    return rows


def _doc_row(
    file: SourceFile, outline: Outline, sections: list[Section], n_lines: int
) -> DocFileRow:
    titled = [s for s in sections if s.level > 0]
    title = outline.title or (titled[0].title if titled else "") or posixpath.basename(file.path)
    end = max(n_lines, 1)
    return DocFileRow(
        id=row_id(Layer.D0, file.path, 1, end, file.sha256),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=1,
        end_line=end,
        content_hash=file.sha256,
        title=title,
        outline=tuple(s.heading_path for s in titled),
    )


def _section_row(file: SourceFile, section: Section, fmt: str) -> SectionRow:
    digest = content_hash(section.text)
    return SectionRow(
        id=row_id(
            Layer.D1,
            file.path,
            section.start_line,
            section.end_line,
            section.heading_path + "\x00" + digest,
        ),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=section.start_line,
        end_line=section.end_line,
        content_hash=digest,
        heading_path=section.heading_path,
        title=section.title,
        slug=section.slug,
        level=section.level,
        text=section.text,
        origin=fmt,
    )


def _chunk_rows(
    file: SourceFile,
    lines: list[str],
    outline: Outline,
    sections: list[Section],
    chunk_size: int,
    chunk_overlap: int,
) -> list[ChunkRow]:
    from ragstrata.core.languages import ladder_for
    from ragstrata.ingest.splitter import split_spans

    skip_lines = outline.body_start_line - 1
    offset = sum(len(line) + 1 for line in lines[:skip_lines])
    body = file.text[offset:]
    if not body.strip():
        return []
    spans = split_spans(
        body, chunk_size=chunk_size, overlap=chunk_overlap, separators=ladder_for(file.language)
    )
    starts = [s.start_line for s in sections]
    rows: list[ChunkRow] = []
    for span in spans:
        start_line = span.start_line + skip_lines
        end_line = span.end_line + skip_lines
        where = bisect_right(starts, start_line) - 1
        heading_path = sections[where].heading_path if where >= 0 else file.path
        digest = content_hash(span.text)
        rows.append(
            ChunkRow(
                id=row_id(Layer.D2, file.path, start_line, end_line, span.text),
                path=file.path,
                language=file.language,
                is_test=file.is_test,
                start_line=start_line,
                end_line=end_line,
                content_hash=digest,
                layer=Layer.D2,
                start_offset=span.start_offset + offset,
                end_offset=span.end_offset + offset,
                text=span.text,
                heading_path=heading_path,
            )
        )
    return rows
