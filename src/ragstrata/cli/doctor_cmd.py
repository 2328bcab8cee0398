"""`ragstrata doctor [PATH] [--json]`: run the pre-flight checks and print the findings.

Exit codes: 0 when nothing blocks (no finding, or only medium/low ones), 2 when a ``high``
finding blocks (the same code as the user errors ``ask`` would then raise; ``HasBlocking``).
Settings that cannot even be loaded are reported as one ``high`` ``settings`` finding, so
``--json`` always prints exactly one object::

    {"blocking": bool, "checks": [categories], "findings": [{severity, category, observation, fix}]}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ragstrata.cli.common import GlobalOptions, edge_settings, make_console, print_json
from ragstrata.errors import ConfigError, one_line

if TYPE_CHECKING:
    from ragstrata.app import PreflightResult

__all__ = ["EXIT_BLOCKING", "doctor_command"]

EXIT_BLOCKING = 2
_STYLE = {"high": "bold red", "medium": "yellow", "low": "cyan"}  # by Severity value


def _checks(root: Path, options: GlobalOptions | None) -> PreflightResult:
    from ragstrata.app import PreflightResult, Severity
    from ragstrata.app.doctor import DoctorFinding
    from ragstrata.app.facade import Ragstrata

    try:
        settings = edge_settings(root if root.is_dir() else None, options=options)
    except ConfigError as exc:
        finding = DoctorFinding(
            Severity.HIGH,
            "settings",
            one_line(exc),
            "fix the settings file or the RAGSTRATA_* variable the message names",
        )
        return PreflightResult.of([finding])
    with Ragstrata(root, settings) as rs:
        return rs.doctor()


def _table(result: PreflightResult, console: Console) -> None:
    from rich.table import Table

    from ragstrata.app.doctor import CATEGORIES

    if not result.findings:
        console.print(f"no findings ({', '.join(CATEGORIES)} checked)")
        return
    table = Table(title="ragstrata doctor")
    for column in ("severity", "category", "observation", "fix"):
        table.add_column(column, overflow="fold")
    for f in result.findings:
        table.add_row(
            f"[{_STYLE[f.severity.value]}]{f.severity.value}[/]",
            f.category,
            f.observation,
            getattr(f, "fix", ""),
        )
    console.print(table)
    if result.has_blocking():
        console.print(
            "[bold red]blocking:[/] `ragstrata ask` refuses until the high findings are fixed"
        )


def doctor_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Repository folder (default: the current folder).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check settings, index, embedder, LLM and disk; exit 2 when something blocks answers."""
    from ragstrata.app.doctor import CATEGORIES, finding_to_dict

    root = path or Path.cwd()
    result = _checks(root, ctx.obj)
    if as_json:
        print_json(
            {
                "blocking": result.has_blocking(),
                "checks": list(CATEGORIES),
                "findings": [finding_to_dict(f) for f in result.findings],
            }
        )
    else:
        _table(result, make_console(highlight=False, soft_wrap=False))
    if result.has_blocking():
        raise SystemExit(EXIT_BLOCKING)  # typer.Exit is swallowed by standalone_mode=False
