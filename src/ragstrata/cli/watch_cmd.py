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

from ragstrata.app import DEFAULT_DEBOUNCE_MS, WatchRun, describe, watch_repository
from ragstrata.cli.common import edge_settings

if TYPE_CHECKING:
    pass

__all__ = ["watch_command"]


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
        typer.Option("--debounce-ms", min=10, help="Changes this close together: one run."),
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
