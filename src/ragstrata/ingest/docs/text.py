"""Plain text: no headings, so the whole document is one section (its chunks carry the path)."""

from __future__ import annotations

from ragstrata.ingest.docs.outline import Outline

__all__ = ["parse_text"]


def parse_text(text: str) -> Outline:
    """A plain-text document has no headings; its non-blank lines form one level-0 section."""
    del text  # the shared section builder trims blank lines around the content
    return Outline()
