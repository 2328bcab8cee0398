"""Helpers of the hostile suite: run the CLI in-process or as a subprocess, write tiny repos.

Every fixture here is built by the test that uses it (nothing is read from outside tests/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import cli_runner


def run_cli(*args: str) -> tuple[int, str, str]:
    """``ragstrata ARGS`` in-process -> (exit code, stdout, stderr)."""
    result = cli_runner.run_cli(*args)
    return result.returncode, result.stdout, result.stderr


def clean_env(**extra: str) -> dict[str, str]:
    """The process environment without RAGSTRATA_* (plus the hash embedder and ``extra``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSTRATA_")}
    return {**env, "RAGSTRATA_EMBEDDER_PROVIDER": "hash", **extra}


def run_proc(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m ragstrata ARGS`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "ragstrata", *args],
        capture_output=True,
        text=True,
        env=dict(env if env is not None else clean_env()),
        cwd=cwd,
        timeout=180,
    )


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``; returns ``root``."""
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    return root


def mcp_calls(
    repo: Path,
    calls: list[tuple[str, Mapping[str, object]]],
    env: Mapping[str, str] | None = None,
) -> list[dict[str, object]]:
    """Call tools of one real ``ragstrata mcp`` stdio process (raw JSON-RPC); their results."""
    messages: list[dict[str, object]] = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for n, (tool, arguments) in enumerate(calls, 1):
        params = {"name": tool, "arguments": dict(arguments)}
        messages.append({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "mcp", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env if env is not None else clean_env()),
    )
    assert proc.stdin is not None and proc.stdout is not None
    results: dict[int, dict[str, object]] = {}
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        while len(results) < len(calls):
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "mcp closed stdout"
            reply = json.loads(line)
            if isinstance(reply.get("id"), int) and reply["id"] > 0:
                result = reply.get("result", reply.get("error"))
                assert isinstance(result, dict)
                results[reply["id"]] = result
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    return [results[n] for n in range(1, len(calls) + 1)]


def mcp_call(
    repo: Path, tool: str, arguments: Mapping[str, object], env: Mapping[str, str] | None = None
) -> dict[str, object]:
    """Call one tool of a real ``ragstrata mcp`` stdio process; its result."""
    return mcp_calls(repo, [(tool, arguments)], env)[0]
