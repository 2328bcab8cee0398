"""`kill -9` a real `ragstrata index` process mid-run, run it again, and compare the index with
a clean index of a copy of the same repository: rows, ids, relations, catalog and vectors."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_indexer import assert_same_index, dump, module_text, write

N_FILES = 400


def _env() -> dict[str, str]:
    # small embedding batches: many commits, so the embedding phase is long enough to hit too
    return {
        **os.environ,
        "RAGSTRATA_EMBEDDER_PROVIDER": "hash",
        "RAGSTRATA_EMBEDDER_BATCH_SIZE": "2",
    }


def _index(repo: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "index", str(repo), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def _count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
        try:
            return int(conn.execute(sql).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _kill_when(proc: subprocess.Popen[str], db: Path, sql: str, low: int, high: int) -> int:
    """Poll until ``low <= count < high``, then SIGKILL; returns the count seen."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"index finished before it could be killed: {proc.stderr.read()}")  # type: ignore[union-attr]
        seen = _count(db, sql)
        if low <= seen < high:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return seen
        time.sleep(0.01)
    proc.kill()
    pytest.fail("timed out waiting for batches")


@pytest.fixture(scope="module")
def repo_files() -> dict[str, str]:
    files = {
        f"pkg/mod{i:04d}.py": module_text(i % 7, n_funcs=4) + f"\nX{i} = {i}\n"
        for i in range(N_FILES)
    }
    files["pkg/__init__.py"] = ""
    files["README.md"] = "# Big\n\nA generated package.\n"
    return files


@pytest.mark.slow
def test_kill_9_twice_then_rerun_equals_clean_index(
    tmp_path: Path, repo_files: dict[str, str]
) -> None:
    repo = tmp_path / "repo"
    write(repo, repo_files)
    db = repo / ".ragstrata" / "index.sqlite"
    # 1. killed while row batches are being committed
    files_sql = "SELECT COUNT(*) FROM files"
    seen = _kill_when(_index(repo), db, files_sql, 64, N_FILES - 64)
    after_rows_kill = dump(repo)
    assert 64 <= seen <= len(after_rows_kill["files"]) < N_FILES
    # 2. killed again while vectors are being filled (rows all written by then)
    _kill_when(_index(repo), db, "SELECT COUNT(*) FROM vectors", 50, 10**9)
    after_vector_kill = dump(repo)
    assert len(after_vector_kill["files"]) == N_FILES + 2
    # 3. run to the end
    rerun = subprocess.run(
        [sys.executable, "-m", "ragstrata", "index", str(repo), "--json"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=180,
    )
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["files"]["added"] == 0 and report["files"]["unchanged"] == N_FILES + 2
    assert report["embeddings"]["pending"] == 0 and report["embeddings"]["done"] > 0
    # a clean index of a copy of the same tree is identical
    clean = tmp_path / "clean"
    shutil.copytree(repo, clean, ignore=shutil.ignore_patterns(".ragstrata"))
    done = subprocess.run(
        [sys.executable, "-m", "ragstrata", "index", str(clean), "--json"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert_same_index(repo, clean)
    final = dump(repo)
    assert 0 < len(after_vector_kill["vectors"]) < len(final["vectors"])
