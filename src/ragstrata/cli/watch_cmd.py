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

from ragstrata.cli.common import GlobalOptions, edge_settings
from ragstrata.errors import RagstrataError, one_line
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
    from ragstrata.settings import Settings

__all__ = ["start_watchers", "watch_command"]


def _as_json(run: WatchRun) -> str:
    data: dict[str, object] = {"trigger": run.trigger, "events": run.changed_paths}
    if run.report is not None:
        data["report"] = run.report.to_dict()
    else:
        data["error"] = run.error
    if run.note:
        data["note"] = run.note
    return json.dumps(data, ensure_ascii=False)


class _Current:
    """The facade ``watch`` indexes through, replaced when the repository's settings file
    changes (``ragstrata.toml``, ``pyproject.toml``): the next run follows the new settings."""

    def __init__(self, rs: Ragstrata, options: GlobalOptions | None) -> None:
        self.rs = rs
        self.options = options

    def reload(self) -> str | None:
        """Read the settings again; a note for the run (None when nothing changed)."""
        from ragstrata.facade import Ragstrata

        try:
            settings = edge_settings(self.rs.repo, options=self.options)
        except RagstrataError as exc:
            return f"settings not reloaded, the previous ones stay: {one_line(exc)}"
        old = self.rs
        if settings == old.settings:
            return None
        same_embedder = settings.embedder == old.settings.embedder
        self.rs = Ragstrata(old.repo, settings, embedder=old.embedder if same_embedder else None)
        old.close()
        return "settings reloaded from the repository's settings file"


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
    rs = Ragstrata(root, edge_settings(root if root.is_dir() else None, options=ctx.obj))
    current = _Current(rs, ctx.obj)

    def report(run: WatchRun) -> None:
        if as_json:
            sys.stdout.write(_as_json(run) + "\n")
            sys.stdout.flush()
        typer.echo(describe(run), err=True)

    typer.echo(f"watch: watching {rs.repo} (Ctrl-C stops)", err=True)
    try:
        watch_repository(
            rs.repo,
            lambda: current.rs.index(embed=not no_embed),
            report,
            index_dir_name=rs.settings.store.index_dir_name,
            debounce_ms=debounce_ms,
            max_runs=max_runs,
            on_config_change=current.reload,
        )
    except KeyboardInterrupt:
        typer.echo("watch: stopped", err=True)
    finally:
        current.rs.close()


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
