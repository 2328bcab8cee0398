"""`ragstrata watch [PATH]`: index PATH, then re-index whenever its files change.

Each run is the ordinary incremental index (see :mod:`ragstrata.indexer.watch`): editors'
rename-writes, deletes and branch switches all end as the same diff of the disk against the
catalog. One line per run on stderr; ``--json`` prints one JSON object per run on stdout
(``{"trigger", "events", "report"}`` or ``{"trigger", "events", "error"}``). Ctrl-C stops.

:func:`start_watchers` is the same loop in background threads for ``serve --watch`` and
``mcp --watch``.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstrata.cli.common import edge_settings
from ragstrata.indexer.watch import (
    DEFAULT_DEBOUNCE_MS,
    MAX_DEBOUNCE_MS,
    WatchRun,
    WatchStates,
    describe,
    watch_repository,
)

if TYPE_CHECKING:
    from ragstrata.facade import Ragstrata
    from ragstrata.indexer import IndexReport
    from ragstrata.registry import Registry

__all__ = ["start_watchers", "watch_command"]


def _as_json(run: WatchRun) -> str:
    data: dict[str, object] = {"trigger": run.trigger, "events": run.changed_paths}
    if run.report is not None:
        data["report"] = run.report.to_dict()
    else:
        data["error"] = run.error
    return json.dumps(data, ensure_ascii=False)


def watch_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Repository folder (default: the current folder).")
    ] = None,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Write rows only; leave vectors pending.")
    ] = False,
    debounce_ms: Annotated[
        int,
        typer.Option(
            "--debounce-ms",
            min=10,
            max=MAX_DEBOUNCE_MS,
            help="Changes this close together: one run.",
        ),
    ] = DEFAULT_DEBOUNCE_MS,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per index run on stdout.")
    ] = False,
    max_runs: Annotated[
        int | None, typer.Option("--max-runs", min=1, help="Stop after this many runs.")
    ] = None,
) -> None:
    """Index PATH, then keep the index fresh as files change (Ctrl-C stops)."""
    from ragstrata.facade import Ragstrata

    root = path or Path.cwd()
    with Ragstrata(root, edge_settings(root if root.is_dir() else None, options=ctx.obj)) as rs:

        def report(run: WatchRun) -> None:
            if as_json:
                sys.stdout.write(_as_json(run) + "\n")
                sys.stdout.flush()
            typer.echo(describe(run), err=True)

        typer.echo(f"watch: watching {rs.repo} (Ctrl-C stops)", err=True)
        try:
            watch_repository(
                rs.repo,
                lambda: rs.index(embed=not no_embed),
                report,
                index_dir_name=rs.settings.store.index_dir_name,
                debounce_ms=debounce_ms,
                max_runs=max_runs,
            )
        except KeyboardInterrupt:
            typer.echo("watch: stopped", err=True)


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
) -> None:
    """Run one repository's watcher until ``stop``; when the watcher itself fails, say so on
    stderr and start it again (its first run catches up) after ``backoff_s`` doubling each
    time, up to ``max_restarts`` times, then mark it ``dead`` (``/healthz`` and ``/v1/status``
    report it)."""
    restarts = 0
    while not stop.is_set():
        states.set(name, "running", restarts=restarts)
        try:
            watch_repository(
                own.repo,
                index,
                lambda run: print(describe(run, name), file=sys.stderr, flush=True),
                index_dir_name=own.settings.store.index_dir_name,
                stop=stop,
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
) -> Callable[[], None]:
    """Watch every served repository in a daemon thread; returns a function that stops them.

    Each thread indexes through its own facade (its own store connection) that shares the
    served facade's embedder, so a server holds one model however many repositories it has.
    With the server's ``registry``, each run waits its turn behind an index job or ``reindex``
    call of the same repository (one index run at a time), and each watcher's state goes to
    ``registry.watchers`` (a failed watcher is restarted, then reported dead).
    """
    from ragstrata.facade import Ragstrata

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
                _watch_until_stopped(own, name, index, stop, states, max_restarts, backoff_s)
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
