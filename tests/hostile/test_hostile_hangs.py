"""Issue 26, "hangs and crashes": files a repository names that are not regular text files,
MCP messages that are not JSON-RPC, concurrent rebuilds, an unparsable store URL.

Every process here runs under a timeout: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from hostile.hostile_util import clean_env, mcp_call, run_proc, write_tree

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

LIMIT_S = 60
SRC = Path(__file__).resolve().parents[2] / "src"


def _repo(root: Path, router: str) -> Path:
    write_tree(
        root, {"pay.py": "def charge(amount):\n    return amount\n", "ragstrata.toml": router}
    )
    done = run_proc("index", str(root))
    assert done.returncode == 0, done.stderr
    return root


def _proc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragstrata", *args],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(SRC)),  # run from cwd: the source must not be relative
        cwd=cwd,
        timeout=LIMIT_S,
    )


@pytest.fixture(params=["glossary", "cue"])
def fifo_repo(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """An indexed repository whose ragstrata.toml names a named pipe as a glossary/cue file."""
    name = "terms.tsv" if request.param == "glossary" else "cues.toml"
    key = "glossary_files" if request.param == "glossary" else "cue_files"
    root = _repo(tmp_path / "shop", f'[router]\n{key} = ["{name}"]\n')
    os.mkfifo(root / name)
    return root, f"{request.param} file"


def test_fifo_named_by_config_fails_at_once_on_the_cli(fifo_repo: tuple[Path, str]) -> None:
    """Cause 1: ask, search and route exit 2 with one line instead of blocking on the pipe."""
    root, what = fifo_repo
    for args in (("search", "charge"), ("ask", "what does charge do?"), ("route", "charge")):
        done = _proc(*args, cwd=root)
        assert done.returncode == 2, (args, done.stderr)
        line = done.stderr.strip()
        assert "\n" not in line and what in line and "named pipe" in line, line
        assert "Traceback" not in line


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_fifo_under_serve_answers_and_sigterm_stops(fifo_repo: tuple[Path, str]) -> None:
    """Cause 1 under ``serve``: each request gets an error reply (no pinned worker) and the
    server still stops on SIGTERM."""
    root, what = fifo_repo
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "serve", "--repo", str(root), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                httpx.get(url + "/healthz", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        for route in ("/v1/search", "/v1/ask", "/v1/route"):
            reply = httpx.post(url + route, json={"query": "charge"}, timeout=LIMIT_S)
            assert reply.status_code == 400, (route, reply.text)
            assert what in reply.json()["error"]["message"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=LIMIT_S) is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def test_fifo_under_mcp_is_an_error_result(fifo_repo: tuple[Path, str]) -> None:
    root, what = fifo_repo
    result = mcp_call(root, "search_code", {"query": "charge"})
    assert result.get("isError") is True
    assert what in json.dumps(result)


def test_binary_glossary_exits_2_not_utf8(tmp_path: Path) -> None:
    """Cause 2: a binary glossary is a one-line "not UTF-8 text", exit 2 (not exit 1)."""
    root = _repo(tmp_path / "shop", '[router]\nglossary_files = ["terms.tsv"]\n')
    (root / "terms.tsv").write_bytes(b"charge\t\xff\xfe\x00\x89PNG\r\n\x1a\n")
    for args in (("search", "charge"), ("ask", "what does charge do?")):
        done = _proc(*args, cwd=root)
        assert done.returncode == 2, done.stderr
        line = done.stderr.strip()
        assert "\n" not in line and "glossary file" in line and "not UTF-8 text" in line, line


def _many_files(root: Path, n: int = 150) -> Path:
    files = {
        f"pkg/mod{i}.py": f'"""Module {i}."""\n\n\ndef charge{i}(amount):\n    return amount * {i}\n'
        for i in range(n)
    }
    return write_tree(root, files)


def test_two_concurrent_rebuilds_both_finish(tmp_path: Path) -> None:
    """Cause 4: two ``index --rebuild`` at once: the second waits for the first's swap (no
    "database is locked"), both exit 0, and the index answers afterwards."""
    root = _many_files(tmp_path / "big")
    assert run_proc("index", str(root)).returncode == 0
    cmd = [sys.executable, "-m", "ragstrata", "index", str(root), "--rebuild", "--json"]
    procs = [
        subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env()
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=LIMIT_S * 3) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "database is locked" not in err and "internal error" not in err
        assert json.loads(out)["files"]["added"] == 150
    done = run_proc("search", "charge7", "--repo", str(root), "--json")
    assert done.returncode == 0, done.stderr
    assert "pkg/mod7.py" in [h["path"] for h in json.loads(done.stdout)["hits"]]
    leftovers = sorted(p.name for p in (root / ".ragstrata").glob("index.sqlite.rebuild*"))
    assert leftovers == [], leftovers
