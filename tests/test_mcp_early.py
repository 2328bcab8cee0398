"""`initialize` is answered before the MCP SDK is imported, exactly as the SDK would answer it.

The early answer (:mod:`ragstrata.mcp.early`) must equal the SDK's for every protocol version a
client may ask for, the SDK must still see the request (its session state is the one that
serves), and its own reply to it must not reach the client a second time.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.runner import ServerRunner
from mcp.types import ServerCapabilities
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from answer_fixture import write_repo
from mcp_wire import exchange
from ragstrata.app.facade import Ragstrata
from ragstrata.core.version import __version__
from ragstrata.mcp.descriptions import INSTRUCTIONS
from ragstrata.mcp.early import HANDSHAKE_VERSIONS, answer_initialize, initialize_result
from ragstrata.mcp.repos import RepoSet
from ragstrata.mcp.server import build_server
from ragstrata.settings import load_settings

HASH_ENV = {"RAGSTRATA_EMBEDDER_PROVIDER": "hash"}


def _params(version: str) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }


def test_the_early_versions_are_the_sdk_s() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS
    assert HANDSHAKE_VERSIONS[-1] == LATEST_HANDSHAKE_VERSION


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = write_repo(tmp_path_factory.mktemp("payments"))
    return build_server(RepoSet({"app": Ragstrata(root, load_settings(root, env=HASH_ENV))}))


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "1999-01-01"])
def test_the_early_protocol_version_is_the_one_the_sdk_picks(version: str) -> None:
    _, negotiated = ServerRunner._negotiate_initialize(_params(version))
    early = initialize_result(_params(version), "ragstrata", __version__, INSTRUCTIONS)
    assert early["protocolVersion"] == negotiated


def test_the_early_result_is_what_a_client_of_the_sdk_server_receives(server: Any) -> None:
    """Capabilities, server info and instructions as the SDK server gives them to a client
    (in process, no early path): the early result parses to the same."""
    early = initialize_result(
        _params(LATEST_HANDSHAKE_VERSION), "ragstrata", __version__, INSTRUCTIONS
    )
    got: dict[str, Any] = {}

    async def main() -> None:
        async with Client(server, mode="legacy", read_timeout_seconds=60) as client:
            got["version"] = client.protocol_version
            got["capabilities"] = client.server_capabilities
            got["info"] = client.server_info
            got["instructions"] = client.instructions

    anyio.run(main)
    assert got["version"] == early["protocolVersion"]
    assert ServerCapabilities.model_validate(early["capabilities"]) == got["capabilities"]
    info = got["info"]
    assert (info.name, info.version) == (
        early["serverInfo"]["name"],
        early["serverInfo"]["version"],
    )
    assert got["instructions"] == early["instructions"]


@pytest.mark.parametrize(
    "line",
    [
        "not json\n",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) + "\n",
        json.dumps({"jsonrpc": "2.0", "id": True, "method": "initialize", "params": _params("x")})
        + "\n",
    ],
)
def test_anything_but_a_well_formed_initialize_is_left_to_the_sdk(line: str) -> None:
    out = io.StringIO()
    early = answer_initialize(io.StringIO(line), out, "ragstrata", "0", None)
    assert early.first_line == line and early.answered is None
    assert out.getvalue() == ""  # nothing written: the SDK (and the line gate) answers it


@pytest.mark.slow
def test_one_reply_per_request_over_the_real_wire(tmp_path: Path) -> None:
    """A real `ragstrata mcp`: the early reply comes first, the SDK's copy of it never does,
    and the session the SDK holds serves `tools/list` after it."""
    repo = write_repo(tmp_path / "payments")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _params("2025-06-18")},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    seen = exchange(repo, messages, 2)
    first = seen[0]
    assert first["id"] == 1 and first["result"]["protocolVersion"] == "2025-06-18"
    assert [m.get("id") for m in seen] == [1, 2]  # no second reply to `initialize`
    assert {t["name"] for t in seen[1]["result"]["tools"]} >= {"ask", "search_code"}
