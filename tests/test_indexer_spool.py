"""The indexer parks extracted rows on disk while it resolves relations (indexer/spool.py):
the rows come back whole, resolution sees no text, and the index is the same as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragstrata.indexer import Indexer
from ragstrata.indexer import run as indexer_run
from ragstrata.indexer.spool import RowSpool, for_resolution, with_relations
from ragstrata.ingest.pipeline import extract_file
from ragstrata.ingest.rows import (
    ChunkRow,
    DefinitionRow,
    FileRows,
    Layer,
    RelationRow,
    SourceFile,
)
from ragstrata.settings import Settings
from ragstrata.store.scan import rows_by_path
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder
from test_indexer import HASH_SETTINGS, make_repo

CODE = '''"""Платежи: модуль оплаты."""
from helpers import fee


def charge(amount):
    """Списать сумму с карты (charge the card)."""
    return amount + fee(amount)


class Payment:
    def run(self):
        return charge(1)
'''


def extracted(path: str = "pay.py", text: str = CODE) -> FileRows:
    source = SourceFile(
        path=path, language="python", is_test=False, is_doc=False, size=len(text),
        mtime_ns=1, sha256="0" * 64, text=text,
    )  # fmt: skip
    return extract_file(source, Settings().index)


def test_spool_gives_each_file_its_rows_back_once(tmp_path: Path) -> None:
    a, b = extracted("a.py"), extracted("b.py", CODE.replace("charge", "refund"))
    with RowSpool(tmp_path) as spool:
        spool.put("a.py", a.rows)
        spool.put("b.py", b.rows)
        assert list(tmp_path.iterdir()) == []  # unlinked: nothing to leave behind on a kill
        assert spool.take("b.py") == b.rows
        assert spool.take("a.py") == a.rows
        assert len(spool) == 0
        with pytest.raises(KeyError):
            spool.take("a.py")
        spool.put("c.py", a.rows)
        with pytest.raises(ValueError, match="already spooled"):
            spool.put("c.py", a.rows)
    assert list(tmp_path.iterdir()) == []


def test_resolution_reads_definitions_and_relations_without_text() -> None:
    whole = extracted()
    light = for_resolution(whole)
    assert light.file.text == ""
    assert {r.layer for r in light.rows} == {Layer.C1, Layer.C2}
    assert all(r.content_hash == "" for r in light.rows)
    assert all(
        r.text == "" and r.docstring is None for r in light.rows if isinstance(r, DefinitionRow)
    )
    kept = [r for r in whole.rows if isinstance(r, (DefinitionRow, RelationRow))]
    assert [r.id for r in light.rows] == [r.id for r in kept]
    assert [getattr(r, "symbol", None) for r in light.rows] == [
        getattr(r, "symbol", None) for r in kept
    ]


def test_with_relations_copies_targets_onto_the_whole_rows() -> None:
    whole = extracted()
    light = for_resolution(whole)
    resolved = replace(
        light,
        rows=tuple(
            replace(r, to_symbol=f"pkg.{r.to_name}", resolution="exact")
            if isinstance(r, RelationRow)
            else r
            for r in light.rows
        ),
    )
    out = with_relations(whole.rows, resolved)
    assert len(out) == len(whole.rows)
    for before, after in zip(whole.rows, out, strict=True):
        if isinstance(before, RelationRow):
            assert isinstance(after, RelationRow)
            assert (after.to_symbol, after.resolution) == (f"pkg.{before.to_name}", "exact")
            assert after.content_hash == before.content_hash != ""
        else:
            assert after is before  # text, chunks and docs untouched
    fewer = replace(resolved, rows=tuple(r for r in resolved.rows if r.layer != Layer.C2)[:1])
    with pytest.raises(ValueError, match="number of relations"):
        with_relations(whole.rows, fewer)


def test_a_first_index_writes_whole_rows_with_resolved_relations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    make_repo(repo)
    seen: list[FileRows] = []
    real = indexer_run.resolve_changes

    def watching(store: Any, files: Any, gone: Any) -> Any:
        seen.extend(files)
        return real(store, files, gone)

    monkeypatch.setattr(indexer_run, "resolve_changes", watching)
    store = SQLiteStore.for_repo(repo)
    try:
        Indexer(repo, store, HashEmbedder(), HASH_SETTINGS).run()
        rows = [r for rs in rows_by_path(store, None).values() for r in rs]
    finally:
        store.close()
    assert seen and all(fr.file.text == "" for fr in seen)  # resolution saw no text
    defs = [r for r in rows if isinstance(r, DefinitionRow)]
    rels = [r for r in rows if isinstance(r, RelationRow)]
    assert defs and all(d.text and d.content_hash for d in defs)  # the whole rows came back
    assert any(isinstance(r, ChunkRow) and r.text for r in rows)
    assert rels and all(r.resolution for r in rels)
    calls = {(r.from_symbol, r.to_symbol) for r in rels if r.relation == "calls"}
    assert ("pkg.mod0.func_0_0", "pkg.mod1.func_1_0") in calls  # a cross-file target
