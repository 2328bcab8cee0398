"""`ragstrata index` / `ragstrata status`: JSON shapes, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import CliResult, run_cli
from ragstrata.store.sqlite import ROW_SCHEMA_VERSION
from test_indexer import make_repo

LAYERS = ["C0", "C1", "C2", "C3", "D0", "D1", "D2"]


def cli(*args: str, cwd: Path | None = None) -> CliResult:
    return run_cli(*args, cwd=cwd, env={"RAGSTRATA_EMBEDDER_PROVIDER": "hash"})


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_repo(root)
    return root


def test_index_json_then_status_json(repo: Path) -> None:
    out = cli("index", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # exactly one object on stdout
    assert set(data) == {"files", "rows", "embeddings", "seconds", "secrets"}
    assert data["secrets"] == {"redacted": 0, "by_kind": {}}
    # the index's own folder (made for the run's lock) is skipped, as on every later run
    assert data["files"]["added"] == 15 and data["files"]["skipped"] == {"index_dir": 1}
    assert list(data["rows"]) == LAYERS and data["rows"]["C1"] > 0
    assert data["embeddings"]["pending"] == 0 and data["embeddings"]["done"] > 0
    assert isinstance(data["seconds"], float)

    (repo / "pkg/mod1.py").write_text("def changed():\n    return 0\n", encoding="utf-8")
    status = cli("status", str(repo), "--json")
    assert status.returncode == 0, status.stderr
    sdata = json.loads(status.stdout)
    assert set(sdata) == {
        "rows",
        "stale",
        "pending_embeddings",
        "fingerprint",
        "updated_at",
        "schema_version",
        "extraction_current",
        "secrets",
    }
    assert sdata["rows"] == data["rows"] and sdata["stale"] == 1
    assert sdata["pending_embeddings"] == 0 and sdata["schema_version"] == ROW_SCHEMA_VERSION
    assert sdata["fingerprint"].startswith("hash/") and sdata["updated_at"]
    assert sdata["extraction_current"] is True

    again = json.loads(cli("index", str(repo), "--json", "--no-embed").stdout)
    assert again["files"]["changed"] == 1 and again["files"]["unchanged"] == 14
    assert again["embeddings"] == {"done": 0, "pending": 1}


def test_index_defaults_to_cwd_and_prints_a_summary(repo: Path) -> None:
    out = cli("index", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "files added" in out.stdout and "rows C1" in out.stdout
    assert (repo / ".ragstrata" / "index.sqlite").is_file()
    status = cli("status", cwd=repo)
    assert status.returncode == 0 and "stale files" in status.stdout


def test_dry_run_json_writes_nothing(repo: Path) -> None:
    out = cli("index", str(repo), "--dry-run", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["dry_run"] is True and data["files"]["added"] == 15
    assert data["estimate"]["embedding_texts"] > 0
    assert not (repo / ".ragstrata").exists()
    human = cli("index", str(repo), "--dry-run")
    assert "would add: README.md" in human.stdout and "estimate:" in human.stdout


def test_bad_path_is_a_one_line_error(tmp_path: Path) -> None:
    for command in ("index", "status"):
        out = cli(command, str(tmp_path / "missing"), "--json")
        assert out.returncode == 2
        assert out.stdout == ""
        assert out.stderr.strip().count("\n") == 0 and "not found" in out.stderr


def test_status_without_index_says_how_to_build_it(tmp_path: Path) -> None:
    out = cli("status", str(tmp_path), "--json")
    assert out.returncode == 2
    assert "ragstrata index" in out.stderr and out.stderr.strip().count("\n") == 0
    assert not (tmp_path / ".ragstrata").exists()


def test_mismatch_is_exit_2_and_names_rebuild(repo: Path) -> None:
    assert cli("index", str(repo), "--no-embed").returncode == 0
    (repo / "ragstrata.toml").write_text("[index]\nchunk_overlap = 10\n", encoding="utf-8")
    out = cli("index", str(repo), "--json")
    assert out.returncode == 2 and "--rebuild" in out.stderr and "chunk_overlap" in out.stderr
    rebuilt = cli("index", str(repo), "--json", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout)["files"]["added"] == 16  # ragstrata.toml is a file too


def test_ctrl_c_exits_130_with_one_line_and_keeps_batches(tmp_path: Path) -> None:
    import signal
    import sqlite3
    import time

    from test_indexer import module_text, write

    repo = tmp_path / "big"
    write(repo, {f"pkg/m{i:03d}.py": module_text(i % 7, n_funcs=4) for i in range(200)})
    env = {
        **os.environ,
        "RAGSTRATA_EMBEDDER_PROVIDER": "hash",
        "RAGSTRATA_EMBEDDER_BATCH_SIZE": "2",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "index", str(repo), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    db = repo / ".ragstrata" / "index.sqlite"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                conn = sqlite3.connect(db, timeout=0.1)
                files = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
                conn.close()
            except sqlite3.Error:
                files = 0
            if files >= 64:
                proc.send_signal(signal.SIGINT)
                break
        time.sleep(0.01)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    # stderr: plain progress lines (not a terminal), then exactly one line about the interrupt
    lines = err.strip().splitlines()
    assert out == "" and "interrupted" in lines[-1] and "Traceback" not in err
    assert all(line.startswith("index: ") for line in lines[:-1]), lines
    resumed = cli("index", str(repo), "--json")
    assert resumed.returncode == 0
    data = json.loads(resumed.stdout)
    assert data["files"]["unchanged"] >= 64 and data["embeddings"]["pending"] == 0
