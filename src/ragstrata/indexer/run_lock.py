"""One indexing run of a repository at a time, across processes.

An index run writes its rows batch by batch (see :mod:`ragstrata.indexer.run`): while a first
index is being built the store already has a manifest and some of the files. A second run
started meanwhile (``ragstrata ask`` indexing a repository with no index yet, a watcher, a
benchmark over the same tree) would index the same files again and, worse, a reader deciding
"the index is there" would answer from half of it. :func:`index_run` holds an exclusive
advisory lock on ``<index dir>/index.run.lock`` for the whole run; the next run waits for it
and then finds the files up to date. :func:`wait_for_index_run` lets a reader wait for a run in
progress before it decides whether to index. Where ``flock`` does not exist (Windows) both are
no-ops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ragstrata.store.locks import advisory_lock

__all__ = ["index_run", "wait_for_index_run"]

LOCK_NAME = "index.run.lock"


@contextmanager
def index_run(index_dir: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the repository's indexing lock for the block; ``on_wait`` is called once when
    another run holds it (the block starts when that run ends)."""
    with _locked(index_dir, exclusive=True, on_wait=on_wait):
        yield


def wait_for_index_run(index_dir: Path, on_wait: Callable[[], None] | None = None) -> bool:
    """Return once no indexing run of the repository is going on; True when one was (and
    ``on_wait`` was called)."""
    waited: list[bool] = []

    def note() -> None:
        waited.append(True)
        if on_wait is not None:
            on_wait()

    if not index_dir.is_dir():
        return False  # no index yet, and no run (a run creates the folder before it locks)
    with _locked(index_dir, exclusive=False, on_wait=note):
        pass
    return bool(waited)


@contextmanager
def _locked(
    index_dir: Path, *, exclusive: bool, on_wait: Callable[[], None] | None
) -> Iterator[None]:
    # the index folder only: a repository folder that is gone stays gone (a watcher sees it)
    index_dir.mkdir(exist_ok=True)
    with advisory_lock(index_dir / LOCK_NAME, exclusive=exclusive, on_wait=on_wait):
        yield
