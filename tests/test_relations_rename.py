"""A renamed definition re-indexes through the scoped path and ends with exactly the index of
a clean run (issue 15): on a multi-language tree (every code fixture plus one real package of
this repository), each definition that other files call is renamed, then put back."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import ragstrata
from ragstrata.indexer import IndexEvent
from test_indexer import clean_copy, dump, run
from test_relations_scope import _same_rows

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures" / "code"
SOURCE = Path(ragstrata.__file__).parent


def _tree(root: Path) -> Path:
    repo = root / "tree"
    shutil.copytree(FIXTURES, repo / "fixtures")
    for sub in ("indexer",):  # one package of real Python (its modules import each other)
        shutil.copytree(SOURCE / sub, repo / "ragstrata" / sub)
    (repo / "ragstrata" / "__init__.py").write_text("", encoding="utf-8")
    return repo


def _called_elsewhere(repo: Path) -> list[tuple[str, str, int]]:
    """(path, name, line) of one function or method per language that relations of another
    file name, preferring one they resolve to (found in the index, not hard-coded: the
    fixtures may change)."""
    conn = sqlite3.connect(repo / ".ragstrata" / "index.sqlite")
    try:
        defs = conn.execute(
            "SELECT d.path, d.name, d.language, r.start_line, d.symbol FROM definitions d "
            "JOIN rows r ON r.id = d.row_id WHERE d.kind IN ('function', 'method') "
            "ORDER BY d.path, d.seq"
        ).fetchall()
        callers: dict[str, set[str]] = {}
        exact: dict[str, set[str]] = {}
        for path, to_name, to_symbol in conn.execute(
            "SELECT r.path, x.to_name, x.to_symbol FROM relations x JOIN rows r ON r.id = x.row_id"
        ):
            for token in re.findall(r"\w+", to_name):
                callers.setdefault(token, set()).add(path)
            if to_symbol:
                exact.setdefault(to_symbol, set()).add(path)
    finally:
        conn.close()
    chosen: dict[str, tuple[bool, tuple[str, str, int]]] = {}
    for path, name, language, line, symbol in defs:
        resolved = bool(exact.get(symbol, set()) - {path})
        named = bool(callers.get(name, set()) - {path})
        better = language not in chosen or (resolved and not chosen[language][0])
        if len(name) > 3 and (resolved or named) and better:
            chosen[language] = (resolved, (path, name, line))
    return sorted(found for _, found in chosen.values())


def _rename(repo: Path, path: str, line: int, old: str, new: str) -> None:
    file = repo / path
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    renamed = re.sub(rf"\b{re.escape(old)}\b", new, lines[line - 1], count=1)
    assert renamed != lines[line - 1], (path, line, old)
    lines[line - 1] = renamed
    file.write_text("".join(lines), encoding="utf-8")


def test_rename_and_restore_equal_a_clean_run(tmp_path: Path) -> None:
    repo = _tree(tmp_path)
    run(repo, embed=False)
    original = dump(repo)  # a clean run of the original tree: what every restore must give
    targets = _called_elsewhere(repo)
    assert len(targets) >= 4, targets  # several languages take part
    how: list[str] = []
    rewritten = 0
    for i, (path, name, line) in enumerate(targets):
        for old, new in ((name, name + "Renamed"), (name + "Renamed", name)):
            _rename(repo, path, line, old, new)

            def keep(event: IndexEvent) -> None:
                if event.phase == "resolve" and event.done == 1:
                    how.append(event.message)

            report = run(repo, embed=False, progress=keep)
            assert report.changed == 1
            rewritten += report.relations_rewritten
            if new == name:  # restored: the same content as the first, clean, run
                now = dump(repo)
                for key in ("rows", "files", "relations", "definitions"):
                    assert now[key] == original[key], f"restored index differs in {key}"
            else:
                _same_rows(repo, clean_copy(repo, tmp_path / f"clean{i}"))
    assert all("of unchanged files resolved again" in m for m in how), how
    assert rewritten > 0  # another file's relation target moved, and moved back


def test_an_import_target_the_reach_cannot_explain_sends_the_run_down_the_full_path(
    tmp_path: Path,
) -> None:
    """The scoped path trusts that unreached relations keep their targets; every import is
    checked against the new index anyway, and one that no longer holds (here: a stored
    target damaged behind the indexer's back) makes the run resolve everything again."""
    repo = _tree(tmp_path)
    run(repo, embed=False)
    db = repo / ".ragstrata" / "index.sqlite"
    conn = sqlite3.connect(db)
    row_id, payload = conn.execute(
        "SELECT r.id, r.payload FROM relations x JOIN rows r ON r.id = x.row_id "
        "WHERE x.relation = 'imports' AND x.to_symbol IS NOT NULL ORDER BY r.path LIMIT 1"
    ).fetchone()
    damaged = json.loads(payload)
    damaged["to_symbol"], damaged["resolution"] = None, "external"
    conn.execute("UPDATE relations SET to_symbol = NULL WHERE row_id = ?", (row_id,))
    conn.execute("UPDATE rows SET payload = ? WHERE id = ?", (json.dumps(damaged), row_id))
    conn.commit()
    conn.close()
    path, name, line = _called_elsewhere(repo)[0]
    _rename(repo, path, line, name, name + "Renamed")
    how: list[str] = []
    report = run(
        repo,
        embed=False,
        progress=lambda e: how.append(e.message) if e.phase == "resolve" and e.done else None,
    )
    assert how == ["all relations resolved again"] and report.relations_rewritten >= 1
    _same_rows(repo, clean_copy(repo, tmp_path / "clean"))
