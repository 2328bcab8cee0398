"""`ragstrata mcp [--repo PATH | NAME=PATH]... [--transport stdio|http] [--host] [--port]`.

Serves the MCP tools over stdio (default; stdout carries only the protocol, logs go to
stderr) or streamable HTTP at ``http://HOST:PORT/mcp``. MCP over HTTP has no authentication
here, so it binds to loopback only.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from ragstrata.cli.common import (
    ServedRepos,
    WarmUp,
    WatchFlag,
    edge_settings,
    is_loopback,
    open_served,
)
from ragstrata.errors import ConfigError

if TYPE_CHECKING:
    from ragstrata.mcp.repos import RepoSet

__all__ = ["TransportChoice", "check_loopback", "mcp_command"]


class TransportChoice(StrEnum):
    """How the MCP server talks to its client."""

    STDIO = "stdio"
    HTTP = "http"


def check_loopback(host: str) -> str:
    """``host`` when it is a loopback address or ``localhost``; else a ``ConfigError``."""
    if not is_loopback(host):
        raise ConfigError(
            f"--host {host!r} is not loopback; the MCP HTTP transport has no authentication, "
            "so it binds to 127.0.0.1, ::1 or localhost only (tunnel it to reach it remotely)"
        )
    return host


def mcp_command(
    ctx: typer.Context,
    repo: ServedRepos = None,
    transport: Annotated[
        TransportChoice, typer.Option("--transport", help="stdio, or streamable http.")
    ] = TransportChoice.STDIO,
    host: Annotated[str, typer.Option("--host", help="HTTP bind address (loopback).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="HTTP port.")] = 8766,
    watch: WatchFlag = False,
) -> None:
    """Serve the repository tools to coding agents over MCP (Model Context Protocol)."""
    from ragstrata.mcp.repos import RepoSet

    if transport is TransportChoice.HTTP:
        check_loopback(host)
    facades = open_served(repo, ctx.obj)
    logging.basicConfig(level=logging.WARNING)  # stderr: stdout belongs to the protocol
    repos = RepoSet(facades)
    warm_up = WarmUp(repos)
    stop_watching = None
    if watch:
        from ragstrata.app.watchers import start_watchers

        stop_watching = start_watchers(
            facades, repos, settings_for=lambda folder: edge_settings(folder, options=ctx.obj)
        )
    try:
        if transport is TransportChoice.STDIO:
            _serve_stdio(repos, warm_up)
        else:
            from ragstrata.mcp.server import build_server, run_server

            server = build_server(repos)
            warm_up.start()
            run_server(server, "http", host, port)
    finally:
        warm_up.stop()
        if stop_watching is not None:
            stop_watching()
        repos.close()


def _serve_stdio(repos: RepoSet, warm_up: WarmUp) -> None:
    """stdio: ``initialize`` is answered before the MCP SDK is imported (most of a second),
    then the SDK serves the same wire; the warm-up starts after the SDK's first reply."""
    from ragstrata.core.version import __version__
    from ragstrata.mcp.descriptions import INSTRUCTIONS
    from ragstrata.mcp.early import answer_initialize, claimed_std

    with claimed_std() as (reader, writer):
        early = answer_initialize(reader, writer, "ragstrata", __version__, INSTRUCTIONS)
        from ragstrata.mcp.server import build_server, run_server

        server = build_server(repos)
        server.on_first_reply = warm_up.start
        server.claimed = (reader, writer, early)
        run_server(server, "stdio")
