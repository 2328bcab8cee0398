"""Read a file a setting names (a glossary, a cue file, a settings file): regular files only.

A repository may name files for ragstrata to read, and it is untrusted: a named pipe would
block the reader forever, a device would never end, a binary file is not text. So the file is
checked with ``stat`` before it is opened, opened non-blocking, checked again on the open
descriptor (no swap in between), read up to a size cap and decoded as strict UTF-8. Anything
else is a :class:`~ragstrata.errors.ConfigError` of one line naming the file (CLI exit 2).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ragstrata.errors import ConfigError

__all__ = ["MAX_CONFIG_FILE_BYTES", "read_regular_text"]

MAX_CONFIG_FILE_BYTES = 16 << 20
"""The largest file a setting may name (16 MiB)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def read_regular_text(path: Path, what: str, max_bytes: int = MAX_CONFIG_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (``what`` names it in errors: "glossary
    file"); ``ConfigError`` for anything else, a file over ``max_bytes`` or non-UTF-8 bytes."""
    name = f"{what} {str(path)!r}"
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise ConfigError(f"{name} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{name} is {_kind(mode)}; only regular files are read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ConfigError(f"{name} cannot be read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since the first look
            raise ConfigError(f"{name} is {_kind(mode)}; only regular files are read")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ConfigError(f"{name} is larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{name} is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})"
        ) from None
