"""`ragstrata watch`: a real watcher subprocess over a real folder; rename-writes, deletes and a
git branch switch end as the index a clean run builds, and no run ever wipes the index."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from test_indexer import assert_same_index, clean_copy, dump, make_repo, module_text

pytestmark = pytest.mark.slow


class Watcher:
    """``ragstrata watch REPO --json`` with its stdout lines in a queue."""

    def __init__(self, repo: Path) -> None:
        env = {**os.environ, "RAGSTRATA_EMBEDDER_PROVIDER": "hash"}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ragstrata",
                "watch",
                str(repo),
                "--json",
                "--debounce-ms",
                "150",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.runs: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def wait_for(self, done: Callable[[], bool], what: str, timeout: float = 90) -> None:
        """Collect runs until ``done()`` holds after a run (and no run is pending)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.runs.append(self.lines.get(timeout=1.0))
            except queue.Empty:
                if self.runs and done():
                    return
                continue
            assert "error" not in self.runs[-1] or "vanished" in str(self.runs[-1]), self.runs[-1]
        pytest.fail(f"watcher never reached: {what}; runs: {self.runs}")

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


def _paths(repo: Path) -> set[str]:
    try:
        return {f[0] for f in dump(repo)["files"]}
    except sqlite3.OperationalError:  # the index file exists, its tables not yet
        return set()


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_watch_follows_rename_writes_deletes_and_a_branch_switch(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "main")
    # another branch: 3 files changed, 2 removed, 4 added
    _git(repo, "checkout", "-q", "-b", "other")
    for i in (1, 2, 3):
        (repo / f"pkg/mod{i}.py").write_text(module_text(i, n_funcs=5), encoding="utf-8")
    for i in (4, 5):
        (repo / f"pkg/mod{i}.py").unlink()
    for i in range(20, 24):
        (repo / f"pkg/extra{i}.py").write_text(module_text(i), encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "other")
    _git(repo, "checkout", "-q", "main")

    watcher = Watcher(repo)
    try:
        watcher.wait_for(lambda: len(_paths(repo)) == 15, "first index")
        assert watcher.runs[0]["trigger"] == "start"
        total_files = len(_paths(repo))

        # an editor's rename-write: new text into a temporary file, renamed over the original
        target = repo / "pkg/mod7.py"
        tmp = repo / "pkg/.mod7.py.swp"
        tmp.write_text(module_text(7) + "\ndef saved_by_rename():\n    return 7\n", "utf-8")
        os.replace(tmp, target)
        watcher.wait_for(
            lambda: "saved_by_rename" in json.dumps(dump(repo)["rows"]), "rename-write indexed"
        )

        # a delete
        (repo / "docs/guide.md").unlink()
        watcher.wait_for(lambda: "docs/guide.md" not in _paths(repo), "delete indexed")

        # a branch switch: one incremental diff, never a wipe
        before = len(watcher.runs)
        _git(repo, "checkout", "-q", "other")
        expected = {"pkg/extra20.py", "pkg/extra23.py"}
        watcher.wait_for(
            lambda: expected <= _paths(repo) and "pkg/mod4.py" not in _paths(repo),
            "branch switch indexed",
        )
        time.sleep(1.0)  # let any trailing event batch finish
        while not watcher.lines.empty():
            watcher.runs.append(watcher.lines.get())
        switch = [r["report"] for r in watcher.runs[before:] if "report" in r]
        assert switch and sum(r["files"]["removed"] for r in switch) <= 3  # mod4, mod5 (+guide)
        assert sum(r["files"]["added"] for r in switch) <= 5
        assert all(r["files"]["unchanged"] >= total_files - 8 for r in switch)
    finally:
        code, err = watcher.stop()
    assert code == 0 and "watch: stopped" in err and "Traceback" not in err

    # the watched index equals a clean index of the same tree
    shutil.rmtree(repo / ".git")
    assert_same_index(repo, clean_copy(repo, tmp_path))


def test_server_watchers_reindex_in_the_background_and_stop(tmp_path: Path) -> None:
    """What ``serve --watch`` / ``mcp --watch`` start: one thread per served repository."""
    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.watchers import start_watchers
    from test_indexer import HASH_SETTINGS

    repos = {}
    for name in ("a", "b"):
        make_repo(tmp_path / name, n=3)
        repos[name] = Ragstrata(tmp_path / name, HASH_SETTINGS)
    stop = start_watchers(repos)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(
            (tmp_path / n / ".ragstrata" / "index.sqlite").exists()
            and len(_paths(tmp_path / n)) == 6
            for n in repos
        ):
            time.sleep(0.2)
        (tmp_path / "b/pkg/new.py").write_text("def appeared():\n    return 1\n", "utf-8")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and "pkg/new.py" not in _paths(tmp_path / "b"):
            time.sleep(0.2)
        assert "pkg/new.py" in _paths(tmp_path / "b")
        # the served facade sees the new definition through its own connection
        hits = repos["b"].store.lookup_symbol("appeared")
        assert [h.row.path for h in hits] == ["pkg/new.py"]
    finally:
        stop()
        for rs in repos.values():
            rs.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("ragstrata-watch-")]


def test_a_reported_catch_up_run_counts_toward_max_runs(tmp_path: Path) -> None:
    """A file written between the first run and the moment the native watcher is up is indexed
    by the catch-up run; that run is reported, so it counts: ``--max-runs 2`` ends after it
    (the watcher used to wait for one more change, forever)."""
    from ragstrata.core.events import IndexReport
    from ragstrata.indexer.watch import watch_repository

    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    calls: list[int] = []

    def index() -> IndexReport:
        calls.append(1)  # the first run indexes a.py; the catch-up finds the late file
        return IndexReport(added=1)

    reported: list[str] = []
    stop = threading.Event()
    timer = threading.Timer(20, stop.set)  # a hung watcher fails the test instead
    timer.start()
    try:
        start = time.monotonic()
        runs = watch_repository(
            tmp_path, index, lambda run: reported.append(run.trigger), stop=stop, max_runs=2
        )
    finally:
        timer.cancel()
    assert (runs, reported) == (2, ["start", "change"])
    assert time.monotonic() - start < 15
