"""Finding JSON inside a model reply that wraps it in prose or code fences."""

from __future__ import annotations

__all__ = ["balanced_end"]

_CLOSING = {"[": "]", "{": "}"}


def balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing the ``[`` or ``{`` at ``text[start]``, else None.

    String- and escape-aware: brackets inside JSON strings do not count; only the kind of
    bracket found at ``start`` is counted.
    """
    opening = text[start]
    closing = _CLOSING[opening]
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return None
