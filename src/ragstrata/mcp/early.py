"""Answer the MCP ``initialize`` request before the SDK is imported.

An agent starting ``ragstrata mcp`` waits for the reply to ``initialize`` before anything
else; importing the MCP SDK takes most of a second. Here, with the standard library only, the
first line of stdin is read and, when it is a well-formed ``initialize`` request, answered at
once with the result the SDK would give (the same protocol-version choice, capabilities,
server info and instructions; ``tests/test_mcp_early.py`` holds them equal to the SDK's). The
line is then handed to the SDK unchanged, and the SDK's own reply to it is dropped
(:mod:`ragstrata.mcp.stdio`), so the session state is the SDK's as before.

While serving, file descriptors 0 and 1 point at the null device and at stderr, so stray
output of a library cannot corrupt the wire (:func:`claimed_std`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import TextIOWrapper
from typing import IO, Any

__all__ = [
    "CAPABILITIES",
    "HANDSHAKE_VERSIONS",
    "EarlyStart",
    "answer_initialize",
    "claimed_std",
    "initialize_result",
]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol versions reachable through ``initialize``, oldest first; the last is offered when
the client asks for another (the SDK's rule)."""

CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
"""What the server offers (the SDK's capabilities for ragstrata's server)."""


@dataclass(frozen=True, slots=True)
class EarlyStart:
    """The first line read from the client, and the id of the ``initialize`` request already
    answered (None when it was not answered here)."""

    first_line: str
    answered: str | int | None = None


@contextmanager
def claimed_std() -> Iterator[tuple[IO[str], IO[str]]]:
    """Private copies of stdin/stdout for the wire; fds 0 and 1 diverted meanwhile. The
    copies are never closed: a reading thread may still block on them after the server ends."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = TextIOWrapper(
        os.fdopen(wire_in, "rb", closefd=False), encoding="utf-8", errors="replace"
    )
    writer = TextIOWrapper(
        os.fdopen(wire_out, "wb", closefd=False), encoding="utf-8", write_through=True
    )
    try:
        yield reader, writer
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)


def initialize_result(
    params: dict[str, Any], name: str, version: str, instructions: str | None
) -> dict[str, Any]:
    """The ``initialize`` result for ``params`` (the request's): the client's protocol version
    when it is one of :data:`HANDSHAKE_VERSIONS`, else the newest of them."""
    asked = params.get("protocolVersion")
    chosen = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result: dict[str, Any] = {
        "capabilities": CAPABILITIES,
        "protocolVersion": chosen,
        "serverInfo": {"name": name, "version": version},
    }
    if instructions:
        result["instructions"] = instructions
    return result


def _initialize_params(line: str) -> tuple[str | int, dict[str, Any]] | None:
    """The id and params of a well-formed ``initialize`` request, else None (the SDK answers
    anything else, errors included)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    ident, params = message.get("id"), message.get("params")
    if message.get("method") != "initialize" or not isinstance(params, dict):
        return None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        return None
    info = params.get("clientInfo")
    if not isinstance(params.get("protocolVersion"), str):
        return None
    if not isinstance(params.get("capabilities"), dict) or not isinstance(info, dict):
        return None
    if not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return None
    return ident, params


def answer_initialize(
    reader: IO[str], writer: IO[str], name: str, version: str, instructions: str | None
) -> EarlyStart:
    """Read the client's first line; answer it here when it is ``initialize``."""
    line = reader.readline()
    while line and not line.strip():
        line = reader.readline()
    request = _initialize_params(line) if line else None
    if request is None:
        return EarlyStart(line)
    ident, params = request
    result = initialize_result(params, name, version, instructions)
    writer.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    writer.flush()
    return EarlyStart(line, ident)
