"""Issue 26 causes 3 and 12: ``watch`` survives a symlink loop made while it runs, a server
reports a dead watcher instead of serving a silently stale index, and an edit of
``ragstrata.toml`` under ``watch`` is acted on, not ignored.

Processes run under timeouts; waiting for a watcher is polling with a deadline, never a sleep
whose length decides the result.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from hostile.hostile_util import clean_env, write_tree
from ragstrata.app.facade import Ragstrata
from ragstrata.app.registry import Registry
from ragstrata.app.watchers import start_watchers
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from test_http_api import LiveServer

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

LIMIT_S = 90


def _until(check: Callable[[], bool], what: str, limit: float = LIMIT_S) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        threading.Event().wait(0.1)


def _loop(root: Path) -> None:
    """Symlink loops: two links to each other, a link to itself, a folder link to its parent."""
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("self_link", root / "self_link")
    os.symlink("..", root / "pkg" / "up")


def _repo(root: Path) -> Path:
    return write_tree(root, {"pkg/pay.py": "def charge(amount):\n    return amount\n"})


class Lines:
    """stderr lines of a process, collected by a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stderr is not None
        stream = proc.stderr
        self.thread = threading.Thread(target=lambda: self.lines.extend(stream), daemon=True)
        self.thread.start()

    def finish(self, proc: subprocess.Popen[str]) -> str:
        """Wait for ``proc`` to end (bounded); its stdout. Every stderr line is read after."""
        assert proc.stdout is not None
        proc.wait(timeout=LIMIT_S)  # a few short JSON lines: they fit in the pipe meanwhile
        self.thread.join(timeout=LIMIT_S)
        return proc.stdout.read()

    def count(self, word: str) -> int:
        return sum(word in line for line in list(self.lines))


def test_cli_watch_survives_a_symlink_loop(tmp_path: Path) -> None:
    """Cause 3: loops made while ``watch`` runs are skipped, the watcher goes on and indexes
    the next change (it used to die with "RuntimeError: Symlink loop", exit 1)."""
    root = _repo(tmp_path / "shop")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "watch", str(root), "--json", "--max-runs", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    err = Lines(proc)
    try:
        _until(lambda: err.count(" start: ") == 1, "the first run")
        _loop(root)
        # a file beside the loop: whether the native watcher was up yet or the catch-up run
        # after start-up sees it, the next run walks the tree that holds the loop
        (root / "pkg" / "extra.py").write_text("def extra():\n    return 1\n", "utf-8")
        _until(lambda: err.count(" change: ") >= 1 or proc.poll() is not None, "the loop run")
        (root / "pkg" / "refund.py").write_text("def refund():\n    return 0\n", "utf-8")
        out = err.finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(err.lines)
    runs = [json.loads(line) for line in out.splitlines()]
    assert len(runs) == 3 and all("report" in r for r in runs), runs
    # extra.py and refund.py, never a file of the loop
    assert sum(r["report"]["files"]["added"] for r in runs[1:]) == 2
    assert not any("Symlink loop" in line for line in err.lines)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str, Lines]]:
    """``ragstrata serve --watch`` over a fresh repository: (repo, base URL, stderr lines)."""
    root = _repo(tmp_path / "shop")
    port = _free_port()
    args = ["serve", "--watch", "--repo", f"shop={root}", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    err = Lines(proc)
    url = f"http://127.0.0.1:{port}"
    try:
        _until(lambda: err.count(" start: ") == 1, "the first index run")
        yield root, url, err
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _finds(url: str, query: str, path: str) -> bool:
    reply = httpx.post(url + "/v1/search", json={"query": query}, timeout=30)
    return reply.status_code == 200 and path in [h["path"] for h in reply.json()["hits"]]


def test_serve_watch_survives_a_symlink_loop(served: tuple[Path, str, Lines]) -> None:
    """Cause 3 under ``serve --watch``: after the loops the index still follows the files and
    ``/healthz`` and ``/v1/status`` say the watcher runs."""
    root, url, _ = served
    _loop(root)
    (root / "pkg" / "refund.py").write_text("def refund_order():\n    return 0\n", "utf-8")
    _until(lambda: _finds(url, "refund_order", "pkg/refund.py"), "the new file to be indexed")
    health = httpx.get(url + "/healthz", timeout=30).json()
    assert health["status"] == "ok" and health["watchers"]["shop"]["state"] == "running"
    status = httpx.get(url + "/v1/status", timeout=30).json()["repos"][0]
    assert status["watcher"]["state"] == "running"


def test_a_dead_watcher_is_reported(tmp_path: Path) -> None:
    """Cause 3, the other half: a watcher that cannot go on (its folder was deleted) is
    restarted, then reported dead by ``/healthz`` (``degraded``) and ``/v1/status``, never a silent ok."""
    root = _repo(tmp_path / "shop")
    rs = Ragstrata(root, load_settings(root, env=clean_env()))
    rs.index()
    registry = Registry({"shop": rs})
    stop = start_watchers({"shop": rs}, registry, max_restarts=2, backoff_s=0.01)
    try:
        with LiveServer(create_app(registry)) as server:
            _until(lambda: registry.watchers.get("shop") is not None, "the watcher to start")
            assert httpx.get(server.url + "/healthz", timeout=30).json()["status"] == "ok"
            shutil.rmtree(root)
            _until(lambda: registry.watchers.dead() == ["shop"], "the watcher to be given up")
            health = httpx.get(server.url + "/healthz", timeout=30).json()
            assert health["status"] == "degraded"
            watcher = health["watchers"]["shop"]
            assert watcher["state"] == "dead" and watcher["restarts"] == 2
            assert "FileNotFoundError" in watcher["error"]
            status = httpx.get(server.url + "/v1/status", timeout=30).json()["repos"][0]
            assert status["watcher"]["state"] == "dead"
    finally:
        stop()
        rs.close()


def test_cli_watch_reloads_settings_when_ragstrata_toml_changes(tmp_path: Path) -> None:
    """Cause 12: an edit of ``ragstrata.toml`` under ``watch`` is applied to the next run (the
    run says so): a newly excluded folder leaves the index, as a clean index would have it."""
    root = _repo(tmp_path / "shop")
    write_tree(root, {"notes/todo.md": "# Todo\n\nRemember the quarterly zebra audit.\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "watch", str(root), "--json", "--max-runs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    err = Lines(proc)
    try:
        _until(lambda: err.count(" start: ") == 1, "the first run")
        (root / "ragstrata.toml").write_text('[index]\nexclude = ["notes/**"]\n', "utf-8")
        out = err.finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(err.lines)
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["report"]["files"]["added"] == 2
    assert "reloaded" in second["note"] and second["report"]["files"]["removed"] == 1
    assert err.count("settings reloaded") == 1
    search = ["search", "zebra audit", "--repo", str(root), "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "ragstrata", *search],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=LIMIT_S,
    )
    assert done.returncode == 0, done.stderr
    assert "notes/todo.md" not in [h["path"] for h in json.loads(done.stdout)["hits"]]


def test_serve_watch_says_a_restart_is_needed(served: tuple[Path, str, Lines]) -> None:
    """Cause 12 under ``serve --watch``: new settings cannot change a running server, so
    ``/healthz``, ``/v1/status`` and stderr say a restart is needed."""
    root, url, err = served
    (root / "ragstrata.toml").write_text("[index]\nchunk_size = 900\n", "utf-8")

    def noted() -> bool:
        watcher = httpx.get(url + "/healthz", timeout=30).json()["watchers"]["shop"]
        return "restart" in (watcher.get("note") or "")

    _until(noted, "the watcher to note the settings change")
    status = httpx.get(url + "/v1/status", timeout=30).json()["repos"][0]
    assert "restart the server" in status["watcher"]["note"]
    _until(lambda: err.count("restart the server") >= 1, "the stderr line")
