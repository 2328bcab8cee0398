"""File watchers for the servers: keep every served repository's index fresh while it runs."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ragstrata.indexer.watch import describe, watch_repository

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.registry import Registry
    from ragstrata.core.events import IndexReport

__all__ = ["start_watchers"]


def start_watchers(
    facades: Mapping[str, Ragstrata], registry: Registry | None = None
) -> Callable[[], None]:
    """Watch every served repository in a daemon thread; returns a function that stops them.

    Each thread indexes through its own facade (its own store connection) that shares the
    served facade's embedder, so a server holds one model however many repositories it has.
    With the server's ``registry``, each run waits its turn behind an index job or ``reindex``
    call of the same repository (one index run at a time).
    """
    from ragstrata.app.facade import Ragstrata

    stop = threading.Event()
    threads: list[threading.Thread] = []
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
                watch_repository(
                    own.repo,
                    index,
                    lambda run: print(describe(run, name), file=sys.stderr, flush=True),
                    index_dir_name=own.settings.store.index_dir_name,
                    stop=stop,
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
