"""What each MCP tool does: plain functions over the served
:class:`~ragstrata.app.registry.Registry` that return a :class:`ToolOutput`.

They parse nothing MCP-specific and hold no retrieval or resolution logic: each calls one
facade method, shapes its JSON-ready result and renders the text view. Errors are raised as
``ragstrata.errors`` exceptions; ``server.py`` turns them into MCP tool errors. The one
deliberate non-error failure is an unknown symbol, returned as an error output that lists
similar names so the agent can retry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragstrata.app import MAX_SOURCE_LINES, REFERENCE_KINDS
from ragstrata.core.checks import parse_direction
from ragstrata.core.values import Direction
from ragstrata.errors import InvalidQueryError
from ragstrata.mcp import render

if TYPE_CHECKING:
    from ragstrata.app.registry import Registry
    from ragstrata.core.events import IndexEvent

__all__ = [
    "MAX_SOURCE_LINES",
    "REFERENCE_KINDS",
    "ToolOutput",
    "ask",
    "find_references",
    "get_definition",
    "index_status",
    "reindex",
    "route_question",
    "search_code",
]

_DEFINITIONS = 10
_CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool's structured result, its text rendering, and whether it is an error."""

    data: dict[str, Any]
    text: str
    is_error: bool = False


def _query(text: str, what: str = "query") -> str:
    if not text or not text.strip():
        raise InvalidQueryError(f"empty {what}; ask something about the repository")
    return text


def _hits_with_citations(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**h, "citation": render.citation(h["path"], h["start_line"], h["end_line"])} for h in hits
    ]


def route_question(
    repos: Registry, query: str, conversation_state: dict[str, Any] | None, repo: str | None
) -> ToolOutput:
    """The router plan (no index needed)."""
    with repos.reading(repo, indexed=False, first_when_omitted=True) as (_name, rs):
        plan = rs.route(_query(query), conversation_state)
    return ToolOutput(plan, render.render_plan(plan))


def search_code(
    repos: Registry, query: str, top_k: int, layers: Sequence[str] | None, repo: str | None
) -> ToolOutput:
    """``{"repo", "plan", "hits"}`` with a ``citation`` on every hit."""
    with repos.reading(repo) as (name, rs):
        result = rs.search(_query(query), layers=list(layers) if layers else None, top_k=top_k)
    data = result.to_dict()
    data["hits"] = _hits_with_citations(data["hits"])
    text = render.render_hits(data["hits"])
    return ToolOutput({"repo": name, **data}, f"{render.render_plan(data['plan'])}\n\n{text}")


def ask(
    repos: Registry, query: str, session: str | None, top_k: int, repo: str | None
) -> ToolOutput:
    """``AskResult.to_dict()`` plus ``repo``; the text is the answer with its citations."""
    with repos.reading(repo) as (name, rs):
        result = rs.ask(_query(query, "question"), session=session or None, top_k=top_k)
    data = result.to_dict()
    data["hits"] = _hits_with_citations(data["hits"])
    return ToolOutput({"repo": name, **data}, render.render_answer(data))


def _cited(item: dict[str, Any]) -> dict[str, Any]:
    """A definition (``start_line``-``end_line``) or a relation (``line``) with its citation."""
    start = int(item.get("start_line", item.get("line", 1)))
    end = int(item.get("end_line", start))
    return {**item, "citation": render.citation(item["path"], start, end)}


def _not_found(name: str, symbol: str, what: str, candidates: list[dict[str, Any]]) -> ToolOutput:
    near = [{k: c[k] for k in ("symbol", "kind", "citation", "score")} for c in candidates]
    if near:
        hint = "did you mean one of these? call again with the exact name"
    else:
        hint = "no similar names either; try search_code with a description instead"
    message = f"no {what} {symbol!r} in repository {name!r}; {hint}"
    data = {
        "error": {"code": "symbol_not_found", "message": message},
        "repo": name,
        "symbol": symbol,
        "candidates": near,
    }
    return ToolOutput(data, render.render_candidates(message, near), is_error=True)


def get_definition(repos: Registry, symbol: str, repo: str | None) -> ToolOutput:
    """C1 definitions of ``symbol`` with source, best first (``Ragstrata.definition``);
    unknown -> error with candidates."""
    symbol = _query(symbol, "symbol").strip()
    with repos.reading(repo) as (name, rs):
        result = rs.definition(symbol, limit=_DEFINITIONS).to_dict()
    candidates = [_cited(c) for c in result["candidates"][:_CANDIDATES]]
    if not result["found"]:
        return _not_found(name, symbol, "definition of", candidates)
    data = {
        "repo": name,
        "symbol": symbol,
        "match": result["match"],
        "definitions": [_cited(d) for d in result["definitions"]],
    }
    return ToolOutput(data, render.render_definitions(data))


def find_references(
    repos: Registry, symbol: str, direction: str, limit: int, repo: str | None
) -> ToolOutput:
    """C2 relations into (callers) or out of (callees) ``symbol``, each with path:line
    (``Ragstrata.references``)."""
    symbol = _query(symbol, "symbol").strip()
    side = parse_direction(direction)
    with repos.reading(repo) as (name, rs):
        result = rs.references(symbol, limit=limit).to_dict()
    if not result["found"]:
        candidates = [_cited(c) for c in result["candidates"][:_CANDIDATES]]
        return _not_found(name, symbol, "symbol", candidates)
    data = {
        "repo": name,
        "symbol": symbol,
        "resolved_symbol": result["symbol"],
        "direction": Direction(side).value,
        "references": [_cited(r) for r in result[Direction(side).value]],
    }
    return ToolOutput(data, render.render_references(data))


def index_status(repos: Registry, repo: str | None) -> ToolOutput:
    """``IndexStatus.to_dict()`` plus ``repo``, ``index_dir`` and, under ``mcp --watch``, the
    file ``watcher``'s state (``running``, ``restarting``, ``dead``)."""
    with repos.reading(repo, during_rebuild=True) as (name, rs):
        data = {"repo": name, "index_dir": str(rs.index_dir), **rs.status().to_dict()}
    watcher = repos.watchers.get(name)
    if watcher is not None:
        data["watcher"] = watcher
    return ToolOutput(data, render.render_status(data))


def reindex(
    repos: Registry,
    rebuild: bool,
    repo: str | None,
    progress: Callable[[IndexEvent], None] | None = None,
) -> ToolOutput:
    """Run the incremental index (or a full rebuild); ``IndexReport.to_dict()`` plus ``repo``.
    One run per repository at a time: a second call waits for the running one (a tool call
    blocks anyway), then runs (an HTTP index job fails fast with ``index_busy`` instead)."""
    with repos.claim_index(repo, owner="a reindex call", rebuild=rebuild, wait=True) as claim:
        name, rs = claim.name, repos.get(claim.name)
        report = rs.index(rebuild=rebuild, progress=progress)
    data = {"repo": name, **report.to_dict()}
    return ToolOutput(data, render.render_report(data))
