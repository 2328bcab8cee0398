"""Byte/point <-> code-point mapping for one decoded file (tree-sitter works in UTF-8 bytes)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Source", "collapse"]

_WS = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Collapse runs of whitespace to one space and strip."""
    return _WS.sub(" ", text).strip()


class Source:
    """A file's text and its UTF-8 bytes, with fast offset conversion from tree-sitter points."""

    __slots__ = ("_ascii", "_byte_starts", "data", "line_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self._ascii = len(self.data) == len(text)
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        if self._ascii:
            self._byte_starts = self.line_starts
        else:
            self._byte_starts = [0, *(m.end() for m in re.finditer(b"\n", self.data))]

    def offset(self, point: Any) -> int:
        """Code-point offset of a tree-sitter ``Point`` (row, byte column)."""
        row, col = point[0], point[1]
        if row >= len(self.line_starts):
            return len(self.text)
        start = self.line_starts[row]
        if self._ascii or col == 0:
            return start + col
        b = self._byte_starts[row]
        return start + len(self.data[b : b + col].decode("utf-8", "replace"))

    def span(self, node: Any) -> tuple[int, int]:
        """Code-point ``(start, end)`` of a node."""
        return self.offset(node.start_point), self.offset(node.end_point)

    def node_text(self, node: Any) -> str:
        """The node's source text."""
        start, end = self.span(node)
        return self.text[start:end]

    def line_of(self, offset: int) -> int:
        """1-based line of a code-point offset."""
        from bisect import bisect_right

        return bisect_right(self.line_starts, offset)
