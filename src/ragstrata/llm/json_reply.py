"""Finding JSON inside a model reply that wraps it in prose or code fences.

The end of a value is the standard library's: :meth:`json.JSONDecoder.raw_decode` parses one
JSON value starting at an index and says where it stops, so brackets inside strings, escapes
and nesting are the JSON grammar's business, not a hand-written counter's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["json_at", "json_values"]

_DECODER = json.JSONDecoder()


def json_at(text: str, start: int) -> tuple[Any, int] | None:
    """The JSON value that starts at ``text[start]`` and the index just past it; ``None`` when
    no valid JSON value starts there (unclosed, malformed, or nested too deeply)."""
    try:
        return _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None


def json_values(text: str, opening: str, *, limit: int | None = None) -> Iterator[Any]:
    """Each JSON value that starts at an ``opening`` character (``[`` or ``{``) of ``text``,
    left to right — values nested in an earlier one included, so a caller that rejects an outer
    value still sees the inner ones. At most ``limit`` starting points are tried (parsed or
    not), which bounds the work on hostile replies."""
    start = text.find(opening)
    tried = 0
    while start >= 0 and (limit is None or tried < limit):
        tried += 1
        found = json_at(text, start)
        if found is not None:
            yield found[0]
        start = text.find(opening, start + 1)
