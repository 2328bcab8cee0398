"""The ragstrata MCP server, built with the official SDK's ``MCPServer``.

Seven tools over the library facade (see :mod:`ragstrata.mcp.descriptions` for what an agent
reads): ``route_question``, ``search_code``, ``ask``, ``get_definition``, ``find_references``,
``index_status``, ``reindex``. Every result carries ``structuredContent`` (JSON) and a compact
text rendering with ``path:start-end`` citations. Errors never end the server: a
``RagstrataError`` or bad argument becomes an ``isError`` result whose text is one line
(``error (code): message``) and whose structured content is ``{"error": {"code", "message"}}``.

::

    server = build_server(RepoSet({"app": Ragstrata(Path("."), settings)}))  # mcp.repos
    run_server(server, "stdio")
"""

import logging
import threading
import time
from collections.abc import Callable
from typing import IO, Annotated, Any, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, StrictBool, ValidationError

from ragstrata.app.registry import Registry
from ragstrata.core.events import IndexEvent
from ragstrata.core.version import __version__
from ragstrata.errors import RagstrataError
from ragstrata.mcp import tools
from ragstrata.mcp.descriptions import INSTRUCTIONS, TOOLS
from ragstrata.mcp.early import EarlyStart

__all__ = [
    "LAYERS",
    "RagstrataMCPServer",
    "Transport",
    "build_server",
    "error_result",
    "guarded",
    "run_server",
    "tool_result",
]

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
LayerId = Literal["C0", "C1", "C2", "C3", "D0", "D1", "D2"]
LAYERS: tuple[str, ...] = ("C0", "C1", "C2", "C3", "D0", "D1", "D2")
_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_PROGRESS_EVERY = 0.5  # seconds between progress notifications within one index phase


def tool_result(out: tools.ToolOutput) -> CallToolResult:
    """Structured content plus its text rendering (``isError`` for a not-found symbol)."""
    return CallToolResult(
        content=[TextContent(type="text", text=out.text)],
        structured_content=out.data,
        is_error=out.is_error,
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _error(code: str, message: str) -> CallToolResult:
    message = _one_line(message)
    return CallToolResult(
        content=[TextContent(type="text", text=f"error ({code}): {message}")],
        structured_content={"error": {"code": code, "message": message}},
        is_error=True,
    )


def error_result(exc: Exception) -> CallToolResult:
    """An ``isError`` result for ``exc``: its stable code and a one-line message."""
    if isinstance(exc, RagstrataError):
        return _error(exc.code, str(exc) or type(exc).__name__)
    if isinstance(exc, ValueError):  # argument checks of the store (direction, layers, top_k)
        return _error("invalid_argument", str(exc))
    return _error("internal_error", f"internal error: {type(exc).__name__}: {exc}")


def _arguments_error(tool: str, exc: ValidationError) -> CallToolResult:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
        for err in exc.errors()
    )
    return _error("invalid_argument", f"invalid arguments for {tool}: {problems}")


class RagstrataMCPServer(MCPServer[Any]):
    """``MCPServer`` whose argument-validation errors are one line naming each bad field;
    over stdio, ``on_first_reply`` (if set) is called once its first reply is written."""

    on_first_reply: Callable[[], None] | None = None
    claimed: tuple[IO[str], IO[str], EarlyStart] | None = None  # stdio read before the SDK

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return _arguments_error(name, exc.__cause__)
            raise

    async def run_stdio_async(self) -> None:
        """stdio, with every malformed line answered by a JSON-RPC error
        (:mod:`ragstrata.mcp.stdio`) instead of dropped."""
        from ragstrata.mcp.stdio import serve_stdio

        await serve_stdio(
            self._lowlevel_server, on_first_reply=self.on_first_reply, claimed=self.claimed
        )


def guarded(call: Callable[[], tools.ToolOutput]) -> CallToolResult:
    """Run one tool; any exception becomes an ``isError`` result instead of reaching the SDK."""
    try:
        return tool_result(call())
    except Exception as exc:  # the server must answer every call, whatever failed
        if not isinstance(exc, (RagstrataError, ValueError)):
            log.exception("tool failed")
        return error_result(exc)


class _ProgressReporter:
    """Forwards index events to the client as throttled, monotonic progress notifications
    (a no-op on the client side unless it asked for progress)."""

    def __init__(self, ctx: Context[Any, Any]) -> None:
        self.ctx = ctx
        self.count = 0
        self.phase = ""
        self.last = 0.0
        self.lock = threading.Lock()

    def __call__(self, event: IndexEvent) -> None:
        now = time.monotonic()
        with self.lock:
            if event.phase == self.phase and now - self.last < _PROGRESS_EVERY:
                return
            self.count, self.phase, self.last = self.count + 1, event.phase, now
            count = self.count
        total = f"/{event.total}" if event.total else ""
        try:
            anyio.from_thread.run(
                self.ctx.report_progress, count, None, f"{event.phase} {event.done}{total}"
            )
        except Exception:  # progress is best effort; the index run must go on
            log.debug("progress notification failed", exc_info=True)


_QUERY = Annotated[str, Field(description="The question or search text, in English or Russian.")]
_TOP_K = Annotated[int, Field(ge=1, le=100, description="How many hits to return.")]
_SYMBOL = Annotated[
    str,
    Field(
        description="A symbol: short name, dotted tail or qualified name "
        "(charge, Gateway.send, payments.gateway.Gateway)."
    ),
]


def _repo_type(repos: Registry) -> Any:
    """The ``repo`` argument of every tool, described with the names this server serves."""
    names = ", ".join(repos.names)
    if len(repos.names) == 1:
        repo_help = f"Repository name; optional, this server serves only {names!r}."
    else:
        repo_help = f"Repository name, one of: {names}. Required: several are served."
    return Annotated[str | None, Field(description=repo_help)]


def _question_tools(repos: Registry, Repo: Any) -> list[Callable[..., CallToolResult]]:
    """route_question, search_code, ask."""

    def route_question(
        query: _QUERY,
        conversation_state: Annotated[
            dict[str, Any] | None,
            Field(description="State from a previous turn, to resolve a follow-up question."),
        ] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        return guarded(lambda: tools.route_question(repos, query, conversation_state, repo))

    def search_code(
        query: _QUERY,
        top_k: _TOP_K = 10,
        layers: Annotated[
            list[LayerId] | None,
            Field(
                description="Only these layers: C0 files, C1 definitions, C2 relations, "
                "C3 code chunks, D0 doc files, D1 doc sections, D2 doc chunks. Default: "
                "the layers the router picks."
            ),
        ] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        return guarded(lambda: tools.search_code(repos, query, top_k, layers, repo))

    def ask(
        query: _QUERY,
        session: Annotated[
            str | None,
            Field(description="Conversation name; reuse it so follow-ups keep the topic."),
        ] = None,
        top_k: _TOP_K = 10,
        repo: Repo = None,
    ) -> CallToolResult:
        return guarded(lambda: tools.ask(repos, query, session, top_k, repo))

    return [route_question, search_code, ask]


def _symbol_tools(repos: Registry, Repo: Any) -> list[Callable[..., CallToolResult]]:
    """get_definition, find_references, index_status."""

    def get_definition(symbol: _SYMBOL, repo: Repo = None) -> CallToolResult:
        return guarded(lambda: tools.get_definition(repos, symbol, repo))

    def find_references(
        symbol: _SYMBOL,
        direction: Annotated[
            Literal["callers", "callees"],
            Field(description="callers: who uses the symbol; callees: what it uses."),
        ] = "callers",
        limit: Annotated[int, Field(ge=1, le=500, description="Most references to return.")] = 50,
        repo: Repo = None,
    ) -> CallToolResult:
        return guarded(lambda: tools.find_references(repos, symbol, direction, limit, repo))

    def index_status(repo: Repo = None) -> CallToolResult:
        return guarded(lambda: tools.index_status(repos, repo))

    return [get_definition, find_references, index_status]


def _reindex_tool(repos: Registry, Repo: Any) -> Callable[..., CallToolResult]:
    """reindex: the one tool that writes (progress goes to the client as notifications)."""

    def reindex(
        ctx: Context[Any, Any],
        rebuild: Annotated[
            # Strict: "false", "no", 0 or "1" are refused, not coerced (a string "false" must
            # never start a destructive rebuild, nor "yes" stand for true).
            StrictBool,
            Field(description="Delete and rebuild the whole index (slow); true or false."),
        ] = False,
        repo: Repo = None,
    ) -> CallToolResult:
        progress = _ProgressReporter(ctx)
        return guarded(lambda: tools.reindex(repos, rebuild, repo, progress))

    return reindex


def build_server(repos: Registry) -> RagstrataMCPServer:
    """An ``MCPServer`` with the seven ragstrata tools over ``repos`` (a
    :class:`~ragstrata.mcp.repos.RepoSet`, or any registry)."""
    server = RagstrataMCPServer(
        "ragstrata", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    Repo = _repo_type(repos)
    for fn in (*_question_tools(repos, Repo), *_symbol_tools(repos, Repo)):
        server.add_tool(fn, description=TOOLS[fn.__name__], annotations=_READ_ONLY)
    server.add_tool(
        _reindex_tool(repos, Repo),
        description=TOOLS["reindex"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )
    return server


def run_server(
    server: MCPServer, transport: Transport = "stdio", host: str = "127.0.0.1", port: int = 8766
) -> None:
    """Serve until the client disconnects (stdio) or the process is interrupted (http)."""
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
