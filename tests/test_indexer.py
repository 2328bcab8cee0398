"""The incremental, crash-safe indexer (issue 4): catalog diff, relations, vectors, manifest.

The helpers at the top (generated repositories, index dumps) are shared with
``test_index_kill.py`` and ``test_index_cli.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from ragstrata.core.rows import RelationRow
from ragstrata.embed.base import ProgressCallback
from ragstrata.errors import IndexMismatchError
from ragstrata.indexer import Indexer, IndexEvent, IndexReport, index_status
from ragstrata.relations.repository import ingest_repository
from ragstrata.settings import EmbedderSettings, IndexSettings, Settings
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder

HASH_SETTINGS = Settings(embedder=EmbedderSettings(provider="hash"))


class CountingEmbedder(HashEmbedder):
    """The hash embedder, remembering every text it embedded."""

    def __init__(self, dimensions: int = 64, batch_size: int = 16) -> None:
        super().__init__(dimensions=dimensions, batch_size=batch_size)
        self.texts: list[str] = []

    def embed_documents(
        self, texts: Any, progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        self.texts.extend(texts)
        return super().embed_documents(texts, progress)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def module_text(i: int, n_funcs: int = 3) -> str:
    """A small Python module calling into its neighbour (cross-file relations)."""
    lines = [f'"""Module {i}."""', f"from pkg.mod{(i + 1) % 7} import func_{(i + 1) % 7}_0", ""]
    for j in range(n_funcs):
        lines += [
            f"def func_{i}_{j}(x):",
            f'    """Function {j} of module {i}: adds {j}."""',
            f"    return func_{(i + 1) % 7}_0(x) + {j}",
            "",
        ]
    lines += [
        f"class Thing{i}:",
        "    def run(self):",
        f"        return func_{i}_0(1)",
        "",
    ]
    return "\n".join(lines)


def make_repo(root: Path, n: int = 12) -> None:
    files = {f"pkg/mod{i}.py": module_text(i) for i in range(n)}
    files["pkg/__init__.py"] = ""
    files["README.md"] = "# Demo\n\nSome docs.\n\n## Usage\n\nCall `func_0_0`.\n"
    files["docs/guide.md"] = "# Guide\n\nHow to use the package.\n"
    write(root, files)


def dump(repo: Path) -> dict[str, Any]:
    """Everything an index holds that a clean run must reproduce (mtimes left out)."""
    db = repo / ".ragstrata" / "index.sqlite"
    conn = sqlite3.connect(db)
    try:
        rows = sorted(conn.execute("SELECT id, path, layer, embed_hash, payload FROM rows"))
        files = sorted(conn.execute("SELECT path, size, sha256 FROM files"))
        relations = sorted(conn.execute("SELECT * FROM relations"))
        # without seq: insertion order, not content
        definitions = sorted(
            conn.execute(
                "SELECT row_id, path, symbol, name, parent, kind, "
                "language, signature FROM definitions"
            )
        )
        vectors = sorted(conn.execute("SELECT fingerprint, text_hash, dims, vector FROM vectors"))
        manifest = conn.execute("SELECT value FROM meta WHERE key = 'manifest'").fetchone()
    finally:
        conn.close()
    man = json.loads(manifest[0]) if manifest else {}
    for key in ("created_at", "updated_at"):
        man.pop(key, None)
    return {
        "rows": rows,
        "files": files,
        "relations": relations,
        "definitions": definitions,
        "vectors": vectors,
        "manifest": man,
    }


def assert_same_index(a: Path, b: Path) -> None:
    da, db = dump(a), dump(b)
    for key in da:
        assert da[key] == db[key], f"indexes differ in {key}"


def run(
    repo: Path,
    embedder: HashEmbedder | None = None,
    settings: Settings = HASH_SETTINGS,
    **kw: object,
) -> IndexReport:
    batch = kw.pop("batch_files", 64)
    store = SQLiteStore.for_repo(repo)
    try:
        indexer = Indexer(
            repo, store, embedder or HashEmbedder(), settings, batch_files=int(str(batch))
        )
        return indexer.run(**kw)  # type: ignore[arg-type]
    finally:
        store.close()


def clean_copy(repo: Path, tmp: Path, embedder: HashEmbedder | None = None) -> Path:
    """A copy of ``repo`` without its index, indexed from scratch."""
    copy = tmp / ("clean-" + repo.name)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".ragstrata"))
    run(copy, embedder)
    return copy


def stored_relations(repo: Path) -> dict[tuple[str, str], str | None]:
    store = SQLiteStore.for_repo(repo)
    try:
        hits = store.relations("func_1_0", "callers", kinds=None, limit=500)
        hits += store.relations("helper", "callers", kinds=None, limit=500)
        hits += store.relations("helper2", "callers", kinds=None, limit=500)
    finally:
        store.close()
    out = {}
    for hit in hits:
        assert isinstance(hit.row, RelationRow)
        out[(hit.row.from_symbol, hit.row.to_name)] = hit.row.to_symbol
    return out


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_repo(root)
    return root


def test_full_index_matches_ingestion_and_reports(repo: Path) -> None:
    report = run(repo)
    data = report.to_dict()
    assert set(data) == {"files", "rows", "embeddings", "seconds", "secrets"}
    assert data["secrets"] == {"redacted": 0, "by_kind": {}}
    assert set(data["files"]) == {"added", "changed", "removed", "unchanged", "skipped"}
    assert list(data["rows"]) == ["C0", "C1", "C2", "C3", "D0", "D1", "D2"]
    assert data["files"]["added"] == 15 and data["files"]["unchanged"] == 0
    assert data["embeddings"]["pending"] == 0 and data["embeddings"]["done"] > 0
    ingested = ingest_repository(repo, IndexSettings())
    expected = {(row.id, row) for row in ingested.rows()}
    store = SQLiteStore.for_repo(repo)
    try:
        got = store.get_rows([row_id for row_id, _ in expected])
    finally:
        store.close()
    assert {(row.id, row) for row in got} == expected  # relations resolved like ingestion
    assert data["rows"] == ingested.layer_counts()


def test_noop_run_writes_nothing(repo: Path) -> None:
    run(repo)
    before = dump(repo)
    wal = repo / ".ragstrata" / "index.sqlite-wal"
    db = repo / ".ragstrata" / "index.sqlite"
    sizes = (db.stat().st_mtime_ns, wal.stat().st_size if wal.exists() else 0)
    embedder = CountingEmbedder()
    report = run(repo, embedder)
    assert report.to_dict()["files"] == {
        "added": 0,
        "changed": 0,
        "removed": 0,
        "unchanged": 15,
        "skipped": report.to_dict()["files"]["skipped"],
    }
    assert embedder.texts == []
    assert (db.stat().st_mtime_ns, wal.stat().st_size if wal.exists() else 0) == sizes
    assert dump(repo) == before


def test_add_change_remove_rename_equal_clean_run(repo: Path, tmp_path: Path) -> None:
    run(repo)
    write(repo, {"pkg/extra.py": "def extra():\n    return 1\n"})  # added
    (repo / "pkg/mod3.py").write_text(module_text(3, n_funcs=5), encoding="utf-8")  # changed
    (repo / "docs/guide.md").unlink()  # removed
    (repo / "pkg/mod5.py").rename(repo / "pkg/renamed5.py")  # renamed
    report = run(repo).to_dict()["files"]
    assert (report["added"], report["changed"], report["removed"]) == (2, 1, 2)
    assert report["unchanged"] == 15 - 1 - 2
    assert_same_index(repo, clean_copy(repo, tmp_path))


def test_touched_file_keeps_rows_and_refreshes_catalog(repo: Path) -> None:
    run(repo)
    before = dump(repo)
    path = repo / "pkg/mod2.py"
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    embedder = CountingEmbedder()
    report = run(repo, embedder)
    assert report.changed == 0 and report.unchanged == 15 and embedder.texts == []
    assert dump(repo) == before
    store = SQLiteStore.for_repo(repo)
    try:
        assert store.catalog()["pkg/mod2.py"].mtime_ns == path.stat().st_mtime_ns
    finally:
        store.close()


def test_relations_reresolved_across_files(tmp_path: Path) -> None:
    repo = tmp_path / "rel"
    write(
        repo,
        {
            "a.py": "def helper():\n    return 1\n",
            "b.py": "from a import helper\n\ndef use():\n    return helper()\n",
            "c.py": "def other():\n    return helper2()\n",
        },
    )
    run(repo)
    assert stored_relations(repo)[("b.use", "helper")] == "a.helper"
    assert stored_relations(repo)[("c.other", "helper2")] is None
    # the callee is renamed in another file: b's call no longer resolves
    (repo / "a.py").write_text("def helper2():\n    return 2\n", encoding="utf-8")
    report = run(repo)
    assert report.changed == 1 and report.relations_rewritten >= 1
    rels = stored_relations(repo)
    assert rels[("b.use", "helper")] is None
    assert_same_index(repo, clean_copy(repo, tmp_path))
    # ...and back: c.py's call still unresolved (helper2 is not imported there), b's resolves
    (repo / "a.py").write_text("def helper():\n    return 3\n", encoding="utf-8")
    run(repo)
    assert stored_relations(repo)[("b.use", "helper")] == "a.helper"
    assert_same_index(repo, clean_copy(repo, tmp_path))


def test_only_changed_texts_are_reembedded(repo: Path) -> None:
    first = CountingEmbedder()
    run(repo, first)
    assert len(first.texts) == len(set(first.texts)) > 20
    text = (repo / "pkg/mod4.py").read_text(encoding="utf-8")
    (repo / "pkg/mod4.py").write_text(
        text.replace("adds 2.", "adds two, documented better."), encoding="utf-8"
    )
    second = CountingEmbedder()
    report = run(repo, second)
    assert report.changed == 1
    assert len(second.texts) == 1 and "adds two, documented better" in second.texts[0]
    assert report.embeddings_done == 1 and report.embeddings_pending == 0


def test_no_embed_leaves_vectors_pending_then_fills(repo: Path) -> None:
    report = run(repo, embed=False)
    assert report.embeddings_done == 0 and report.embeddings_pending > 0
    pending = report.embeddings_pending
    assert index_status(repo, SQLiteStore.for_repo(repo), HashEmbedder(), HASH_SETTINGS)
    report = run(repo)
    assert report.embeddings_done == pending and report.embeddings_pending == 0


def test_fingerprint_change_reembeds_without_rebuild(repo: Path) -> None:
    run(repo, HashEmbedder(dimensions=64))
    rows_before = dump(repo)["rows"]
    other = CountingEmbedder(dimensions=32)
    report = run(repo, other)
    after = dump(repo)
    assert after["rows"] == rows_before
    assert {v[0] for v in after["vectors"]} == {other.fingerprint}
    assert report.embeddings_done == len(after["vectors"]) == len(other.texts)
    assert after["manifest"]["embedder_fingerprint"] == other.fingerprint
    assert after["manifest"]["dimensions"] == 32
    # the run that switched models says so, once: the next run has nothing to say
    (notice,) = [w for w in report.notices if "embedding model changed" in w]
    assert HashEmbedder(dimensions=64).fingerprint in notice and other.fingerprint in notice
    assert "rows are kept" in notice
    again = run(repo, other)
    assert not [w for w in again.notices]
    assert again.embeddings_done == 0


def test_splitter_change_is_a_mismatch_until_rebuild(repo: Path) -> None:
    run(repo)
    other = Settings(embedder=HASH_SETTINGS.embedder, index=IndexSettings(chunk_size=400))
    with pytest.raises(IndexMismatchError) as err:
        run(repo, settings=other)
    message = str(err.value)
    assert "chunk_size" in message and "--rebuild" in message and "\n" not in message
    report = run(repo, settings=other, rebuild=True)
    assert report.added == 15
    assert dump(repo)["manifest"]["splitter"]["chunk_size"] == 400
    assert run(repo, settings=other).unchanged == 15


def test_dry_run_writes_nothing(repo: Path) -> None:
    report = run(repo, dry_run=True)
    assert not (repo / ".ragstrata").exists()
    data = report.to_dict()
    assert data["dry_run"] is True and data["files"]["added"] == 15
    estimate = data["estimate"]
    assert estimate["rows"]["C1"] > 0 and estimate["embedding_texts"] > 0
    assert estimate["embedding_calls"] >= 1 and estimate["seconds"] >= 0
    assert report.paths["added"][0] == "README.md"
    run(repo)
    before = dump(repo)
    (repo / "pkg/mod1.py").write_text(module_text(1, n_funcs=4), encoding="utf-8")
    report = run(repo, dry_run=True)
    assert report.changed == 1 and report.paths["changed"] == ("pkg/mod1.py",)
    assert dump(repo) == before


@pytest.mark.parametrize("phase", ["write", "embed"])
def test_interrupted_run_resumes_to_clean_index(repo: Path, tmp_path: Path, phase: str) -> None:
    run(repo)
    for i in range(12, 40):  # enough new files for several batches
        write(repo, {f"pkg/new{i}.py": module_text(i)})
    (repo / "pkg/mod2.py").write_text(module_text(2, n_funcs=1), encoding="utf-8")
    (repo / "pkg/mod6.py").unlink()
    seen: list[IndexEvent] = []

    def stop(event: IndexEvent) -> None:
        seen.append(event)
        if (
            event.phase == phase
            and event.done > 0
            and len([e for e in seen if e.phase == phase]) >= 3
        ):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(repo, progress=stop, batch_files=4)
    partial = dump(repo)
    assert partial["files"]  # finished batches stay
    run(repo)
    assert_same_index(repo, clean_copy(repo, tmp_path))
    final = dump(repo)
    assert len(partial["vectors"]) < len(final["vectors"])  # the interrupted run was partial
    if phase == "embed":
        assert partial["vectors"]  # finished embedding batches stay
    if phase == "write":
        assert 0 < len(set(partial["files"]) - set(final["files"])) < 30
        assert len(set(final["files"]) - set(partial["files"])) > 0


def test_body_edit_takes_the_fast_path_and_matches_clean(repo: Path, tmp_path: Path) -> None:
    from ragstrata.ingest.pipeline import extract_file
    from ragstrata.ingest.walker import Walker
    from ragstrata.relations.rerun import resolve_changes

    run(repo)
    path = repo / "pkg/mod3.py"
    path.write_text(
        path.read_text(encoding="utf-8").replace("+ 1\n", "+ 1 + 0\n"), encoding="utf-8"
    )

    def resolution(rel: str) -> object:
        source = next(f for f in Walker(repo, IndexSettings()).files() if f.path == rel)
        store = SQLiteStore.for_repo(repo)
        try:
            return resolve_changes(store, [extract_file(source, IndexSettings())], ())
        finally:
            store.close()

    fast = resolution("pkg/mod3.py")
    assert fast.resolved and not fast.full and not fast.projection_changed  # type: ignore[attr-defined]
    path.write_text(path.read_text(encoding="utf-8") + "\ndef new_one():\n    return 0\n")
    slow = resolution("pkg/mod3.py")
    # a new definition: only relations that can name it are resolved again, not all
    assert slow.resolved and not slow.full and slow.projection_changed == {"pkg/mod3.py"}  # type: ignore[attr-defined]
    path.write_text(
        path.read_text(encoding="utf-8").replace("def new_one():\n    return 0\n", ""),
        encoding="utf-8",
    )
    report = run(repo)
    assert report.changed == 1 and report.relations_rewritten == 0
    assert_same_index(repo, clean_copy(repo, tmp_path))
