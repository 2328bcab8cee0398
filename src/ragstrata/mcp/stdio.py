"""The MCP stdio transport with a gate in front: every line gets an answer.

The SDK's stdio transport drops a line it cannot parse (invalid JSON, a JSON value that is not
a JSON-RPC 2.0 message, a string holding a lone surrogate such as ``"\\ud800"``) without a
reply, so an agent that sent it waits forever. Here each line is checked first; a bad one gets
a JSON-RPC error reply (``-32700`` parse error, ``-32600`` invalid request) naming what was
wrong in one line, with the request's ``id`` when one can be read, and is not passed on. Good
lines go to the SDK's own transport unchanged.

While serving, file descriptors 0 and 1 point at the null device and at stderr (as the SDK
does), so stray output of a library cannot corrupt the wire. When ``initialize`` was answered
before the SDK was imported (:mod:`ragstrata.mcp.early`), its line still goes to the SDK first
and the SDK's reply to it is dropped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import IO, Any

import anyio
import anyio.to_thread

from ragstrata.mcp.early import EarlyStart, claimed_std

__all__ = ["check_line", "serve_stdio"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _envelope_problem(message: Any) -> str | None:
    """Why ``message`` is not a JSON-RPC 2.0 message MCP accepts, or None."""
    if isinstance(message, list):
        return "JSON-RPC batches are not supported; send one message per line"
    if not isinstance(message, dict):
        return "a JSON-RPC message is a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be "2.0"'
    if "id" in message and (
        isinstance(message["id"], bool) or not isinstance(message["id"], (str, int))
    ):
        return 'the "id" member must be a string or an integer'
    if "method" in message:
        if not isinstance(message["method"], str):
            return 'the "method" member must be a string'
        if "params" in message and not isinstance(message["params"], dict):
            return 'the "params" member must be an object'
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return 'a request needs a "method"; a response needs an "id" and a "result" or "error"'


def check_line(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error reply for one incoming line, or None when it may go to the server."""
    try:
        message = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        return _reply(None, PARSE_ERROR, f"Parse error: the line is not JSON ({why})")
    ident = message.get("id") if isinstance(message, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        ident = None
    problem = _envelope_problem(message)
    if problem is None and _has_lone_surrogate(message):
        problem = "the message holds a lone surrogate (\\ud800-\\udfff); send valid Unicode"
    if problem is None:
        problem = _sdk_problem(line)
    if problem is None:
        return None
    return _reply(ident, INVALID_REQUEST, f"Invalid Request: {problem}")


def _sdk_problem(line: str) -> str | None:
    """What the SDK's own message model refuses in ``line`` (one line), or None."""
    import mcp_types
    from pydantic import ValidationError

    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        return f"not a JSON-RPC 2.0 message MCP accepts ({exc.error_count()} problems)"
    return None


def _reply(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


class _Wire:
    """The client's end: lines in, whole lines out (one writer at a time)."""

    def __init__(
        self,
        reader: IO[str],
        writer: IO[str],
        on_first_reply: Callable[[], None] | None = None,
        early: EarlyStart | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.lock = threading.Lock()
        self._on_first_reply = on_first_reply
        self._pending = [early.first_line] if early is not None and early.first_line else []
        self._answered = early.answered if early is not None else None

    def _already_answered(self, text: str) -> bool:
        """True (once) for the SDK's reply to the ``initialize`` answered early."""
        if self._answered is None:
            return False
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != self._answered:
            return False
        if "result" not in message and "error" not in message:
            return False
        self._answered = None
        return True

    def _write(self, text: str) -> None:
        with self.lock:
            if not self._already_answered(text):
                self.writer.write(text)
                self.writer.flush()
            hook, self._on_first_reply = self._on_first_reply, None
        if hook is not None:
            hook()

    async def write(self, text: str) -> int:
        await anyio.to_thread.run_sync(self._write, text)
        return len(text)

    async def flush(self) -> None:
        return None

    async def lines(self) -> AsyncIterator[str]:
        """Lines the server may read; bad ones are answered here and held back."""
        while True:
            if self._pending:
                line = self._pending.pop()
            else:
                line = await anyio.to_thread.run_sync(self.reader.readline, abandon_on_cancel=True)
            if not line:
                return
            if not line.strip():
                continue
            error = check_line(line)
            if error is None:
                yield line
            else:
                await self.write(json.dumps(error) + "\n")


class _Lines:
    """What the SDK's transport iterates over: the checked lines of the wire."""

    def __init__(self, wire: _Wire) -> None:
        self.wire = wire

    def __aiter__(self) -> AsyncIterator[str]:
        return self.wire.lines()


async def serve_stdio(
    lowlevel: Any,
    on_first_reply: Callable[[], None] | None = None,
    claimed: tuple[IO[str], IO[str], EarlyStart] | None = None,
) -> None:
    """Serve the SDK's low-level ``Server`` over stdin/stdout until stdin closes;
    ``on_first_reply`` is called once, after the SDK's first reply. ``claimed``: the wire
    already claimed and its first line read (:func:`ragstrata.mcp.early.answer_initialize`)."""
    if claimed is not None:
        reader, writer, early = claimed
        await _serve(lowlevel, _Wire(reader, writer, on_first_reply, early))
        return
    with claimed_std() as (reader, writer):
        await _serve(lowlevel, _Wire(reader, writer, on_first_reply))


async def _serve(lowlevel: Any, wire: _Wire) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server(stdin=_Lines(wire), stdout=wire) as (read, write):  # type: ignore[arg-type]
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
