"""Keep an index fresh: watch the repository folder and re-index when files change.

The watcher (``watchfiles``: native file events, batched with a debounce) only decides *when*
to run; *what* to do is always the indexer's ordinary incremental diff of the disk against the
catalog. So whatever happened in between is handled the same way: an editor's rename-write
(write a temporary file, rename it over the original), a delete, or ``git checkout`` of another
branch touching hundreds of files at once (one incremental run over the final state, never a
wipe or a rebuild). Events inside the index folder and ``.git`` are ignored. A run that fails
(a file vanished mid-read, the store is busy) is reported and retried on the next change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragstrata.errors import RagstrataError

if TYPE_CHECKING:
    from ragstrata.indexer.events import IndexReport

__all__ = ["DEFAULT_DEBOUNCE_MS", "WatchRun", "describe", "watch_repository"]

DEFAULT_DEBOUNCE_MS = 300
"""Changes closer together than this are handled by one index run."""

_IGNORED_DIRS = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True, slots=True)
class WatchRun:
    """One index run of the watcher: why it ran, and its report or its error."""

    trigger: str  # "start" or "change"
    changed_paths: int  # file events in the batch (0 for the first run)
    report: IndexReport | None = None
    error: str | None = None


def _ignore(repo: Path, index_dir_name: str) -> Callable[[object, str], bool]:
    skip = {*_IGNORED_DIRS, index_dir_name}

    def keep(_change: object, path: str) -> bool:
        try:
            parts = Path(path).resolve().relative_to(repo).parts
        except ValueError:
            return False
        return not set(parts) & skip

    return keep


def watch_repository(
    repo: Path,
    index: Callable[[], IndexReport],
    on_run: Callable[[WatchRun], None],
    *,
    index_dir_name: str = ".ragstrata",
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    stop: threading.Event | None = None,
    initial: bool = True,
    max_runs: int | None = None,
) -> int:
    """Run ``index()`` once (``initial``), then after every batch of relevant file changes,
    handing each outcome to ``on_run``; returns when ``stop`` is set (or after ``max_runs``
    runs, counting the first). Returns the number of runs. Ctrl-C propagates."""
    from watchfiles import watch

    root = Path(repo).resolve()
    runs = 0

    def one(trigger: str, events: int) -> None:
        nonlocal runs
        runs += 1
        try:
            on_run(WatchRun(trigger, events, report=index()))
        except (RagstrataError, OSError) as exc:
            on_run(WatchRun(trigger, events, error=f"{type(exc).__name__}: {exc}"))

    if initial:
        one("start", 0)
    if max_runs is not None and runs >= max_runs:
        return runs
    # Files changed between the first run and the moment the native watcher is up would be
    # missed: the first quiet second after start-up runs one catch-up index (a no-op, usually).
    catch_up = initial
    for changes in watch(
        root,
        watch_filter=_ignore(root, index_dir_name),
        debounce=debounce_ms,
        step=min(50, debounce_ms),
        stop_event=stop,
        rust_timeout=1000,
        yield_on_timeout=True,
        raise_interrupt=True,
    ):
        if stop is not None and stop.is_set():
            break
        if not changes:
            if catch_up:
                catch_up = False
                _catch_up(index, on_run)
            continue
        catch_up = False
        one("change", len(_paths(changes)))
        if max_runs is not None and runs >= max_runs:
            break
    return runs


def _catch_up(index: Callable[[], IndexReport], on_run: Callable[[WatchRun], None]) -> None:
    """One index run, reported only when it found something to do."""
    try:
        report = index()
    except (RagstrataError, OSError) as exc:
        on_run(WatchRun("change", 0, error=f"{type(exc).__name__}: {exc}"))
        return
    if report.added or report.changed or report.removed:
        on_run(WatchRun("change", 0, report=report))


def _paths(changes: Iterable[tuple[object, str]]) -> set[str]:
    return {path for _, path in changes}


def describe(run: WatchRun, name: str = "") -> str:
    """One log line for a watcher run (English; paths are counts, not lists)."""
    who = f"watch {name}".strip() + ": "
    stamp = time.strftime("%H:%M:%S")
    if run.error is not None:
        return f"{who}{stamp} index failed ({run.error}); retrying on the next change"
    r = run.report
    assert r is not None
    return (
        f"{who}{stamp} {run.trigger}: {r.added} added, {r.changed} changed, {r.removed} removed, "
        f"{r.embeddings_done} embedded, {r.embeddings_pending} pending in {r.seconds:.2f} s"
    )
