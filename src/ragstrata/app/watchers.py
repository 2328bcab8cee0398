"""File watchers for the servers: keep every served repository's index fresh while it runs.

A watcher that fails is restarted with a growing pause and, after :data:`MAX_WATCH_RESTARTS`
failures in a row, reported dead (``/healthz``, ``/v1/status`` and ``index_status`` say so);
an edit of the repository's settings file is reported as needing a restart.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ragstrata.errors import RagstrataError, one_line
from ragstrata.indexer.watch import WatchStates, describe, watch_repository

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.registry import Registry
    from ragstrata.core.events import IndexReport
    from ragstrata.settings import Settings

__all__ = ["MAX_WATCH_RESTARTS", "start_watchers"]

MAX_WATCH_RESTARTS = 5
"""A server's watcher that fails more often than this in a row is reported dead."""


def _watch_until_stopped(
    own: Ragstrata,
    name: str,
    index: Callable[[], IndexReport],
    stop: threading.Event,
    states: WatchStates,
    max_restarts: int = MAX_WATCH_RESTARTS,
    backoff_s: float = 1.0,
    settings_for: Callable[[Path], Settings] | None = None,
) -> None:
    """Run one repository's watcher until ``stop``; when the watcher itself fails, say so on
    stderr and start it again (its first run catches up) after ``backoff_s`` doubling each
    time, up to ``max_restarts`` times, then mark it ``dead`` (``/healthz`` and ``/v1/status``
    report it). A changed settings file (``settings_for`` reads it again) cannot change a
    running server's settings: the watcher's state and stderr say a restart is needed."""
    restarts = 0
    note: list[str] = []

    def config_changed() -> str | None:
        if settings_for is None:
            return None
        try:
            changed = settings_for(own.repo) != own.settings
        except RagstrataError as exc:
            note[:] = [f"the repository's settings file is invalid now: {one_line(exc)}"]
        else:
            if not changed:
                return None
            note[:] = ["the repository's settings file changed: restart the server to apply it"]
        states.set(name, "running", restarts=restarts, note=note[0])
        return note[0]

    while not stop.is_set():
        states.set(name, "running", restarts=restarts, note=note[0] if note else None)
        try:
            watch_repository(
                own.repo,
                index,
                lambda run: print(describe(run, name), file=sys.stderr, flush=True),
                index_dir_name=own.settings.store.index_dir_name,
                stop=stop,
                on_config_change=config_changed,
            )
            states.set(name, "stopped", restarts=restarts)
            return
        except Exception as exc:  # the server goes on; its index must not go silently stale
            error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            if restarts >= max_restarts:
                states.set(name, "dead", error, restarts)
                print(
                    f"watch {name}: the watcher died ({error}); the index no longer "
                    "follows file changes: restart the server",
                    file=sys.stderr,
                    flush=True,
                )
                return
            restarts += 1
            states.set(name, "restarting", error, restarts)
            print(
                f"watch {name}: the watcher failed ({error}); restarting it",
                file=sys.stderr,
                flush=True,
            )
            stop.wait(min(backoff_s * 2.0 ** (restarts - 1), 30.0))


def start_watchers(
    facades: Mapping[str, Ragstrata],
    registry: Registry | None = None,
    *,
    max_restarts: int = MAX_WATCH_RESTARTS,
    backoff_s: float = 1.0,
    settings_for: Callable[[Path], Settings] | None = None,
) -> Callable[[], None]:
    """Watch every served repository in a daemon thread; returns a function that stops them.

    Each thread indexes through its own facade (its own store connection) that shares the
    served facade's embedder, so a server holds one model however many repositories it has.
    With the server's ``registry``, each run waits its turn behind an index job or ``reindex``
    call of the same repository (one index run at a time), and each watcher's state goes to
    ``registry.watchers`` (a failed watcher is restarted, then reported dead). With
    ``settings_for`` (how the server read each repository's settings), an edit that changes
    them is reported as needing a restart.
    """
    from ragstrata.app.facade import Ragstrata

    stop = threading.Event()
    threads: list[threading.Thread] = []
    states = registry.watchers if registry is not None else WatchStates()
    for name, served in facades.items():
        own = Ragstrata(served.repo, served.settings, embedder=served.embedder)

        def index(own: Ragstrata = own, name: str = name) -> IndexReport:
            if registry is None:
                return own.index()
            with registry.claim_index(name, owner="the file watcher", wait=True):
                return own.index()

        def loop(
            own: Ragstrata = own, name: str = name, index: Callable[[], IndexReport] = index
        ) -> None:
            try:
                _watch_until_stopped(
                    own, name, index, stop, states, max_restarts, backoff_s, settings_for
                )
            finally:
                own.close()

        thread = threading.Thread(target=loop, name=f"ragstrata-watch-{name}", daemon=True)
        thread.start()
        threads.append(thread)

    def close() -> None:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)

    return close
