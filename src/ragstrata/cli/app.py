"""The ``ragstrata`` command: the typer app, global options and error mapping.

Errors become one line on stderr and an exit code (``RagstrataError.exit_code``: 2 for user
errors and every command-line parse error, 3 for system failures, 1 for anything unexpected, 130
when interrupted); ``--debug`` shows the traceback instead. The global options ``--store`` and
``--debug`` are accepted before or after the subcommand.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from ragstrata.cli.common import make_console
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
err_console = make_console(stderr=True, soft_wrap=True)


@app.callback()
def _root(
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
    from ragstrata.cli.common import GLOBAL_FLAGS, GLOBAL_OVERRIDES

    GLOBAL_OVERRIDES.clear()
    if store:
        GLOBAL_OVERRIDES["store"] = {"url": store}
    GLOBAL_FLAGS["trust_repo_config"] = trust_repo_config


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
    debug = "--debug" in args
    _register()
    try:
        _run(args, debug)
    finally:
        # Global flags live for one invocation: an in-process caller (tests, embedders) must
        # not inherit the previous call's --store or --trust-repo-config.
        from ragstrata.cli.common import GLOBAL_FLAGS, GLOBAL_OVERRIDES

        GLOBAL_OVERRIDES.clear()
        GLOBAL_FLAGS["trust_repo_config"] = False


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
