"""reStructuredText section titles through docutils, quietly.

docutils' reports go to a private stream and never halt the parse (``report_level`` and
``halt_level`` 5); file inclusion and raw passthrough are off, so parsing never reads other
files or the network. Broken markup yields whatever sections docutils still recognised; if
docutils itself fails, the document has no headings (one section) rather than an error.

A title node's ``line`` is its underline; the title line is the one above it, and an overline of
the same character above that belongs to the heading too. Slugs are docutils' own ids, the
anchors Sphinx and docutils render.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ragstrata.ingest.docs.outline import Heading, Outline, source_lines

__all__ = ["parse_rst"]

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
# docutils splits lines with str.splitlines(); ragstrata counts lines by LF only, so every other
# break character (lone CR, VT, FF, FS/GS/RS, NEL, LS, PS) is a space for docutils.
_OTHER_BREAKS = re.compile("\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _settings() -> dict[str, Any]:
    return {
        "report_level": 5,
        "halt_level": 5,
        "warning_stream": io.StringIO(),
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "doctitle_xform": False,
        "sectsubtitle_xform": False,
        "_disable_config": True,
        "input_encoding": "unicode",
        "traceback": False,
    }


def _title_span(lines: list[str], underline: int | None, title: str, after: int) -> tuple[int, int]:
    """1-based (first, last) line of a title whose underline docutils put at ``underline``."""
    if underline is not None and 2 <= underline <= len(lines):
        above = " ".join(lines[underline - 2].split())
        if above == title and _ADORNMENT.match(lines[underline - 1].strip() or " "):
            return _with_overline(lines, underline - 1, underline)
    # docutils lost the line: find the title text followed by an adornment line.
    for index in range(max(after, 0), len(lines) - 1):
        if " ".join(lines[index].split()) == title and _ADORNMENT.match(
            lines[index + 1].strip() or " "
        ):
            return _with_overline(lines, index + 1, index + 2)
    return 0, 0


def _with_overline(lines: list[str], title_line: int, underline: int) -> tuple[int, int]:
    if title_line >= 2:
        over = lines[title_line - 2].strip()
        under = lines[underline - 1].strip()
        if over and _ADORNMENT.match(over) and over[0] == under[0]:
            return title_line - 1, underline
    return title_line, underline


def _drop_nested_state_machines() -> None:
    """docutils keeps the nested state machines of a parse in a class-level cache for reuse,
    and each pins the last document it parsed: a few whole doctrees stay alive after an index
    run (12 MB on astropy's docs). Emptying the cache costs only their re-creation."""
    try:
        from docutils.parsers.rst.states import RSTState
    except ImportError:  # pragma: no cover - docutils is a dependency
        return
    RSTState.nested_sm_cache.clear()


def parse_rst(text: str) -> Outline:
    """The section titles of a reStructuredText document with exact 1-based line spans."""
    try:
        from docutils import nodes
        from docutils.core import publish_doctree

        doctree = publish_doctree(_OTHER_BREAKS.sub(" ", text), settings_overrides=_settings())
    except Exception:  # docutils gave up on this input: keep the file as one section
        return Outline()
    finally:
        _drop_nested_state_machines()
    lines = source_lines(text)
    headings: list[Heading] = []
    after = 0
    for section in doctree.findall(nodes.section):
        if not section.children or not isinstance(section[0], nodes.title):
            continue
        title_node = section[0]
        title = " ".join(title_node.astext().split())
        first, last = _title_span(lines, title_node.line, title, after)
        if first == 0 or first <= after:
            continue  # not a title we can place on exact lines (e.g. made by a directive)
        level = sum(1 for parent in _ancestors(section) if isinstance(parent, nodes.section)) + 1
        ids = section.get("ids") or []
        headings.append(
            Heading(level=level, title=title, slug=ids[0] if ids else "", line=first, end_line=last)
        )
        after = last
    return Outline(headings=tuple(headings))


def _ancestors(node: Any) -> list[Any]:
    out = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out
