"""`ragstrata index [PATH]` (build / refresh the index) and `ragstrata status [PATH]`.

Progress (files, rows, embedding batches, ETA) goes to stderr: rich bars on a terminal, one
plain line every few seconds otherwise (:mod:`ragstrata.cli.progress`). The result goes to
stdout: a summary table, or with ``--json`` exactly one JSON object
(:meth:`IndexReport.to_dict` / :meth:`IndexStatus.to_dict`). Ctrl-C keeps the finished batches
and exits 130 with one line saying how to resume.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ragstrata.cli.common import edge_settings, make_console, print_json
from ragstrata.cli.progress import PLAIN_EVERY_S, progress_view

if TYPE_CHECKING:
    from ragstrata.core.events import IndexReport, IndexStatus

__all__ = ["index_command", "status_command"]

_SHOW_PATHS = 20
_VERBS = {"added": "add", "changed": "update", "removed": "remove", "touched": "refresh"}


def _summary(report: IndexReport, console: Console) -> None:
    from rich.table import Table

    data = report.to_dict()
    table = Table(title="ragstrata index" + (" (dry run)" if report.dry_run else ""))
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in ("added", "changed", "removed", "unchanged"):
        table.add_row(f"files {key}", str(data["files"][key]))
    skipped = sum(data["files"]["skipped"].values())
    table.add_row("files skipped", str(skipped))
    for layer, count in data["rows"].items():
        table.add_row(f"rows {layer}", str(count))
    table.add_row("embedded now", str(data["embeddings"]["done"]))
    table.add_row("embeddings pending", str(data["embeddings"]["pending"]))
    table.add_row("secrets redacted", str(data["secrets"]["redacted"]))
    table.add_row("seconds", f"{data['seconds']:.2f}")
    console.print(table)
    if report.dry_run and report.estimate is not None:
        for kind, paths in report.paths.items():
            for path in paths[:_SHOW_PATHS]:
                console.print(f"would {_VERBS[kind]}: {path}", markup=False, highlight=False)
            if len(paths) > _SHOW_PATHS:
                console.print(f"... and {len(paths) - _SHOW_PATHS} more {kind}")
        est = report.estimate
        rows = ", ".join(f"{k} {v}" for k, v in est.to_dict()["rows"].items())
        console.print(
            f"estimate: {est.files} files -> rows {rows}; {est.embedding_texts} texts to embed "
            f"in {est.embedding_calls} calls; about {est.seconds:.0f} s "
            f"(sampled {est.sampled_files} files, {est.seconds_per_text * 1000:.1f} ms/text)",
            markup=False,
            highlight=False,
        )


def index_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Repository folder (default: the current folder).")
    ] = None,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Build a new index beside the old one and swap it in (recovers a damaged index).",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be indexed; write nothing.")
    ] = False,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Write rows only; leave vectors pending.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    progress_every: Annotated[
        float,
        typer.Option(
            "--progress-every",
            min=0.0,
            help="Seconds between progress lines when stderr is not a terminal.",
        ),
    ] = PLAIN_EVERY_S,
) -> None:
    """Build or refresh the index of PATH (only new and changed files are processed).

    Rows are committed before vectors: lexical, symbol and relation search work as soon as
    the rows are written; vectors are filled after them, one committed batch at a time."""
    from ragstrata.app.facade import Ragstrata

    root = path or Path.cwd()
    err = make_console(stderr=True, highlight=False, soft_wrap=True)
    with Ragstrata(root, edge_settings(root if root.is_dir() else None, options=ctx.obj)) as rs:
        try:
            with progress_view(err, every=progress_every) as view:
                report = rs.index(
                    rebuild=rebuild, dry_run=dry_run, embed=not no_embed, progress=view
                )
        except KeyboardInterrupt:
            err.print(
                "interrupted: finished batches are kept; run `ragstrata index` again to resume",
                markup=False,
            )
            raise SystemExit(130) from None  # typer.Exit is swallowed by standalone_mode=False
    for notice in report.notices:
        err.print(f"note: {notice}", markup=False)
    if as_json:
        print_json(report.to_dict())
    else:
        _summary(report, make_console(highlight=False))


def _status_table(status: IndexStatus, console: Console) -> None:
    from rich.table import Table

    data = status.to_dict()
    table = Table(title="ragstrata status")
    table.add_column("what")
    table.add_column("value", justify="right")
    for layer, count in data["rows"].items():
        table.add_row(f"rows {layer}", str(count))
    table.add_row("stale files", str(data["stale"]))
    table.add_row("pending embeddings", str(data["pending_embeddings"]))
    table.add_row("secrets redacted", str(data["secrets"]["redacted"]))
    table.add_row("fingerprint", str(data["fingerprint"]))
    table.add_row("updated at", str(data["updated_at"]))
    table.add_row("schema version", str(data["schema_version"]))
    table.add_row(
        "extraction rules",
        "current" if data["extraction_current"] else "older: run `ragstrata index`",
    )
    console.print(table)


def status_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Repository folder (default: the current folder).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show rows per layer, stale files and pending embeddings of PATH's index."""
    from ragstrata.app.facade import Ragstrata

    root = path or Path.cwd()
    with Ragstrata(root, edge_settings(root if root.is_dir() else None, options=ctx.obj)) as rs:
        status = rs.status()
    if as_json:
        print_json(status.to_dict())
    else:
        _status_table(status, make_console(highlight=False))
