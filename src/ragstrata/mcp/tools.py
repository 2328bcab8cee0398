"""What each MCP tool does, as plain functions over :class:`RepoSet` -> :class:`ToolOutput`.

They parse nothing MCP-specific and hold no retrieval logic: each calls one facade (or store)
method, shapes its JSON-ready result and renders the text view. Errors are raised as
``ragstrata.errors`` exceptions; ``server.py`` turns them into MCP tool errors. The one
deliberate non-error failure is an unknown symbol, returned as an error output that lists
similar names so the agent can retry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragstrata.errors import InvalidQueryError
from ragstrata.ingest.rows import DefinitionRow, RelationRow
from ragstrata.mcp import render
from ragstrata.store.base import Direction, ScoredRow, SymbolMode, parse_direction

if TYPE_CHECKING:
    from ragstrata.indexer import IndexEvent
    from ragstrata.mcp.repos import RepoSet

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

MAX_SOURCE_LINES = 300
"""Definition source longer than this is cut (the citation still spans the whole definition)."""
REFERENCE_KINDS: tuple[str, ...] = ("calls", "imports", "inherits", "implements")
"""C2 relation kinds ``find_references`` follows (``contains`` is structure, not a usage)."""
_FUZZY_ACCEPT = 0.95  # same letters ignoring case and _/- (http_client ~ HttpClient)
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
    repos: RepoSet, query: str, conversation_state: dict[str, Any] | None, repo: str | None
) -> ToolOutput:
    """The router plan (no index needed)."""
    with repos.use(repo, indexed=False) as (_name, rs):
        plan = rs.route(_query(query), conversation_state)
    return ToolOutput(plan, render.render_plan(plan))


def search_code(
    repos: RepoSet, query: str, top_k: int, layers: Sequence[str] | None, repo: str | None
) -> ToolOutput:
    """``{"repo", "plan", "hits"}`` with a ``citation`` on every hit."""
    with repos.use(repo) as (name, rs):
        result = rs.search(_query(query), layers=list(layers) if layers else None, top_k=top_k)
    data = result.to_dict()
    data["hits"] = _hits_with_citations(data["hits"])
    text = render.render_hits(data["hits"])
    return ToolOutput({"repo": name, **data}, f"{render.render_plan(data['plan'])}\n\n{text}")


def ask(
    repos: RepoSet, query: str, session: str | None, top_k: int, repo: str | None
) -> ToolOutput:
    """``AskResult.to_dict()`` plus ``repo``; the text is the answer with its citations."""
    with repos.use(repo) as (name, rs):
        result = rs.ask(_query(query, "question"), session=session or None, top_k=top_k)
    data = result.to_dict()
    data["hits"] = _hits_with_citations(data["hits"])
    return ToolOutput({"repo": name, **data}, render.render_answer(data))


def _definition(hit: ScoredRow) -> dict[str, Any]:
    row = hit.row
    assert isinstance(row, DefinitionRow)
    lines = row.text.splitlines()
    return {
        "symbol": row.symbol,
        "name": row.name,
        "kind": row.kind,
        "path": row.path,
        "start_line": row.start_line,
        "end_line": row.end_line,
        "citation": render.citation(row.path, row.start_line, row.end_line),
        "signature": row.signature,
        "docstring": row.docstring,
        "decorators": list(row.decorators),
        "parent": row.parent,
        "language": row.language,
        "is_test": row.is_test,
        "score": round(hit.score, 6),
        "source": "\n".join(lines[:MAX_SOURCE_LINES]),
        "source_truncated": len(lines) > MAX_SOURCE_LINES,
    }


def _lookup(repos: RepoSet, rs_name: str, symbol: str) -> tuple[str, list[ScoredRow]]:
    """Exact short name, then dotted suffix / qualified name, then same-letters fuzzy."""
    store = repos.facades[rs_name].store
    for mode in (SymbolMode.EXACT, SymbolMode.SUFFIX):
        found = store.lookup_symbol(symbol, mode, limit=_DEFINITIONS)
        if found:
            return mode.value, found
    fuzzy = store.lookup_symbol(symbol, SymbolMode.FUZZY, limit=_DEFINITIONS)
    return SymbolMode.FUZZY.value, [h for h in fuzzy if h.score >= _FUZZY_ACCEPT]


def _not_found(repos: RepoSet, name: str, symbol: str, what: str) -> ToolOutput:
    store = repos.facades[name].store
    near = store.lookup_symbol(symbol, SymbolMode.FUZZY, limit=_CANDIDATES)
    candidates = [
        {k: d[k] for k in ("symbol", "kind", "citation", "score")} for d in map(_definition, near)
    ]
    if candidates:
        hint = "did you mean one of these? call again with the exact name"
    else:
        hint = "no similar names either; try search_code with a description instead"
    message = f"no {what} {symbol!r} in repository {name!r}; {hint}"
    data = {
        "error": {"code": "symbol_not_found", "message": message},
        "repo": name,
        "symbol": symbol,
        "candidates": candidates,
    }
    return ToolOutput(data, render.render_candidates(message, candidates), is_error=True)


def get_definition(repos: RepoSet, symbol: str, repo: str | None) -> ToolOutput:
    """C1 definitions of ``symbol`` with source, best first; unknown -> error with candidates."""
    symbol = _query(symbol, "symbol").strip()
    with repos.use(repo) as (name, _rs):
        match, found = _lookup(repos, name, symbol)
        if not found:
            return _not_found(repos, name, symbol, "definition of")
        data = {
            "repo": name,
            "symbol": symbol,
            "match": match,
            "definitions": [_definition(h) for h in found],
        }
    return ToolOutput(data, render.render_definitions(data))


def _reference(hit: ScoredRow) -> dict[str, Any]:
    row = hit.row
    assert isinstance(row, RelationRow)
    line = row.line or row.start_line
    return {
        "path": row.path,
        "line": line,
        "citation": render.citation(row.path, line),
        "relation": row.relation,
        "from_symbol": row.from_symbol,
        "to_name": row.to_name,
        "to_symbol": row.to_symbol,
        "resolved": row.to_symbol is not None,
        "is_test": row.is_test,
        "score": round(hit.score, 6),
    }


def find_references(
    repos: RepoSet, symbol: str, direction: str, limit: int, repo: str | None
) -> ToolOutput:
    """C2 relations into (callers) or out of (callees) ``symbol``, each with path:line."""
    symbol = _query(symbol, "symbol").strip()
    side = parse_direction(direction)
    with repos.use(repo) as (name, rs):
        found = rs.store.relations(symbol, side, kinds=REFERENCE_KINDS, limit=limit)
        if not found and not _lookup(repos, name, symbol)[1]:
            return _not_found(repos, name, symbol, "symbol")
    data = {
        "repo": name,
        "symbol": symbol,
        "direction": Direction(side).value,
        "references": [_reference(h) for h in found],
    }
    return ToolOutput(data, render.render_references(data))


def index_status(repos: RepoSet, repo: str | None) -> ToolOutput:
    """``IndexStatus.to_dict()`` plus ``repo`` and ``index_dir``."""
    with repos.use(repo) as (name, rs):
        data = {"repo": name, "index_dir": str(rs.index_dir), **rs.status().to_dict()}
    return ToolOutput(data, render.render_status(data))


def reindex(
    repos: RepoSet,
    rebuild: bool,
    repo: str | None,
    progress: Callable[[IndexEvent], None] | None = None,
) -> ToolOutput:
    """Run the incremental index (or a full rebuild); ``IndexReport.to_dict()`` plus ``repo``."""
    with repos.use(repo, indexed=False) as (name, rs):
        report = rs.index(rebuild=rebuild, progress=progress)
    data = {"repo": name, **report.to_dict()}
    return ToolOutput(data, render.render_report(data))
