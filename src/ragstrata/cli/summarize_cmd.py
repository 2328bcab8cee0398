"""`ragstrata summarize [PATH]`: cached LLM summaries of files (C0) and definitions (C1).

Only summaries whose prompt changed (or all with ``--force``) are generated; ``--dry-run``
prints the number of calls and the estimated tokens and cost and spends nothing (it needs no
LLM). A real run needs an LLM (``RAGSTRATA_LLM_PROVIDER`` / ``_MODEL`` / ``_BASE_URL`` /
``_API_KEY``); the pre-flight checks run first and a ``high`` finding about the settings,
index, LLM or disk stops it. Progress is drawn on stderr; ``--json`` prints one object::

    {"dry_run": bool, "plan": SummaryPlan.to_dict(), "report": SummaryRunReport.to_dict()|null}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ragstrata.cli.common import edge_settings, make_console, print_json

if TYPE_CHECKING:
    from ragstrata.app import NO_LLM_MESSAGE, SummarizeResult, SummaryPlan, SummaryRunReport
    from ragstrata.core.values import SummaryKind

__all__ = ["NO_LLM_MESSAGE", "summarize_command"]


def _plan_line(result: SummarizeResult) -> str:
    from ragstrata.core.values import SummaryKind

    plan = result.plan
    cost = "cost unknown (no model configured)"
    if plan.cost_usd is not None:
        cost = f"≈ ${plan.cost_usd:.4f}" if result.priced else f"price unknown for {plan.model!r}"
    return (
        f"{plan.calls} calls ({plan.count(SummaryKind.DEFINITION)} definitions, "
        f"{plan.count(SummaryKind.FILE)} files; {plan.up_to_date} up to date): "
        f"≈ {plan.input_tokens} input + {plan.output_tokens} output tokens (chars/4), {cost}"
    )


def _kinds(files: bool, definitions: bool) -> list[SummaryKind]:
    from ragstrata.core.values import SummaryKind

    if files and not definitions:
        return [SummaryKind.FILE]
    if definitions and not files:
        return [SummaryKind.DEFINITION]
    return [SummaryKind.FILE, SummaryKind.DEFINITION]


def _table(plan: SummaryPlan, report: SummaryRunReport | None, console: Console) -> None:
    from rich.table import Table

    table = Table(title="ragstrata summarize" + (" (dry run)" if report is None else ""))
    table.add_column("what")
    table.add_column("value", justify="right")
    data: dict[str, Any] = plan.to_dict()
    for key in ("calls", "definitions", "files", "up_to_date", "input_tokens", "output_tokens"):
        table.add_row(f"planned {key.replace('_', ' ')}", str(data[key]))
    table.add_row(
        "estimated cost (USD)", "-" if data["cost_usd"] is None else str(data["cost_usd"])
    )
    if report is not None:
        done = report.to_dict()
        for key in ("generated", "definitions", "files", "input_tokens", "output_tokens"):
            table.add_row(f"done {key.replace('_', ' ')}", str(done[key]))
        table.add_row("cost (USD)", str(done["cost_usd"]))
    console.print(table)


def summarize_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Repository folder (default: the current folder).")
    ] = None,
    files: Annotated[bool, typer.Option("--files", help="Only file (C0) summaries.")] = False,
    definitions: Annotated[
        bool, typer.Option("--definitions", help="Only definition (C1) summaries.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Regenerate even unchanged ones.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print calls, tokens and cost; spend nothing.")
    ] = False,
    limit: Annotated[
        int | None, typer.Option("--limit", min=0, help="At most this many LLM calls.")
    ] = None,
    include_tests: Annotated[
        bool, typer.Option("--include-tests", help="Also summarize test code.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Generate cached LLM summaries (searchable text, used by docs and overview answers)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ragstrata.app.facade import Ragstrata

    root = path or Path.cwd()
    err = make_console(stderr=True, highlight=False, soft_wrap=True)
    bar = Progress(
        TextColumn("summarizing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[key]}"),
        TimeElapsedColumn(),
        console=err,
        disable=dry_run or not err.is_terminal,
    )
    task = bar.add_task("summaries", total=None, key="")

    def progress(done: int, total: int, key: str) -> None:
        bar.update(task, completed=done, total=total, key=key[-50:])

    settings = edge_settings(root if root.is_dir() else None, options=ctx.obj)
    with Ragstrata(root, settings) as rs, bar:
        result = rs.summarize(
            kinds=_kinds(files, definitions),
            include_tests=include_tests,
            force=force,
            limit=limit,
            dry_run=dry_run,
            on_plan=lambda planned: err.print(_plan_line(planned), markup=False),
            progress=progress,
        )
    if as_json:
        print_json(result.to_dict())
        return
    out = make_console(highlight=False)
    if dry_run:
        out.print(_plan_line(result), markup=False)
    _table(result.plan, result.report, out)
