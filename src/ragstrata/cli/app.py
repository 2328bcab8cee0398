"""The ``ragstrata`` command: the typer app, global options and error mapping.

Errors become one line on stderr and an exit code (``RagstrataError.exit_code``: 2 for user
errors and every command-line parse error, 3 for system failures, 1 for anything unexpected, 130
when interrupted); ``--debug`` shows the traceback instead. The global options ``--store`` and
``--debug`` are accepted before or after the subcommand.

Commands are plain functions in the ``*_cmd`` modules, registered here by name (:data:`COMMANDS`);
no command module imports this one, so there is no import cycle. The global options travel on
the click context: the root callback puts a :class:`~ragstrata.cli.common.GlobalOptions` on
``ctx.obj`` and each command hands ``ctx.obj`` to ``edge_settings`` — nothing outlives one
invocation.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import typer

from ragstrata.cli import (
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
from ragstrata.cli.common import GlobalOptions, err_console
from ragstrata.errors import RagstrataError

__all__ = ["COMMANDS", "app", "main"]

COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("index", index_cmd.index_command),
    ("status", index_cmd.status_command),
    ("search", search_cmd.search_command),
    ("ask", ask_cmd.ask_command),
    ("gendocs", gendocs_cmd.gendocs_command),
    ("route", route_cmd.route_command),
    ("schema", route_cmd.schema_command),
    ("inspect", inspect_cmd.inspect),
    ("doctor", doctor_cmd.doctor_command),
    ("summarize", summarize_cmd.summarize_command),
    ("eval", eval_cmd.eval_command),
    ("serve", serve_cmd.serve_command),
    ("mcp", mcp_cmd.mcp_command),
    ("watch", watch_cmd.watch_command),
)
"""Every command: its name and the function typer turns into it."""

app = typer.Typer(
    name="ragstrata",
    help="Answer questions about a repository's code and docs from cited evidence.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


@app.callback()
def _root(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
    store: str | None = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Index store, e.g. postgresql://user@host/db (default: SQLite in REPO/.ragstrata).",
    ),
    trust_repo_config: bool = typer.Option(
        False,
        "--trust-repo-config",
        help="Let the repository's ragstrata.toml set any key (providers, URLs, credentials).",
    ),
) -> None:
    """ragstrata: layered retrieval over code (C0-C3) and docs (D0-D2)."""
    ctx.obj = GlobalOptions(store=store or None, trust_repo_config=trust_repo_config)


for _name, _command in COMMANDS:
    app.command(_name)(_command)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


_GLOBAL_VALUE_OPTIONS = ("--store",)
_GLOBAL_FLAGS = ("--debug", "--trust-repo-config")


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """Move global options given after the subcommand (``index . --store URL``) before it.

    Only tokens before a ``--`` separator move; ``--store=URL`` and ``--store URL`` both work.
    """
    head: list[str] = []
    rest = list(args)
    moved: list[str] = []
    while rest and rest[0].startswith("-"):  # options before the subcommand stay where they are
        token = rest.pop(0)
        head.append(token)
        if token in _GLOBAL_VALUE_OPTIONS and rest:
            head.append(rest.pop(0))
    tail: list[str] = []
    i = 0
    while i < len(rest):
        token = rest[i]
        if token == "--":
            tail.extend(rest[i:])
            break
        if token in _GLOBAL_VALUE_OPTIONS:
            if i + 1 == len(rest):  # no value: let the parser say "requires an argument"
                return [*head, *moved, token]
            moved += [token, rest[i + 1]]
            i += 2
            continue
        if token.split("=", 1)[0] in _GLOBAL_VALUE_OPTIONS or (token in _GLOBAL_FLAGS and tail):
            moved.append(token)
        else:
            tail.append(token)
        i += 1
    return head + moved + tail


def _usage_error(exc: typer.TyperException) -> str:
    """A command-line parse error as one line: the command, what was wrong, where to look."""
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", None) or "ragstrata"
    message = " ".join(exc.format_message().split())
    return f"error: {command}: {message} (see '{command} --help')"


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the console script and ``python -m ragstrata``."""
    args = hoist_global_options(sys.argv[1:] if argv is None else argv)
    # The global flags live on this invocation's click context only (ctx.obj): an in-process
    # caller (tests, embedders) never inherits the previous call's --store or
    # --trust-repo-config.
    _run(args, "--debug" in args)


def _run(args: list[str], debug: bool) -> None:
    try:
        # With standalone_mode=False the app returns (not raises) a command's typer.Exit code.
        code = app(args=args, prog_name="ragstrata", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err_console.print("interrupted")
        sys.exit(130)
    except typer.TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            err_console.print(exc.format_message(), markup=False, highlight=False)
        else:
            err_console.print(_usage_error(exc), markup=False, highlight=False)
        sys.exit(2)
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
