"""Advisory file locks (``flock``) across processes: the SQLite store's open/swap and
one-rebuild locks, the indexer's one-run-per-repository lock. Where ``flock`` does not exist
(Windows) they are no-ops."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]

__all__ = ["advisory_lock"]


@contextmanager
def advisory_lock(
    path: Path, *, exclusive: bool, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold an advisory lock on ``path`` (the file is created when missing) for the block;
    ``on_wait`` is called once when another holder makes it wait. A no-op where flock is
    unavailable or ``path``'s folder does not exist."""
    if fcntl is None or not path.parent.is_dir():
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # releases the lock
