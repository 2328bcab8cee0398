"""Untrusted text made safe to print: control and bidi characters shown, never obeyed.

A file name, a symbol or a line of content comes from the indexed repository and may hold
``ESC[31m`` (terminal escapes), a right-to-left override (U+202E) that reorders what the reader
sees, or zero-width marks. :func:`visible` replaces each such character with its escape
(``\\x1b``, ``\\u202e``); :func:`visible_json` does the same inside JSON text with JSON's own
``\\uXXXX`` escapes, so the JSON stays valid and decodes to the same value.
"""

from __future__ import annotations

import re

__all__ = ["UNSAFE", "visible", "visible_json"]

_BIDI_AND_INVISIBLE = (
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e"
    "\u206f\ufeff\ufff9\ufffa\ufffb"
)
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_INVISIBLE}]")
"""Characters never printed raw: C0 controls but tab and newline, DEL, C1, bidi and
zero-width format characters."""
_UNSAFE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI_AND_INVISIBLE}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = True) -> str:
    """``text`` with unsafe characters escaped; with ``multiline=False`` (paths, symbols, one
    line of a table) newlines and tabs are escaped too."""
    return (UNSAFE if multiline else _UNSAFE_LINE).sub(_escape, text)


def visible_json(text: str) -> str:
    """JSON text with the unsafe characters that JSON leaves raw (DEL, C1, bidi, zero-width)
    written as ``\\uXXXX`` escapes; C0 controls are already escaped by ``json.dumps``."""
    return UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
