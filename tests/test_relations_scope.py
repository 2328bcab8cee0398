"""Scoped relation re-resolution (issue 15): after edits that add, remove or move definitions,
re-resolving only the relations a change can reach gives exactly the index of a clean run —
checked on this package's own source tree, a real code base with classes, imports and
``self`` calls."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ragstrata
from ragstrata.indexer import IndexEvent
from test_indexer import clean_copy, dump, run

pytestmark = pytest.mark.slow

SOURCE = Path(ragstrata.__file__).parent
PARTS = ("__init__.py", "errors.py", "settings.py", "text", "core", "indexer", "store", "query")
"""The part of the package copied (about 70 modules: every module the edits touch and the
packages that import and call them most); a clean run of it is a third of the whole."""


def _only_parts(folder: str, names: list[str]) -> set[str]:
    skipped = {"data", "web", "__pycache__"}
    if Path(folder) == SOURCE:
        skipped |= {n for n in names if n not in PARTS}
    return skipped & set(names)


def _defining(pkg: Path, line: str) -> Path:
    """The one module of ``pkg`` with a line starting with ``line`` (found, not hard-coded:
    modules move)."""
    found = [
        p
        for p in sorted(pkg.rglob("*.py"))
        if any(x.startswith(line) for x in p.read_text(encoding="utf-8").splitlines())
    ]
    assert len(found) == 1, (line, found)
    return found[0]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_scoped_resolution_equals_a_clean_run_on_a_real_tree(tmp_path: Path) -> None:
    repo = tmp_path / "tree"
    shutil.copytree(SOURCE, repo / "ragstrata", ignore=_only_parts)
    run(repo, embed=False)
    pkg = repo / "ragstrata"
    edits = [
        # a second definition of a name that many files import and call
        lambda: _append(pkg / "text/tokens.py", "\n\ndef last_segment(name):\n    return name\n"),
        # a definition others call disappears
        lambda: _edit(
            _defining(pkg, "def check_top_k("), "def check_top_k(", "def check_top_k_renamed("
        ),
        # a second method named like one that ``self.x()`` finds as the only one of its name
        lambda: _edit(
            pkg / "errors.py",
            "class RagstrataError(Exception):",
            "class RagstrataError(Exception):\n    def fingerprint(self):\n        return 1\n",
        ),
        # a whole module goes away, another appears
        lambda: (pkg / "indexer/status.py").unlink(),
        lambda: (pkg / "indexer/extra.py").write_text(
            "from ragstrata.indexer.plan import make_plan\n\n\ndef index_status(*a):\n"
            "    return make_plan(*a)\n",
            encoding="utf-8",
        ),
        # a class hierarchy changes: everything is resolved again
        lambda: _edit(
            pkg / "errors.py",
            "class ConfigError(UserError, ValueError)",
            "class ConfigError(ValueError)",
        ),
    ]
    # three runs, each compared with a clean run: the first two edits, the next three, then the
    # hierarchy change (a clean run of the tree is the slow part of this test)
    rounds = [edits[:2], edits[2:5], edits[5:]]
    how: list[str] = []
    for i, batch in enumerate(rounds):
        for edit in batch:
            edit()
        messages: list[str] = []

        def keep(event: IndexEvent, messages: list[str] = messages) -> None:
            if event.phase == "resolve" and event.done == 1:
                messages.append(event.message)

        run(repo, embed=False, progress=keep)
        how.extend(messages)
        clean = clean_copy(repo, tmp_path / f"clean{i}")
        _same_rows(repo, clean)
    assert all("of unchanged files resolved again" in m for m in how[:-1]), how
    assert how[-1] == "all relations resolved again", how


def _same_rows(a: Path, b: Path) -> None:
    """Rows, relations and catalog equal (the clean copy also has vectors: not compared)."""
    da, db = dump(a), dump(b)
    for key in ("rows", "files", "relations", "definitions"):
        assert da[key] == db[key], f"indexes differ in {key}"
