"""The indexer parks extracted rows on disk while it resolves relations (indexer/spool.py):
the rows come back whole, resolution sees no text, and the index is the same as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    FileRows,
    Layer,
    RelationRow,
    SourceFile,
)
from ragstrata.indexer import Indexer
from ragstrata.indexer.spool import RowSpool
from ragstrata.ingest.pipeline import extract_file
from ragstrata.relations import run as relations_run
from ragstrata.relations.run import (
    definition_key,
    for_resolution,
    resolution_context,
    with_relations,
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


def _all_rows(repo: Path) -> dict[str, Any]:
    store = SQLiteStore.for_repo(repo)
    try:
        return {r.id: r for rs in rows_by_path(store, None).values() for r in rs}
    finally:
        store.close()


def test_a_first_index_equals_one_built_file_by_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first index resolves relations as it writes (RelationResolver, a file at a time);
    an index grown by incremental runs resolves them in ``resolve_changes``. Same rows."""
    first, grown = tmp_path / "first", tmp_path / "grown"
    make_repo(first)
    make_repo(grown)
    store = SQLiteStore.for_repo(first)
    try:
        Indexer(first, store, HashEmbedder(), HASH_SETTINGS).run(embed=False)
    finally:
        store.close()
    later = sorted(grown.glob("pkg/mod*.py"))[::2]
    held = {f: f.read_text() for f in later}
    for f in later:
        f.unlink()
    seen: list[FileRows] = []
    real = relations_run.resolve_changes

    def watching(store: Any, files: Any, gone: Any) -> Any:
        seen.extend(files)
        return real(store, files, gone)

    monkeypatch.setattr(relations_run, "resolve_changes", watching)
    for _ in (1, 2):  # half the modules, then the rest: the incremental path
        store = SQLiteStore.for_repo(grown)
        try:
            Indexer(grown, store, HashEmbedder(), HASH_SETTINGS).run(embed=False)
        finally:
            store.close()
        for f, text in held.items():
            f.write_text(text)
    assert seen and all(fr.file.text == "" for fr in seen)  # the incremental path saw no text
    assert all(r.text == "" for fr in seen for r in fr.rows if isinstance(r, DefinitionRow))
    rows = _all_rows(first)
    assert rows == _all_rows(grown)
    defs = [r for r in rows.values() if isinstance(r, DefinitionRow)]
    rels = [r for r in rows.values() if isinstance(r, RelationRow)]
    assert defs and all(d.text and d.content_hash for d in defs)  # the whole rows came back
    assert any(isinstance(r, ChunkRow) and r.text for r in rows.values())
    assert rels and all(r.resolution for r in rels)
    calls = {(r.from_symbol, r.to_symbol) for r in rels if r.relation == "calls"}
    assert ("pkg.mod0.func_0_0", "pkg.mod1.func_1_0") in calls  # a cross-file target


HIERARCHY = {
    "shop/base.py": "class Base:\n    def save(self):\n        return 1\n",
    "shop/orders.py": (
        "from shop.base import Base as B\nimport shop.util as u\n\n\n"
        "class Order(B):\n    def place(self):\n        u.log('заказ')\n        return self.save()\n"
    ),
    "shop/util.py": "def log(msg):\n    return msg\n",
    "shop/__init__.py": "from shop.orders import Order\n",
}


def test_relation_resolver_resolves_as_the_whole_repository_does() -> None:
    """Context only (imports, base classes, a relation per file), one relation at a time:
    the same targets as resolving every relation together (aliases and ``self.save()``
    through the base class included)."""
    from ragstrata.relations.resolve import RelationResolver, resolve_relations

    files = [extracted(p, t) for p, t in sorted(HIERARCHY.items())]
    rows = [r for fr in files for r in fr.rows]
    defs = [r for r in rows if isinstance(r, DefinitionRow)]
    rels = [r for r in rows if isinstance(r, RelationRow)]
    everything = resolve_relations(defs, rels)
    context = [c for fr in files for c in resolution_context(fr.rows)]
    assert len(context) < len(rels)
    one = RelationResolver([definition_key(d) for d in defs], context)
    assert [one.resolve(r) for r in rels] == everything
    targets = {(r.from_symbol, r.to_symbol) for r in everything}
    assert ("shop.orders.Order.place", "shop.base.Base.save") in targets
    assert ("shop.orders.Order.place", "shop.util.log") in targets


def test_a_resolver_failure_leaves_relations_unresolved_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragstrata.relations.resolve import RelationResolver

    repo = tmp_path / "repo"
    make_repo(repo)
    real = RelationResolver.resolve

    def odd(self: RelationResolver, rel: RelationRow) -> RelationRow:
        if rel.to_name.startswith("func_1_0"):
            raise RecursionError("odd input")  # stands for a resolver bug on one relation
        return real(self, rel)

    monkeypatch.setattr(RelationResolver, "resolve", odd)
    store = SQLiteStore.for_repo(repo)
    try:
        report = Indexer(repo, store, HashEmbedder(), HASH_SETTINGS).run(embed=False)
    finally:
        store.close()
    failed = [w for w in report.warnings if w.startswith("relation resolution failed")]
    assert len(failed) == 1 and "RecursionError: odd input" in failed[0], report.warnings
    rels = [r for r in _all_rows(repo).values() if isinstance(r, RelationRow)]
    odd_ones = [r for r in rels if r.to_name.startswith("func_1_0")]
    assert odd_ones and all(r.resolution == "" for r in odd_ones)  # kept as extracted
    assert all(r.resolution for r in rels if r not in odd_ones)  # the others resolved
