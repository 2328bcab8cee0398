"""The MCP server end to end: the real ``ragstrata mcp`` process, driven by the SDK's own client
over stdio (and once over streamable HTTP), against a fixture repository indexed with the
hash embedder."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from answer_fixture import write_repo
from mcp_wire import exchange
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.cli.common import parse_repo_arg
from ragstrata.cli.mcp_cmd import check_loopback
from ragstrata.errors import ConfigError
from ragstrata.mcp import tools
from ragstrata.mcp.repos import RepoSet
from ragstrata.mcp.server import error_result, guarded
from ragstrata.settings import load_settings

HASH_ENV = {"RAGSTRATA_EMBEDDER_PROVIDER": "hash"}
TOOLS = {
    "route_question",
    "search_code",
    "ask",
    "get_definition",
    "find_references",
    "index_status",
    "reindex",
}


def _index(root: Path) -> dict[str, Any]:
    with Ragstrata(root, load_settings(root, env=HASH_ENV)) as rs:
        return rs.index().to_dict()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("payments"))
    _index(root)
    return root


def _stdio(*repo_args: str) -> StdioServerParameters:
    args = ["-m", "ragstrata", "mcp"]
    for value in repo_args:
        args += ["--repo", value]
    return StdioServerParameters(command=sys.executable, args=args, env=HASH_ENV)


def _session(server: Any, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server, read_timeout_seconds=60) as client:
            await body(client)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # show the assertion, not the task-group wrapping
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        raise leaf from None


def _text(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def _data(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


def _ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    return _data(result)


def _error(result: CallToolResult, code: str) -> str:
    assert result.is_error
    text = _text(result)
    assert "\n" not in text, text
    assert _data(result)["error"]["code"] == code, text
    return text


async def _check_listing(client: Client) -> None:
    listed = (await client.list_tools()).tools
    tools = {t.name: t for t in listed}
    assert set(tools) == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 150, tool.name
        assert tool.input_schema["type"] == "object"
        assert "repo" in tool.input_schema["properties"]
    assert "path:start-end" in (tools["get_definition"].description or "")
    search_help = tools["search_code"].description or ""
    assert "Russian" in search_help
    assert "get_definition" in search_help  # says when to use which
    search = tools["search_code"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["top_k"]["minimum"] == 1
    layer_enum = search["properties"]["layers"]["anyOf"][0]["items"]["enum"]
    assert layer_enum == ["C0", "C1", "C2", "C3", "D0", "D1", "D2"]
    assert tools["ask"].input_schema["required"] == ["query"]
    assert "session" in tools["ask"].input_schema["properties"]
    refs = tools["find_references"].input_schema["properties"]["direction"]
    assert refs["enum"] == ["callers", "callees"] and refs["default"] == "callers"
    assert tools["get_definition"].input_schema["required"] == ["symbol"]
    assert "rebuild" in tools["reindex"].input_schema["properties"]
    assert tools["index_status"].annotations is not None
    assert tools["index_status"].annotations.read_only_hint is True
    assert tools["reindex"].annotations is not None
    assert tools["reindex"].annotations.read_only_hint is False
    assert client.instructions and "path:start-end" in client.instructions


def test_tools_listed_and_called_over_stdio(repo: Path) -> None:
    """List the tools (names, agent descriptions, schemas), then call the read-only ones."""

    async def body(client: Client) -> None:
        await _check_listing(client)
        res = await client.call_tool("get_definition", {"symbol": "charge"})
        data = _ok(res)
        assert data["match"] == "exact"
        (charge,) = data["definitions"]
        assert charge["symbol"] == "payments.gateway.charge"
        assert charge["citation"] == "src/payments/gateway.py:25-27"
        assert charge["signature"].startswith("def charge(gateway, amount)")
        assert charge["docstring"] == "Charge a customer through a gateway."
        assert "return gateway.send(amount)" in charge["source"]
        assert "src/payments/gateway.py:25-27" in _text(res)
        assert "27 |     return gateway.send(amount)" in _text(res)

        data = _ok(await client.call_tool("get_definition", {"symbol": "Gateway.send"}))
        assert data["match"] == "suffix"
        assert data["definitions"][0]["citation"] == "src/payments/gateway.py:12-14"

        res = await client.call_tool("find_references", {"symbol": "validate"})
        data = _ok(res)
        assert data["direction"] == "callers"
        assert [(r["citation"], r["from_symbol"], r["relation"]) for r in data["references"]] == [
            ("src/payments/gateway.py:14", "payments.gateway.Gateway.send", "calls")
        ]
        assert "src/payments/gateway.py:14" in _text(res)
        data = _ok(
            await client.call_tool(
                "find_references", {"symbol": "Gateway.send", "direction": "callees"}
            )
        )
        targets = {r["to_symbol"] for r in data["references"]}
        assert "payments.gateway.validate" in targets
        data = _ok(await client.call_tool("find_references", {"symbol": "_secret"}))
        assert data["references"] == []  # defined but never called: empty, not an error

        res = await client.call_tool(
            "search_code", {"query": "где проверяется сумма?", "top_k": 3, "layers": ["C1"]}
        )
        data = _ok(res)
        assert data["plan"]["language"] == "ru"
        assert 1 <= len(data["hits"]) <= 3
        assert {h["layer"] for h in data["hits"]} == {"C1"}
        assert "src/payments/gateway.py:20-22" in [h["citation"] for h in data["hits"]]
        assert "src/payments/gateway.py:20-22 [C1] payments.gateway.validate" in _text(res)

        res = await client.call_tool("ask", {"query": "how does charge work?", "session": "s1"})
        data = _ok(res)
        assert data["session"] == "s1"
        assert data["evidence"]["satisfied"] is True
        cites = {(c["path"], c["start_line"], c["end_line"]) for c in data["answer"]["citations"]}
        assert ("src/payments/gateway.py", 25, 27) in cites
        assert "- src/payments/gateway.py:25-27" in _text(res)
        follow = _ok(
            await client.call_tool("ask", {"query": "а кто её вызывает?", "session": "s1"})
        )
        assert follow["plan"]["conversation_mode"] == "CONTINUE"  # the session kept the topic
        assert follow["plan"]["language"] == "ru"
        # MCP carries the answer contract; the lead is in the question's language
        assert follow["answer"]["status"] in ("answered", "partial")
        assert re.search("[а-я]", follow["answer"]["lead"])
        assert follow["answer"]["text"].startswith(follow["answer"]["lead"])

        res = await client.call_tool("route_question", {"query": "кто вызывает validate?"})
        plan = _ok(res)
        assert plan["language"] == "ru"
        assert {"type": "SYMBOL", "value": "validate"}.items() <= plan["query_plan"]["anchors"][
            -1
        ].items()
        assert "C2" in [q["layer_id"] for q in plan["retrieval_spec"]["layer_queries"]]
        assert "SYMBOL:validate" in _text(res)

    _session(_stdio(str(repo)), body)


def test_errors_are_one_line_tool_errors_and_the_server_survives(
    repo: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()

    async def body(client: Client) -> None:
        res = await client.call_tool("get_definition", {"symbol": "chrage", "repo": "payments"})
        assert res.is_error
        data = _data(res)
        assert data["error"]["code"] == "symbol_not_found"
        assert "did you mean" in data["error"]["message"]
        assert data["candidates"][0]["symbol"] == "payments.gateway.charge"
        assert data["candidates"][0]["citation"] == "src/payments/gateway.py:25-27"
        assert "payments.gateway.charge (function) — src/payments/gateway.py:25-27" in _text(res)
        res = await client.call_tool(
            "find_references", {"symbol": "no_such_thing_anywhere", "repo": "payments"}
        )
        assert res.is_error and _data(res)["error"]["code"] == "symbol_not_found"

        text = _error(
            await client.call_tool("search_code", {"query": "x", "top_k": 0, "repo": "payments"}),
            "invalid_argument",
        )
        assert "top_k" in text
        text = _error(
            await client.call_tool("find_references", {"symbol": "x", "direction": "up"}),
            "invalid_argument",
        )
        assert "direction" in text and "callers" in text
        text = _error(await client.call_tool("ask", {}), "invalid_argument")
        assert "query" in text
        _error(
            await client.call_tool("search_code", {"query": "   ", "repo": "payments"}),
            "invalid_query",
        )
        text = _error(
            await client.call_tool("get_definition", {"symbol": "charge", "repo": "nope"}),
            "unknown_repo",
        )
        assert "'nope'" in text and "served" in text
        text = _error(
            await client.call_tool("ask", {"query": "why?", "session": "../x", "repo": "payments"}),
            "invalid_state",
        )
        assert "'../x'" in text
        text = _error(await client.call_tool("index_status", {"repo": "bare"}), "index_missing")
        assert "reindex" in text
        text = _error(await client.call_tool("index_status", {}), "repo_required")
        assert "payments, bare" in text
        # still serving after every error
        assert _ok(
            await client.call_tool("get_definition", {"symbol": "validate", "repo": "payments"})
        )

    _session(_stdio(f"payments={repo}", f"bare={bare}"), body)


def test_status_and_reindex_pick_up_an_edit(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo")
    built = _index(root)

    async def body(client: Client) -> None:
        res = await client.call_tool("index_status", {})
        status = _ok(res)
        assert status["rows"] == built["rows"] and status["stale"] == 0
        assert status["fingerprint"].startswith("hash/")
        assert f"C1 {built['rows']['C1']}" in _text(res)

        (root / "src" / "payments" / "refunds.py").write_text(
            'def refund(amount):\n    """Give money back."""\n    return -amount\n',
            encoding="utf-8",
        )
        assert _ok(await client.call_tool("index_status", {}))["stale"] == 1
        events: list[tuple[float, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            events.append((progress, message))

        res = await client.call_tool("reindex", {}, progress_callback=on_progress)
        report = _ok(res)
        assert report["files"]["added"] == 1 and report["files"]["changed"] == 0
        assert report["rows"]["C1"] == built["rows"]["C1"] + 1
        assert "files added 1" in _text(res)
        assert events and [p for p, _ in events] == sorted({p for p, _ in events})
        assert _ok(await client.call_tool("index_status", {}))["stale"] == 0
        data = _ok(await client.call_tool("get_definition", {"symbol": "refund"}))
        assert data["definitions"][0]["citation"] == "src/payments/refunds.py:1-3"

    _session(_stdio(str(root)), body)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streamable_http_serves_several_repositories(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "lib").mkdir(parents=True)
    (other / "lib" / "shapes.py").write_text(
        'class Circle:\n    """A round shape."""\n\n    def area(self):\n        return 3\n',
        encoding="utf-8",
    )
    _index(other)
    port = _free_port()
    cmd = [sys.executable, "-m", "ragstrata", "mcp", "--transport", "http", "--port", str(port)]
    cmd += ["--repo", f"pay={repo}", "--repo", str(other)]
    proc = subprocess.Popen(
        cmd,
        env={**os.environ, **HASH_ENV},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)

        async def body(client: Client) -> None:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert (
                "pay, other"
                in tools["search_code"].input_schema["properties"]["repo"]["description"]
            )
            data = _ok(
                await client.call_tool("get_definition", {"symbol": "Circle.area", "repo": "other"})
            )
            assert data["repo"] == "other"
            assert data["definitions"][0]["citation"] == "lib/shapes.py:4-5"
            data = _ok(
                await client.call_tool("get_definition", {"symbol": "charge", "repo": "pay"})
            )
            assert data["definitions"][0]["citation"] == "src/payments/gateway.py:25-27"
            text = _error(
                await client.call_tool("get_definition", {"symbol": "charge"}), "repo_required"
            )
            assert "pay, other" in text

        _session(f"http://127.0.0.1:{port}/mcp", body)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def test_stdio_mode_writes_nothing_but_protocol_to_stdout(repo: Path) -> None:
    """Raw JSON-RPC over the pipe: every stdout line is a protocol message, logs go to stderr."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "reindex", "arguments": {}},
        },
    ]
    seen = exchange(repo, messages, 2)
    assert all(m["jsonrpc"] == "2.0" for m in seen)
    (reply,) = [m for m in seen if m.get("id") == 2]
    assert reply["result"]["structuredContent"]["files"]["unchanged"] == 5


def test_repo_specs_and_loopback_only() -> None:
    assert parse_repo_arg("app=/tmp/x") == ("app", Path("/tmp/x"))
    assert parse_repo_arg("/srv/code/my-repo") == ("my-repo", Path("/srv/code/my-repo"))
    with pytest.raises(ConfigError, match="empty --repo"):
        parse_repo_arg("  ")
    for host in ("127.0.0.1", "::1", "localhost"):
        assert check_loopback(host) == host
    with pytest.raises(ConfigError, match=r"'0\.0\.0\.0' is not loopback"):
        check_loopback("0.0.0.0")


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["mcp", *args])
    out, err = capsys.readouterr()
    assert out == ""
    return int(exit_info.value.code or 0), err


def test_cli_refuses_a_non_loopback_http_bind(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _main(capsys, "--repo", str(repo), "--transport", "http", "--host", "0.0.0.0")
    assert code == 2 and "not loopback" in err


def test_same_folder_names_must_be_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a" / "repo", tmp_path / "b" / "repo"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    code, err = _main(capsys, "--repo", str(a), "--repo", str(b))
    assert code == 2 and "two repositories are named 'repo'" in err
    code, err = _main(capsys, "--repo", str(tmp_path / "missing"))
    assert code == 2 and "repository folder not found" in err


def test_failures_map_to_one_line_tool_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / ".ragstrata").mkdir(parents=True)
    (broken / ".ragstrata" / "index.sqlite").write_text("not a database", encoding="utf-8")
    repos = RepoSet({"b": Ragstrata(broken, load_settings(broken, env=HASH_ENV))})
    try:
        result = guarded(lambda: tools.search_code(repos, "charge", 5, None, None))
    finally:
        repos.close()
    message = _error(result, "index_corrupt")  # a StoreError: the file is damaged
    assert message.startswith("error (index_corrupt): the index ") and "--rebuild" in message
    crash = error_result(RuntimeError("boom\n  at line 2"))
    assert _error(crash, "internal_error") == "error (internal_error): internal error: " + (
        "RuntimeError: boom at line 2"
    )
    assert _error(error_result(ValueError("bad top_k")), "invalid_argument")


def test_warm_up_waits_for_the_first_reply_then_runs_once(repo: Path) -> None:
    """Over stdio the warm-up starts after `initialize` is answered (it would hold the
    interpreter while the client waits); it starts once, and not after the server stopped."""
    import io

    from ragstrata.cli.common import WarmUp
    from ragstrata.mcp.stdio import _Wire

    settings = load_settings(repo, env={}, overrides={"embedder": {"provider": "hash"}})
    rs = Ragstrata(repo, settings)
    rs.index()
    searched: list[str] = []
    real_search = rs.search

    def counting_search(query: str, **kwargs: Any) -> Any:
        searched.append(query)
        return real_search(query, **kwargs)

    rs.search = counting_search  # type: ignore[method-assign]
    repos = RepoSet({"app": rs})
    warm = WarmUp(repos)
    out = io.StringIO()
    wire = _Wire(io.StringIO(), out, on_first_reply=warm.start)
    assert searched == []  # nothing before the first reply
    anyio.run(wire.write, '{"jsonrpc": "2.0", "id": 1, "result": {}}\n')
    anyio.run(wire.write, '{"jsonrpc": "2.0", "id": 2, "result": {}}\n')
    warm.stop()  # joins the one warm-up thread
    assert out.getvalue().count("\n") == 2
    assert searched and len(searched) == len(set(searched))  # one pass, each query once
    after = WarmUp(repos)
    after.stop()
    after.start()  # too late: the server has stopped
    assert len(searched) == len(set(searched))
    repos.close()
