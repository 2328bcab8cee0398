"""Issue 26 cause 5: the MCP stdio server answers every line, even one it cannot use.

Raw lines go to a real ``ragstrata mcp`` process: invalid JSON, JSON that is not a JSON-RPC 2.0
envelope, a batch, and requests holding a lone surrogate. Each gets a JSON-RPC error reply
(with its ``id`` when one can be read) within a bounded time, and the server keeps serving
the valid requests that follow.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from answer_fixture import write_repo
from hostile.hostile_util import clean_env, run_proc
from ragstrata.mcp.stdio import check_line

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "1"},
    },
}
SEARCH = '{"name": "search_code", "arguments": {"query": "%s"}}'
BAD_LINES = {
    "lone-surrogate-query": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
    + SEARCH % "\\ud800 charge"
    + "}",
    "lone-low-surrogate-key": '{"jsonrpc":"2.0","id":"s2","method":"tools/list",'
    '"params":{"\\udfff":1}}',
    "not-json": '{"jsonrpc": "2.0", "id": 3, "method": ',
    "jsonrpc-1.0": '{"jsonrpc":"1.0","id":4,"method":"tools/list"}',
    "batch": '[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]',
    "no-method": '{"jsonrpc":"2.0","id":6}',
    "method-not-a-string": '{"jsonrpc":"2.0","id":7,"method":42}',
    "params-not-an-object": '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"x"}',
    "id-an-object": '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    "a-number": "42",
}
EXPECTED_ID: dict[str, object] = {
    "lone-surrogate-query": 1,
    "lone-low-surrogate-key": "s2",
    "not-json": None,
    "jsonrpc-1.0": 4,
    "batch": None,
    "no-method": 6,
    "method-not-a-string": 7,
    "params-not-an-object": 8,
    "id-an-object": None,
    "a-number": None,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("wire") / "shop")
    assert run_proc("index", str(root)).returncode == 0
    return root


def _replies(repo: Path, lines: list[str], wanted: int) -> list[dict[str, object]]:
    """Send ``lines`` to one real ``ragstrata mcp``; the first ``wanted`` replies (60 s cap)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "mcp", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        env=clean_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    got: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [got.put(x) for x in proc.stdout], daemon=True).start()
    replies: list[dict[str, object]] = []
    try:
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()
        while len(replies) < wanted:
            replies.append(json.loads(got.get(timeout=60)))  # queue.Empty: a line went unanswered
    finally:
        proc.kill()
        proc.wait(timeout=30)
    return replies


def test_every_bad_line_gets_an_error_and_the_server_goes_on(repo: Path) -> None:
    initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    after = {
        "jsonrpc": "2.0",
        "id": 99,
        "method": "tools/call",
        "params": json.loads(SEARCH % "charge"),
    }
    lines = [json.dumps(INIT), initialized, *BAD_LINES.values(), json.dumps(after)]
    replies = _replies(repo, lines, 1 + len(BAD_LINES) + 1)
    # replies to different requests may come in any order (the gate answers a bad line at
    # once, the server answers `initialize` when it has handled it): match them by id
    (init,) = [r for r in replies if r.get("id") == 0]
    assert "result" in init, init
    (last,) = [r for r in replies if r.get("id") == 99]
    errors = [r for r in replies if r.get("id") not in (0, 99)]
    for (name, expected), reply in zip(EXPECTED_ID.items(), errors, strict=True):
        assert reply["jsonrpc"] == "2.0" and reply["id"] == expected, (name, reply)
        error = reply["error"]
        assert isinstance(error, dict) and error["code"] in (-32700, -32600), (name, reply)
        assert "\n" not in error["message"], name
    assert "result" in last, last
    result = last["result"]
    assert isinstance(result, dict) and not result.get("isError")


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_check_line_answers_each_bad_line(name: str) -> None:
    reply = check_line(BAD_LINES[name])
    assert reply is not None and reply["id"] == EXPECTED_ID[name]


def test_check_line_passes_good_messages() -> None:
    for message in (
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "a", "result": {}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "ask", "arguments": {"query": "привет"}},
        },
    ):
        assert check_line(json.dumps(message)) is None, message
        assert check_line(json.dumps(message, ensure_ascii=False)) is None, message
