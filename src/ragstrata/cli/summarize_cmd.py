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
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ragstrata.cli.app import app
from ragstrata.cli.common import edge_settings, make_console, print_json
from ragstrata.errors import ConfigError, IndexMissingError
from ragstrata.facade import Ragstrata
from ragstrata.llm.summaries import PriceFunction, SummaryPlan, SummaryPlanner, SummaryRunReport
from ragstrata.settings import Settings
from ragstrata.store.base import SummaryKind

__all__ = ["NO_LLM_MESSAGE", "summarize_command"]

NO_LLM_MESSAGE = (
    "no LLM configured for summaries: set RAGSTRATA_LLM_PROVIDER (openai or ollama), "
    "RAGSTRATA_LLM_MODEL, RAGSTRATA_LLM_BASE_URL and RAGSTRATA_LLM_API_KEY "
    "(or the [llm] section of ~/.config/ragstrata/config.toml); --dry-run works without one"
)
_PREFLIGHT_CATEGORIES = frozenset({"settings", "index", "schema", "llm", "disk"})


def _price(settings: Settings) -> tuple[PriceFunction | None, bool]:
    """A price function for the configured model and whether the model has a listed price."""
    model = settings.llm.model
    if not model:
        return None, False
    from ragstrata.llm.pricing import PriceTable

    table = PriceTable.load(getattr(settings.llm, "price_file", None))

    def price(name: str, input_tokens: int, output_tokens: int) -> float:
        found = table.get(name)
        return found.cost(input_tokens, output_tokens) if found else 0.0

    return price, model in table


def _plan_line(plan: SummaryPlan, priced: bool) -> str:
    cost = "cost unknown (no model configured)"
    if plan.cost_usd is not None:
        cost = f"≈ ${plan.cost_usd:.4f}" if priced else f"price unknown for {plan.model!r}"
    return (
        f"{plan.calls} calls ({plan.count(SummaryKind.DEFINITION)} definitions, "
        f"{plan.count(SummaryKind.FILE)} files; {plan.up_to_date} up to date): "
        f"≈ {plan.input_tokens} input + {plan.output_tokens} output tokens (chars/4), {cost}"
    )


def _run(
    rs: Ragstrata, planner: SummaryPlanner, force: bool, limit: int | None
) -> SummaryRunReport:
    err = make_console(stderr=True, highlight=False, soft_wrap=True)
    runner = rs.runner
    if runner is None:
        raise ConfigError(NO_LLM_MESSAGE)
    with Progress(
        TextColumn("summarizing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[key]}"),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("summaries", total=None, key="")

        def progress(done: int, total: int, key: str) -> None:
            bar.update(task, completed=done, total=total, key=key[-50:])

        return planner.run(runner, force=force, limit=limit, progress=progress)


def _table(plan: SummaryPlan, report: SummaryRunReport | None, console: Console) -> None:
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


@app.command("summarize")
def summarize_command(
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
    root = path or Path.cwd()
    settings = edge_settings(root if root.is_dir() else None)
    if not dry_run and settings.llm.provider == "none":
        raise ConfigError(NO_LLM_MESSAGE)
    kinds = [SummaryKind.FILE] if files and not definitions else []
    if definitions and not files:
        kinds = [SummaryKind.DEFINITION]
    kinds = kinds or [SummaryKind.FILE, SummaryKind.DEFINITION]
    price, priced = _price(settings)
    err = make_console(stderr=True, highlight=False, soft_wrap=True)
    with Ragstrata(root, settings) as rs:
        if not rs.has_index():
            raise IndexMissingError(f"no index at {rs.index_dir}; run `ragstrata index {rs.repo}`")
        planner = SummaryPlanner(
            rs.store,
            rs.repo,
            kinds=kinds,
            include_tests=include_tests,
            model=settings.llm.model or "",
            price=price,
        )
        plan = planner.plan(force=force, limit=limit)
        report = None
        if not dry_run:
            from ragstrata.doctor import blocking_error

            error = blocking_error(
                rs.doctor(), action="summarize", categories=_PREFLIGHT_CATEGORIES
            )
            if error is not None:
                raise error
            err.print(_plan_line(plan, priced), markup=False)
            report = _run(rs, planner, force, limit) if plan.calls else None
    if as_json:
        print_json(
            {
                "dry_run": dry_run,
                "plan": plan.to_dict(),
                "report": None if report is None else report.to_dict(),
            }
        )
    else:
        out = make_console(highlight=False)
        if dry_run:
            out.print(_plan_line(plan, priced), markup=False)
        _table(plan, report, out)
