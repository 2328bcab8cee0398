"""Headings -> D1 sections with exact line spans and heading paths (shared by every format).

Sections are flat: a heading owns the lines from its first line up to the line before the next
heading of any level, with trailing blank lines trimmed; the nesting lives in the heading path
(``README.md > Install > From source``). Text before the first heading is a level-0 preamble
section whose heading path is the file path alone; a document without headings is one
preamble section. A section's text is exactly its source lines joined by ``\\n``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragstrata.ingest.docs.outline import Heading, Outline, is_blank

__all__ = ["PATH_SEPARATOR", "Section", "build_sections"]

PATH_SEPARATOR = " > "


@dataclass(frozen=True, slots=True)
class Section:
    """One section before it becomes a row; lines are 1-based inclusive."""

    heading_path: str
    title: str
    slug: str
    level: int
    start_line: int
    end_line: int
    text: str


def _trim_end(lines: list[str], end: int, floor: int) -> int:
    while end > floor and is_blank(lines[end - 1]):
        end -= 1
    return end


def build_sections(path: str, lines: list[str], outline: Outline) -> list[Section]:
    """Cut ``lines`` into sections at the outline's headings."""
    sections: list[Section] = []
    headings = outline.headings
    body_start = outline.body_start_line
    first_heading = headings[0].line if headings else len(lines) + 1
    # Preamble: the non-blank run between the front matter and the first heading.
    start = body_start
    while start < first_heading and is_blank(lines[start - 1]):
        start += 1
    if start < first_heading:
        end = _trim_end(lines, first_heading - 1, start)
        sections.append(_section(path, "", "", 0, start, end, lines))
    stack: list[Heading] = []
    for index, heading in enumerate(headings):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        heading_path = PATH_SEPARATOR.join([path, *(h.title for h in stack)])
        limit = headings[index + 1].line - 1 if index + 1 < len(headings) else len(lines)
        end = _trim_end(lines, max(limit, heading.end_line), heading.end_line)
        sections.append(
            _section(
                heading_path, heading.title, heading.slug, heading.level, heading.line, end, lines
            )
        )
    return sections


def _section(
    heading_path: str, title: str, slug: str, level: int, start: int, end: int, lines: list[str]
) -> Section:
    return Section(
        heading_path=heading_path,
        title=title,
        slug=slug,
        level=level,
        start_line=start,
        end_line=end,
        text="\n".join(lines[start - 1 : end]),
    )
