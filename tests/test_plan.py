"""The catalog diff (``make_plan``) on real files: which files the cheap size + mtime check
trusts, which it reads, and what a skip rule does to a catalogued file.

The contract, as git's index has it: a catalogued file whose size and ``mtime_ns`` both match
is unchanged without being read; any other difference makes the walker read and hash it, and
equal content only *touches* the catalog entry.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragstrata.core.values import CatalogEntry
from ragstrata.indexer.plan import Plan, make_plan
from ragstrata.settings import IndexSettings, Settings

SETTINGS = Settings()


def _tree(root: Path) -> None:
    files = {
        "a.py": "def a():\n    return 1\n",
        "b.py": "def b():\n    return 2\n",
        "docs/guide.md": "# Руководство\n\nТекст.\n",
        "pkg/c.py": "C = 3\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _catalog(plan: Plan, old: dict[str, CatalogEntry] | None = None) -> dict[str, CatalogEntry]:
    """The catalog after applying ``plan`` (what the indexer writes)."""
    catalog = {p: e for p, e in (old or {}).items() if p not in plan.removed}
    catalog.update(plan.entries)
    return catalog


def _same_stat_write(path: Path, text: str) -> None:
    """Write ``text`` (same length as before) and put the old mtime back."""
    st = path.stat()
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size == st.st_size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_first_plan_reads_everything_then_nothing(tmp_path: Path) -> None:
    _tree(tmp_path)
    first = make_plan(tmp_path, SETTINGS, {})
    assert first.added == ("a.py", "b.py", "docs/guide.md", "pkg/c.py")
    assert set(first.files) == set(first.added) and first.files["docs/guide.md"].text
    again = make_plan(tmp_path, SETTINGS, _catalog(first))
    assert again.is_noop and again.files == {} and again.unchanged == first.added


def test_touched_changed_and_unchanged(tmp_path: Path) -> None:
    _tree(tmp_path)
    catalog = _catalog(make_plan(tmp_path, SETTINGS, {}))
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "pkg/c.py"
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # mtime only: touched
    b.write_text("def b():\n    return 9\n", encoding="utf-8")  # same size, new mtime
    os.utime(b, ns=(st.st_atime_ns, catalog["b.py"].mtime_ns + 5))
    c.write_text("C = 33\n", encoding="utf-8")  # new size
    os.utime(c, ns=(st.st_atime_ns, catalog["pkg/c.py"].mtime_ns))  # ... under the old mtime
    plan = make_plan(tmp_path, SETTINGS, catalog)
    assert plan.touched == ("a.py",) and "a.py" not in plan.files
    assert plan.entries["a.py"].mtime_ns == st.st_mtime_ns + 10**9
    assert plan.entries["a.py"].sha256 == catalog["a.py"].sha256
    assert plan.changed == ("b.py", "pkg/c.py")
    assert plan.files["b.py"].text.endswith("return 9\n") and plan.files["pkg/c.py"].size == 7
    assert plan.unchanged == ("docs/guide.md",)
    assert not plan.added and not plan.removed


def test_same_size_and_mtime_is_trusted_without_reading(tmp_path: Path) -> None:
    """The no-op's speed comes from here: content changed under a restored mtime and an equal
    size is not seen (as with git); any other stat difference is."""
    _tree(tmp_path)
    catalog = _catalog(make_plan(tmp_path, SETTINGS, {}))
    _same_stat_write(tmp_path / "a.py", "def z():\n    return 1\n")
    plan = make_plan(tmp_path, SETTINGS, catalog)
    assert plan.is_noop and "a.py" in plan.unchanged
    os.utime(tmp_path / "a.py")  # the next save moves the mtime: now it is read
    plan = make_plan(tmp_path, SETTINGS, catalog)
    assert plan.changed == ("a.py",) and "def z()" in plan.files["a.py"].text


def test_skip_rules_apply_before_the_catalog(tmp_path: Path) -> None:
    """A catalogued file is never kept by the cheap check once a rule skips it: gitignored,
    grown past the size limit, replaced by a FIFO or removed; a new ignore file counts."""
    _tree(tmp_path)
    catalog = _catalog(make_plan(tmp_path, SETTINGS, {}))
    (tmp_path / ".gitignore").write_text("docs/\n", encoding="utf-8")
    big = tmp_path / "a.py"
    st = big.stat()
    big.write_text("x = 1\n" * 400, encoding="utf-8")
    os.utime(big, ns=(st.st_atime_ns, st.st_mtime_ns))
    (tmp_path / "b.py").unlink()
    if hasattr(os, "mkfifo"):
        (tmp_path / "pkg/c.py").unlink()
        os.mkfifo(tmp_path / "pkg/c.py")
    small = Settings(index=IndexSettings(max_file_bytes=1000))
    plan = make_plan(tmp_path, small, catalog)
    removed = {"a.py", "b.py", "docs/guide.md"} | ({"pkg/c.py"} if hasattr(os, "mkfifo") else set())
    assert set(plan.removed) == removed
    assert plan.added == (".gitignore",)
    assert plan.skipped["too_large"] == 1 and plan.skipped["gitignored"] == 1


@pytest.mark.parametrize("settings_key", ["exclude", "include"])
def test_settings_globs_apply_to_catalogued_files(tmp_path: Path, settings_key: str) -> None:
    _tree(tmp_path)
    catalog = _catalog(make_plan(tmp_path, SETTINGS, {}))
    globs = ("docs/",) if settings_key == "exclude" else ("*.py",)
    index = IndexSettings.model_validate({settings_key: globs})
    plan = make_plan(tmp_path, Settings(index=index), catalog)
    assert plan.removed == ("docs/guide.md",) and plan.unchanged == ("a.py", "b.py", "pkg/c.py")
