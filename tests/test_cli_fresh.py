"""Every CLI command in a fresh interpreter: one subprocess per command, smallest input.

In-process CLI tests share one interpreter, so a module imported by an earlier test can hide an
import-order bug (a circular import) that breaks the real command. Each case here starts
``python -m ragstrata`` anew and checks the exit code and that no traceback or "internal error"
was printed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragstrata.cli.app import app

FILES = {
    "pay/__init__.py": '"""Payments."""\n',
    "pay/gateway.py": 'def charge(amount):\n    """Charge an amount."""\n    return amount\n',
    "README.md": "# Shop\n\nCharges customers.\n",
}


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RAGSTRATA_")}
    return {**clean, "RAGSTRATA_EMBEDDER_PROVIDER": "hash"}


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragstrata", *args],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=cwd,
        timeout=180,
    )


def _clean(proc: subprocess.CompletedProcess[str], code: int = 0) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr


def _write(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = _write(tmp_path_factory.mktemp("fresh") / "shop")
    proc = cli("index", str(root))
    _clean(proc)
    yield root
    shutil.rmtree(root / ".ragstrata", ignore_errors=True)


def test_every_command_is_covered() -> None:
    names = {c.name for c in app.registered_commands}
    assert names == set(COMMANDS) | {"index", "mcp", "serve"}, names


def _ask(repo: Path) -> list[str]:
    return ["ask", "what does charge do?", "--repo", str(repo), "--json"]


COMMANDS: dict[str, object] = {
    "ask": _ask,
    "gendocs": lambda r: ["gendocs", "pay/gateway.py", "--repo", str(r)],
    "doctor": lambda r: ["doctor", str(r), "--json"],
    "status": lambda r: ["status", str(r), "--json"],
    "inspect": lambda r: ["inspect", str(r / "pay" / "gateway.py"), "--json"],
    "route": lambda r: ["route", "где определена функция charge?"],
    "schema": lambda r: ["schema", "router-plan"],
    "search": lambda r: ["search", "charge", "--repo", str(r), "--json"],
    "summarize": lambda r: ["summarize", str(r), "--dry-run", "--json"],
    "watch": lambda r: ["watch", str(r), "--max-runs", "1", "--no-embed", "--json"],
    "eval": None,  # needs a dataset file: its own test below
}


@pytest.mark.parametrize("name", sorted(n for n, f in COMMANDS.items() if f is not None))
def test_command_in_fresh_interpreter(name: str, repo: Path) -> None:
    build = COMMANDS[name]
    assert callable(build)
    proc = cli(*build(repo))
    # doctor exits 2 when something blocks answers; here nothing should (hash embedder, index).
    _clean(proc)
    assert proc.stdout.strip()
    if name == "gendocs":
        assert "charge" in proc.stdout
    if name in {"ask", "search", "status", "doctor", "route", "schema", "summarize", "watch"}:
        json.loads(proc.stdout)


def test_eval_in_fresh_interpreter(repo: Path, tmp_path: Path) -> None:
    data = tmp_path / "set.jsonl"
    data.write_text(json.dumps({"query": "charge", "gold_files": ["pay/gateway.py"]}) + "\n")
    proc = cli("eval", "--dataset", str(data), "--tree", str(repo), "--json")
    _clean(proc)
    assert json.loads(proc.stdout)["n"] == 1


def test_mcp_in_fresh_interpreter(repo: Path) -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fresh", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_code", "arguments": {"query": "charge"}},
        },
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "mcp", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    replies = []
    try:
        while not any(r.get("id") == 2 for r in replies):
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            replies.append(json.loads(line))
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    result = next(r for r in replies if r.get("id") == 2)["result"]
    assert not result.get("isError"), result
    assert "pay/gateway.py" in json.dumps(result)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_in_fresh_interpreter(repo: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "serve", "--repo", str(repo), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        reply = httpx.post(url + "/v1/ask", json={"query": "what does charge do?"}, timeout=60)
        assert reply.status_code == 200, reply.text
        assert any(h["path"] == "pay/gateway.py" for h in reply.json()["hits"])
    finally:
        proc.terminate()
        proc.wait(timeout=20)
