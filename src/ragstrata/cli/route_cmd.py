"""`ragstrata route QUERY` (print the Router plan) and `ragstrata schema NAME` (JSON Schemas)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from ragstrata.cli.common import edge_settings, parse_json_arg, print_json
from ragstrata.errors import UserError

__all__ = ["SCHEMAS", "route_command", "schema_command"]


def _router_plan_schema() -> dict[str, Any]:
    from ragstrata.app import router_plan_json_schema

    return router_plan_json_schema()


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {"router-plan": _router_plan_schema}
"""Schema name -> a function returning the JSON Schema."""


def route_command(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="The question to route."),
    state: str | None = typer.Option(
        None, "--state", help="conversation_state as JSON, or @file holding JSON."
    ),
    repo_context: str | None = typer.Option(
        None, "--repo-context", help="repo_context as JSON, or @file holding JSON."
    ),
) -> None:
    """Print the Intent Router plan (schema 1.1) of QUERY as JSON."""
    from ragstrata.app.facade import router_for

    settings = edge_settings(options=ctx.obj)
    conversation_state = parse_json_arg(state, "--state")
    context = parse_json_arg(repo_context, "--repo-context")
    print_json(router_for(settings).route(query, conversation_state, context))


def schema_command(
    name: str = typer.Argument(..., help=f"Schema name: {', '.join(SCHEMAS)}."),
) -> None:
    """Print a JSON Schema of a ragstrata contract."""
    build = SCHEMAS.get(name)
    if build is None:
        raise UserError(f"unknown schema {name!r}; valid: {', '.join(sorted(SCHEMAS))}")
    print_json(build())
