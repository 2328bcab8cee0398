"""The ``ragstrata`` command: the typer app, global options and error mapping.

Errors become one line on stderr and an exit code (``RagstrataError.exit_code``: 2 for user
errors, 3 for system failures, 1 for anything unexpected, 130 when interrupted); ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click
import typer
from rich.console import Console

from ragstrata.errors import RagstrataError

__all__ = ["app", "main"]

app = typer.Typer(
    name="ragstrata",
    help="Answer questions about a repository's code and docs from cited evidence.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
err_console = Console(stderr=True, soft_wrap=True)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
    store: str | None = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Index store, e.g. postgresql://user@host/db (default: SQLite in REPO/.ragstrata).",
    ),
) -> None:
    """ragstrata: layered retrieval over code (C0-C3) and docs (D0-D2)."""
    from ragstrata.cli.common import GLOBAL_OVERRIDES

    GLOBAL_OVERRIDES.clear()
    if store:
        GLOBAL_OVERRIDES["store"] = {"url": store}


def _register() -> None:
    # Each command lives in its own module; importing it registers it on ``app``.
    from ragstrata.cli import (  # noqa: F401
        ask_cmd,
        doctor_cmd,
        eval_cmd,
        gendocs_cmd,
        index_cmd,
        inspect_cmd,
        mcp_cmd,
        route_cmd,
        search_cmd,
        serve_cmd,
        summarize_cmd,
        watch_cmd,
    )


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the console script and ``python -m ragstrata``."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    _register()
    try:
        # With standalone_mode=False click returns (not raises) a command's typer.Exit code.
        code = app(args=args, prog_name="ragstrata", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        err_console.print("interrupted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        if debug:
            raise
        err_console.print("interrupted")
        sys.exit(130)
    except RagstrataError as exc:
        if debug:
            raise
        err_console.print(f"error: {_one_line(exc)}", markup=False, highlight=False)
        sys.exit(exc.exit_code)
    except Exception as exc:
        if debug:
            raise
        err_console.print(
            f"internal error: {type(exc).__name__}: {_one_line(exc)} (run with --debug for details)",
            markup=False,
            highlight=False,
        )
        sys.exit(1)
