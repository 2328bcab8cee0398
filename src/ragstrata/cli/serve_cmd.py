"""`ragstrata serve`: the HTTP API and the web page for one or more repositories.

Each ``--repo`` is a folder (named by its folder name) or ``NAME=PATH``. The server binds to
loopback by default; any other host needs an API token, read from the environment variable
named by ``--token-env`` (a token never appears as a flag value in process lists).
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ragstrata.cli.common import (
    ServedRepos,
    WatchFlag,
    edge_settings,
    is_loopback,
    open_served,
    parse_repo_arg,
    start_warm_up,
)
from ragstrata.errors import ConfigError

__all__ = ["is_loopback", "parse_repo_arg", "serve_command"]

DEFAULT_TOKEN_ENV = "RAGSTRATA_API_TOKEN"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def serve_command(
    ctx: typer.Context,
    repo: ServedRepos = None,
    host: Annotated[str, typer.Option("--host", help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port.")] = 8765,
    token_env: Annotated[
        str,
        typer.Option(
            "--token-env",
            help="Environment variable holding the API token (required off loopback).",
        ),
    ] = DEFAULT_TOKEN_ENV,
    max_body_bytes: Annotated[
        int,
        typer.Option(
            "--max-body-bytes",
            min=1024,
            max=64 * 1024 * 1024,
            help="Largest request body accepted.",
        ),
    ] = 64 * 1024,
    watch: WatchFlag = False,
) -> None:
    """Serve the HTTP API (/v1/...) and the web page (/) for the given repositories."""
    import uvicorn

    from ragstrata.http import create_app

    token = os.environ.get(token_env) or None
    if token is not None and not token.strip():
        token = None
    if not is_loopback(host) and token is None:
        raise ConfigError(
            f"refusing to bind {host}: serving beyond loopback needs an API token; "
            f"set the environment variable {token_env}"
        )
    from ragstrata.app.registry import Registry
    from ragstrata.http.state import INDEX_HINT

    repos = open_served(repo, ctx.obj)
    # On loopback, accept only loopback Host headers (no DNS rebinding from a web page).
    named = f"[{host.strip('[]')}]" if ":" in host else host
    hosts = (*LOOPBACK_HOSTS, named.lower()) if is_loopback(host) else None
    served = Registry(repos, index_hint=INDEX_HINT)
    application = create_app(
        served, token=token, max_body_bytes=max_body_bytes, allowed_hosts=hosts
    )
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"ragstrata: serving {', '.join(sorted(repos))} at http://{shown}:{port}/"
        + (" (token required)" if token else ""),
        err=True,
    )
    stop_warming = start_warm_up(served)
    stop_watching = None
    if watch:
        from ragstrata.app.watchers import start_watchers

        stop_watching = start_watchers(
            repos, served, settings_for=lambda folder: edge_settings(folder, options=ctx.obj)
        )
    try:
        uvicorn.run(application, host=host, port=port, log_level="info", server_header=False)
    finally:
        stop_warming()
        if stop_watching is not None:
            stop_watching()
