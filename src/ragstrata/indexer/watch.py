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

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ragstrata.core.events import IndexReport
from ragstrata.errors import ConfigError, one_line

__all__ = [
    "DEFAULT_DEBOUNCE_MS",
    "MAX_DEBOUNCE_MS",
    "WatchRun",
    "WatchStates",
    "describe",
    "watch_repository",
]

DEFAULT_DEBOUNCE_MS = 300
"""Changes closer together than this are handled by one index run."""
MAX_DEBOUNCE_MS = 60_000
"""The longest debounce accepted (one minute): a longer one would leave the index stale."""

_IGNORED_DIRS = frozenset({".git", ".hg", ".svn"})
CONFIG_FILES = ("ragstrata.toml", "pyproject.toml")
"""The repository's own settings files (see :mod:`ragstrata.settings`)."""


@dataclass(frozen=True, slots=True)
class WatchRun:
    """One index run of the watcher: why it ran, and its report or its error."""

    trigger: str  # "start" or "change"
    changed_paths: int  # file events in the batch (0 for the first run)
    report: IndexReport | None = None
    error: str | None = None
    note: str | None = None  # e.g. settings reloaded after ragstrata.toml changed


class WatchStates:
    """What each background watcher of a server is doing, for ``/healthz`` and ``/v1/status``:
    ``running``, ``restarting`` (it failed and starts again) or ``dead`` (it failed too often;
    the index no longer follows the files), with the last error. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, dict[str, object]] = {}

    def set(
        self,
        name: str,
        state: str,
        error: str | None = None,
        restarts: int = 0,
        note: str | None = None,
    ) -> None:
        """Record ``name``'s watcher state; ``note``: e.g. a restart is needed for new settings."""
        with self._lock:
            self._states[name] = {
                "state": state,
                "error": error,
                "restarts": restarts,
                "note": note,
            }

    def get(self, name: str) -> dict[str, object] | None:
        """The state of ``name``'s watcher (a copy), or None when it has none."""
        with self._lock:
            state = self._states.get(name)
            return None if state is None else dict(state)

    def snapshot(self) -> dict[str, dict[str, object]]:
        with self._lock:
            return {name: dict(state) for name, state in self._states.items()}

    def dead(self) -> list[str]:
        """Names whose watcher stopped for good."""
        with self._lock:
            return sorted(n for n, s in self._states.items() if s["state"] == "dead")


def _ignore(repo: Path, index_dir_name: str) -> Callable[[object, str], bool]:
    skip = {*_IGNORED_DIRS, index_dir_name}

    def keep(_change: object, path: str) -> bool:
        try:
            resolved = Path(path).resolve()
        except (OSError, RuntimeError):  # a symlink loop: keep the event, the walker skips it
            resolved = Path(os.path.abspath(path))
        try:
            parts = resolved.relative_to(repo).parts
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
    on_config_change: Callable[[], str | None] | None = None,
) -> int:
    """Run ``index()`` once (``initial``), then after every batch of relevant file changes,
    handing each outcome to ``on_run``; returns when ``stop`` is set (or after ``max_runs``
    runs, counting the first and a reported catch-up run). Returns the number of runs. Ctrl-C
    propagates.

    When a batch touches the repository's settings (``ragstrata.toml``, ``pyproject.toml``),
    ``on_config_change()`` runs before that batch's index run (to reload the settings, or to
    say a restart is needed); what it returns is the run's ``note``."""
    from watchfiles import watch

    if not 1 <= debounce_ms <= MAX_DEBOUNCE_MS:
        raise ConfigError(f"debounce_ms must be between 1 and {MAX_DEBOUNCE_MS}, not {debounce_ms}")
    root = Path(repo).resolve()
    runs = 0

    configs = {str(root / name) for name in CONFIG_FILES}

    def one(trigger: str, paths: set[str]) -> None:
        nonlocal runs
        runs += 1
        try:
            note = on_config_change() if on_config_change and paths & configs else None
            report = index()
        except Exception as exc:  # one failed run never ends the watcher
            on_run(WatchRun(trigger, len(paths), error=_failure(exc)))
        else:
            on_run(WatchRun(trigger, len(paths), report=report, note=note))

    if initial:
        one("start", set())
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
        if not root.is_dir():  # the native watcher would go on quietly, watching nothing
            raise FileNotFoundError(f"the repository folder {root} is gone")
        if not changes:
            if catch_up:
                catch_up = False
                if _catch_up(index, on_run):  # a reported run counts like any other
                    runs += 1
                    if max_runs is not None and runs >= max_runs:
                        break
            continue
        catch_up = False
        one("change", _paths(changes))
        if max_runs is not None and runs >= max_runs:
            break
    return runs


def _catch_up(index: Callable[[], IndexReport], on_run: Callable[[WatchRun], None]) -> bool:
    """One index run, reported only when it found something to do (or failed); True when it
    was reported."""
    try:
        report = index()
    except Exception as exc:  # one failed run never ends the watcher
        on_run(WatchRun("change", 0, error=_failure(exc)))
        return True
    if report.added or report.changed or report.removed:
        on_run(WatchRun("change", 0, report=report))
        return True
    return False


def _failure(exc: BaseException) -> str:
    """One line for a failed run: the error's type and message."""
    return f"{type(exc).__name__}: {one_line(exc)}"


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
    note = f" ({run.note})" if run.note else ""
    return (
        f"{who}{stamp} {run.trigger}: {r.added} added, {r.changed} changed, {r.removed} removed, "
        f"{r.embeddings_done} embedded, {r.embeddings_pending} pending in {r.seconds:.2f} s" + note
    )
