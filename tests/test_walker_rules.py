"""The walker's fast paths give the verdicts of the rules they shortcut: virtualenv markers
found in the folder's listing (and still checked before the folder's .gitignore verdict), the
default rules looked up once per name, and the ``reuse`` hook a catalog walk plugs in.
"""

from __future__ import annotations

import os
from pathlib import Path

from ragstrata.core.rows import SourceFile
from ragstrata.ingest.ignore import SkipReason, dir_name_rules, file_name_rules, matches, skip_rules
from ragstrata.ingest.walker import Walker, walk
from ragstrata.settings import IndexSettings


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_virtualenv_markers_and_their_order(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "ignored-env/\nplain-ignored/\n",
            ".ragstrataignore": "!kept-env/\n",
            "ignored-env/pyvenv.cfg": "home = /usr\n",  # a venv first, then gitignored
            "ignored-env/m.py": "x = 1\n",
            "plain-ignored/m.py": "x = 1\n",
            "win/Scripts/activate.bat": "@echo off\n",
            "win/m.py": "x = 1\n",
            "kept-env/pyvenv.cfg": "home = /usr\n",  # re-included: never checked for markers
            "kept-env/m.py": "x = 1\n",
            "scripts/run.py": "print('no marker under scripts/')\n",
            "bin/tool.py": "print('bin/ without activate')\n",
            "tools/bin/activate/readme.md": "# activate is a folder here: still a marker\n",
            "окружение/conda-meta/history": "x\n",
            "окружение/m.py": "x = 1\n",
        },
    )
    files, report = walk(tmp_path, IndexSettings())
    assert [f.path for f in files] == [
        ".gitignore",
        ".ragstrataignore",
        "bin/tool.py",
        "kept-env/m.py",
        "kept-env/pyvenv.cfg",
        "scripts/run.py",
    ]
    assert report.skipped == {"venv": 4, "gitignored": 1}
    assert sorted(report.examples["venv"]) == ["ignored-env/", "tools/", "win/", "окружение/"]
    assert report.examples["gitignored"] == ["plain-ignored/"]


def test_name_rules_agree_with_the_rule_globs() -> None:
    rules = skip_rules()
    names = [".git", "yarn.lock", "app.min.js", ".env", "credentials.json", "main.py", "build"]
    names += ["node_modules", ".venv", "x.egg-info", ".idea", "ключи.pem", "README.md"]
    for name in names:
        vcs, secret, unless_code, named = file_name_rules(name)
        assert vcs == matches(name, rules.vcs) and secret == matches(name, rules.secret)
        assert unless_code == matches(name, rules.secret_unless_code)
        assert named == next((r for r, g in rules.files if matches(name, g)), None)
        folder_vcs, folder_reason = dir_name_rules(name)
        assert folder_vcs == vcs
        assert folder_reason == next((r for r, g in rules.dirs if matches(name, g)), None)
    assert file_name_rules("yarn.lock")[3] is SkipReason.LOCK_FILE
    assert dir_name_rules("node_modules") == (False, SkipReason.NODE_MODULES)


class _Reusing(Walker):
    def __init__(self, root: Path, known: set[str]) -> None:
        super().__init__(root, IndexSettings(max_file_bytes=100))
        self.known = known
        self.asked: list[str] = []

    def reuse(self, rel: str, st: os.stat_result) -> SourceFile | None:
        self.asked.append(rel)
        if rel not in self.known:
            return None
        return SourceFile(
            path=rel, language="", is_test=False, is_doc=False, size=st.st_size,
            mtime_ns=st.st_mtime_ns, sha256="", text="",
        )  # fmt: skip


def test_reuse_hook_sees_only_accepted_regular_files(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a.py": "a = 1\n",
            "b.py": "b = 2\n",
            "big.py": "x = 1\n" * 50,  # over max_file_bytes: skipped before the hook
            ".env": "TOKEN=1\n",  # a secret: skipped before the hook
            "yarn.lock": "x\n",
        },
    )
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.py")
    walker = _Reusing(tmp_path, {"a.py"})
    files = list(walker.files())
    assert walker.asked == ["a.py", "b.py"]
    assert [(f.path, f.text) for f in files] == [("a.py", ""), ("b.py", "b = 2\n")]
    assert walker.report.files == 2 and walker.report.bytes == 12
    assert walker.report.skipped["too_large"] == 1 and walker.report.skipped["secret"] == 1


class _Growing(Walker):
    """Appends to each file between its stat and its read (what a concurrent writer does)."""

    def reuse(self, rel: str, st: os.stat_result) -> SourceFile | None:
        with open(self.root / rel, "ab") as fh:
            fh.write(b"\0" * 200)
        return None


def test_binary_verdict_reads_only_the_head_and_keeps_its_precedence(tmp_path: Path) -> None:
    rules = skip_rules()
    head = b"\x00\x01binary" + b"x" * rules.sniff_bytes
    (tmp_path / "image.bin").write_bytes(head + b"\n" * 5000)
    (tmp_path / "late.txt").write_bytes(b"text\n" * (rules.sniff_bytes // 5 + 1) + b"\x00tail")
    (tmp_path / "tiny.bin").write_bytes(b"\x00")
    files, report = walk(tmp_path, IndexSettings())
    assert [f.path for f in files] == ["late.txt"]  # a NUL past the sniffed head is text
    assert files[0].text.endswith("\x00tail") and files[0].size == len(files[0].text)
    assert report.skipped == {"binary": 2}
    # grown past the limit between stat and read: "too large" wins over "binary", as before
    small = tmp_path / "small"
    small.mkdir()
    limit = rules.sniff_bytes + 100  # the head alone fits: only the file's size tells
    (small / "a.bin").write_bytes(b"\x00" * (limit - 50))
    (small / "b.bin").write_bytes(b"\x00" * 50)  # still within the limit after growing
    (small / "c.txt").write_bytes(b"text\n" * (limit // 5 - 20))
    walker = _Growing(small, IndexSettings(max_file_bytes=limit))
    assert list(walker.files()) == []
    assert walker.report.skipped == {"too_large": 2, "binary": 1}
    assert walker.report.examples["binary"] == ["b.bin"]
