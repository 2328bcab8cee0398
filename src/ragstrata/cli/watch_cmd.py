"""`ragstrata watch [PATH]`: index PATH, then re-index whenever its files change.

Each run is the ordinary incremental index (see :mod:`ragstrata.indexer.watch`): editors'
rename-writes, deletes and branch switches all end as the same diff of the disk against the
catalog. One line per run on stderr; ``--json`` prints one JSON object per run on stdout
(``{"trigger", "events", "report"}`` or ``{"trigger", "events", "error"}``). Ctrl-C stops.

:func:`ragstrata.app.watchers.start_watchers` is the same loop in background threads for
``serve --watch`` and ``mcp --watch``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstrata.app import (
    DEFAULT_DEBOUNCE_MS,
    MAX_DEBOUNCE_MS,
    WatchRun,
    describe,
    watch_repository,
)
from ragstrata.cli.common import GlobalOptions, edge_settings
from ragstrata.errors import RagstrataError, one_line

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata

__all__ = ["watch_command"]


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
        from ragstrata.app.facade import Ragstrata

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
    from ragstrata.app.facade import Ragstrata

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
