"""Issue 15: vectors committed one batch at a time, plain progress lines when stderr is not a
terminal, answers while vectors are still pending (the memory ceilings on 2,000-file trees
are measured by `bench/scale.py`)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CliResult, run_cli
from ragstrata.cli.progress import READY_LINE, PlainProgress
from ragstrata.embed.base import ProgressCallback
from ragstrata.embed.local import token_batches
from ragstrata.indexer import Indexer, IndexEvent
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder
from test_indexer import HASH_SETTINGS, make_repo


class Killed(BaseException):
    """Stands for the process dying in the middle of a model call."""


class DyingEmbedder(HashEmbedder):
    """The hash embedder, dying during its ``die_at``-th call (nothing returned for it)."""

    def __init__(self, die_at: int, batch_size: int = 4) -> None:
        super().__init__(batch_size=batch_size)
        self.die_at = die_at
        self.n = 0

    def embed_documents(
        self, texts: Any, progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        self.n += 1
        if self.n == self.die_at:
            raise Killed
        return super().embed_documents(texts, progress)


def _vectors(repo: Path) -> int:
    store = SQLiteStore.for_repo(repo)
    try:
        return store.stats(HashEmbedder().fingerprint).vectors
    finally:
        store.close()


def test_a_death_during_embedding_loses_at_most_the_batch_in_flight(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    store = SQLiteStore.for_repo(repo)
    try:
        with pytest.raises(Killed):
            Indexer(repo, store, DyingEmbedder(die_at=4), HASH_SETTINGS).run()
        stats = store.stats(HashEmbedder().fingerprint)
    finally:
        store.close()
    # three batches of 4 finished before the fourth call died: all twelve vectors are kept
    assert stats.vectors == 12 and stats.pending_vectors > 0
    # the next run embeds exactly what is missing
    again = SQLiteStore.for_repo(repo)
    try:
        report = Indexer(repo, again, HashEmbedder(batch_size=4), HASH_SETTINGS).run()
    finally:
        again.close()
    assert report.embeddings_done == stats.pending_vectors and report.embeddings_pending == 0


def test_plain_progress_throttles_and_says_when_search_works() -> None:
    now = [0.0]
    out = io.StringIO()
    view = PlainProgress(out, every=5.0, clock=lambda: now[0])
    view(IndexEvent("scan", 0, 0))
    for i in range(1, 101):  # 100 files over 10 s: a line at the start, ~every 5 s, the end
        now[0] = i * 0.1
        view(IndexEvent("extract", i, 100, path=f"f{i}.py", rows=3))
    view(IndexEvent("write", 100, 100, rows=300))
    for i in range(0, 201, 8):
        now[0] = 20 + i * 0.05
        view(IndexEvent("embed", i, 200))
    view(IndexEvent("done", 1, 1))
    lines = out.getvalue().splitlines()
    extract = [line for line in lines if "extracting" in line]
    assert 2 <= len(extract) <= 4, lines
    assert extract[-1].startswith("index: files 100/100 | rows 300 | extracting")
    ready = lines.index(f"index: {READY_LINE}")
    embed = [i for i, line in enumerate(lines) if "embedding" in line]
    assert embed and all(i > ready for i in embed)
    last = lines[embed[-1]]
    assert "vectors 200/200" in last and "texts/s" in last and "ETA" not in last
    mid = [line for line in lines if "embedding" in line and "ETA" in line]
    assert mid, lines  # an unfinished phase says how long is left


def test_index_without_a_terminal_prints_progress_lines_and_one_json(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    env = {
        **os.environ,
        "RAGSTRATA_EMBEDDER_PROVIDER": "hash",
        "RAGSTRATA_EMBEDDER_BATCH_SIZE": "4",
    }
    out = subprocess.run(
        [sys.executable, "-m", "ragstrata", "index", str(repo), "--json", "--progress-every", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["embeddings"]["pending"] == 0  # stdout: the one JSON object
    lines = out.stderr.splitlines()
    assert lines and all(line.startswith("index: ") for line in lines), lines
    assert f"index: {READY_LINE}" in lines
    assert any("extracting" in line and "files/s" in line for line in lines)
    assert any(line.endswith("texts/s") and "vectors" in line for line in lines)
    assert "\x1b[" not in out.stderr  # no terminal escapes in a log


def test_search_and_status_answer_while_vectors_are_pending(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)

    def cli(*args: str) -> CliResult:
        return run_cli(*args, env={"RAGSTRATA_EMBEDDER_PROVIDER": "hash"})

    assert cli("index", str(repo), "--no-embed", "--json").returncode == 0
    status = json.loads(cli("status", str(repo), "--json").stdout)
    assert status["pending_embeddings"] > 0
    found = cli("search", "func_3_1", "--repo", str(repo), "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    text = json.dumps(hits)
    assert "pkg/mod3.py" in text  # lexical and symbol hits without a single vector
    ask = cli("ask", "что делает func_3_1?", "--repo", str(repo), "--json")
    assert ask.returncode == 0, ask.stderr
    assert "pkg/mod3.py" in ask.stdout


def test_token_batches_bound_padded_size_and_keep_order() -> None:
    lengths = [5, 300, 40, 256, 256, 10, 256, 100, 256, 256, 256, 256, 256, 256]
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    got = token_batches(order, lengths, max_texts=32, max_tokens=2048)
    assert [i for batch in got for i in batch] == order
    for batch in got:
        width = max(lengths[i] for i in batch)
        assert len(batch) * width <= 2048 or len(batch) == 1
    assert max(len(b) for b in got) == 8  # eight 256-token texts fill one call
    assert token_batches(order, lengths, max_texts=3, max_tokens=10**6)[0] == order[:3]
