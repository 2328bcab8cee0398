"""The repository walker against hostile repositories built at test time.

Ignore handling is checked against git itself (``git ls-files --others --exclude-standard``) as
the oracle; every other skip rule and every kind of bad file has its own test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ragstrata.core.languages import detect_language, is_doc, is_test, shebang_interpreter
from ragstrata.errors import RepositoryNotFoundError
from ragstrata.ingest.walker import SkipReason, Walker, walk
from ragstrata.settings import IndexSettings

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))


def _paths(root: Path, **settings: object) -> tuple[list[str], dict[str, int]]:
    files, report = walk(root, IndexSettings(**settings))  # type: ignore[arg-type]
    return [f.path for f in files], dict(report.skipped)


# ---------------------------------------------------------------------------- git oracle

GITIGNORES = {
    ".gitignore": "\n".join(
        [
            "# comment line",
            "*.log",
            "!keep.log",
            "important/*.log",
            "build_art/",
            "/anchored.txt",
            "dironly/",
            "fileonly",
            "src/gen/",
            "**/z/*.tmp",
            "star/**/d.txt",
            "notes/*",
            "!notes/final.txt",
            "trailing.txt   ",
            "\\#hash.txt",
            "\\!bang.txt",
            "cache/**",
            "!cache/two/",
            "p/q",
            "!p/q/s.txt",
            "/k/*/",
            "[ab]x.dat",
            "?.one",
            "mid/dle/file.txt",
            "**/anywhere/",
            "neg_dir/",
            "!neg_dir/inside.txt",
            "",
        ]
    ),
    "src/.gitignore": "!gen/keep.txt\n*.md\n!README.md\n",
    "x/.gitignore": "*.tmp\n!keep.tmp\n/rooted.txt\n",
    "x/y/.gitignore": "!deep.tmp\n",
    "docs/.gitignore": "private/*\n!private/ok.md\n",
    "deep/a/.gitignore": "b/c/\n",
    "crlfdir/.gitignore": "*.tmp2\r\n!keep.tmp2\r\n",
}
ORACLE_FILES = [
    "crlfdir/a.tmp2",
    "crlfdir/keep.tmp2",
    "crlfdir/b.txt",
    "юникод/файл.log",
    "юникод/файл.txt",
    "a.log",
    "keep.log",
    "important/a.log",
    "important/deep/b.log",
    "important/readme.txt",
    "build_art/x.txt",
    "src/build_art/y.txt",
    "src/main.txt",
    "src/gen/out.txt",
    "src/gen/keep.txt",
    "src/notes.md",
    "src/README.md",
    "docs/a.md",
    "docs/private/hidden.md",
    "docs/private/ok.md",
    "anchored.txt",
    "sub/anchored.txt",
    "dironly/f.txt",
    "fileonly",
    "sub/dironly",
    "sub/fileonly/z.txt",
    "x/y/z/deep.tmp",
    "x/q.tmp",
    "x/y/z/keep.tmp",
    "x/rooted.txt",
    "x/y/rooted.txt",
    "star/a/b/c/d.txt",
    "star/a/e.txt",
    "star/d.txt",
    "star/f.txt",
    "notes/draft.txt",
    "notes/final.txt",
    "space name.txt",
    "trailing.txt",
    "hash.txt",
    "#hash.txt",
    "bang.txt",
    "!bang.txt",
    "cache/one.txt",
    "cache/two/three.txt",
    "p/q/r.txt",
    "p/q/s.txt",
    "k/l/m.txt",
    "k/top.txt",
    "ax.dat",
    "bx.dat",
    "cx.dat",
    "a.one",
    "ab.one",
    "mid/dle/file.txt",
    "other/mid/dle/file.txt",
    "q/anywhere/f.txt",
    "anywhere/g.txt",
    "anywhere.txt",
    "neg_dir/inside.txt",
    "neg_dir/other.txt",
    "deep/a/b/c/f.txt",
    "deep/a/x/b/c/f.txt",
    "deep/b/c/f.txt",
    "info_excluded.txt",
    "sub2/info_excluded.txt",
]


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_gitignore_matches_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", ".")
    _write(root, {name: "x\n" for name in ORACLE_FILES})
    _write(root, GITIGNORES)
    (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("/info_excluded.txt\n")
    expected = sorted(
        _git(root, "ls-files", "--others", "--exclude-standard", "-z").split("\0")[:-1]
    )
    got, skipped = _paths(root)
    assert got == expected
    # The oracle really exercised ignoring, re-inclusion and nested files.
    assert "keep.log" in got and "a.log" not in got
    assert "src/gen/keep.txt" not in got  # a file in an ignored folder cannot be re-included
    assert "x/y/z/deep.tmp" in got and "x/q.tmp" not in got
    assert "sub2/info_excluded.txt" in got and "info_excluded.txt" not in got
    assert skipped["gitignored"] > 10


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_check_ignore_agrees_for_every_path(tmp_path: Path) -> None:
    """Per-path oracle: whatever the walker skips as gitignored, git check-ignore ignores."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", ".")
    _write(root, {name: "x\n" for name in ORACLE_FILES})
    _write(root, GITIGNORES)
    walker = Walker(root, IndexSettings())
    kept = {f.path for f in walker.files()}
    candidates = [p for p in ORACLE_FILES if p not in kept]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "check-ignore", "-z", "--stdin"],
        cwd=root,
        env=env,
        input="\0".join(candidates) + "\0",
        capture_output=True,
        text=True,
        check=False,
    )
    ignored = set(done.stdout.split("\0")[:-1])
    assert ignored == set(candidates)


# ---------------------------------------------------------------------------- ragstrata rules


def test_ragstrataignore_and_settings_globs(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "generated.py\n",
            ".ragstrataignore": "vendor/\n*.snap\n!generated.py\n!dist/\n",
            "sub/.ragstrataignore": "local.txt\n",
            "vendor/lib.py": "x = 1\n",
            "a.snap": "snap\n",
            "generated.py": "y = 2\n",
            "dist/bundle.py": "z = 3\n",
            "sub/local.txt": "l\n",
            "local.txt": "top\n",
            "src/app.py": "print(1)\n",
            "src/app_test.go": "package x\n",
            "notes.md": "# n\n",
        },
    )
    got, skipped = _paths(tmp_path)
    assert got == [
        ".gitignore",
        ".ragstrataignore",
        "dist/bundle.py",  # re-included by a .ragstrataignore negation over the default rule
        "generated.py",  # re-included over .gitignore
        "local.txt",
        "notes.md",
        "src/app.py",
        "src/app_test.go",
        "sub/.ragstrataignore",
    ]
    assert skipped == {"ragstrataignore": 3}

    got, skipped = _paths(tmp_path, include=("src/**", "*.md"), exclude=("*_test.go",))
    assert got == ["notes.md", "src/app.py"]
    assert skipped["excluded"] == 1 and skipped["not_included"] >= 5


def test_default_skips(tmp_path: Path) -> None:
    minified = "var a=1;" * 600  # one 4800-char line
    _write(
        tmp_path,
        {
            "main.py": "print('ok')\n",
            ".git/config": "[core]\n",
            ".hg/store": "x\n",
            "sub/.git": "gitdir: ../.git/modules/sub\n",
            "node_modules/left-pad/index.js": "module.exports = 1\n",
            ".venv/lib/site.py": "x\n",
            "env/pyvenv.cfg": "home = /usr\n",
            "env/lib/mod.py": "x\n",
            "myenv/conda-meta/history": "x\n",
            "old-venv/bin/activate": "x\n",
            "lib/venv/__init__.py": "# a package named venv is source, not a virtualenv\n",
            "__pycache__/m.cpython-311.pyc": b"\x00\x01",
            "build/out.py": "x\n",
            "dist/pkg.py": "x\n",
            "target/debug.rs": "x\n",
            "pkg.egg-info/PKG-INFO": "x\n",
            ".mypy_cache/x.json": "{}\n",
            ".ragstrata/index.sqlite": "x\n",
            "package-lock.json": "{}\n",
            "yarn.lock": "x\n",
            "poetry.lock": "x\n",
            "go.sum": "x\n",
            "Cargo.lock": "x\n",
            "app.min.js": "var a;\n",
            "static/app.css.map": "{}\n",
            "gen/bundle.js": minified,
            "docs/long.md": "word " * 2000,  # documentation is never "minified"
        },
    )
    got, skipped = _paths(tmp_path)
    assert got == ["docs/long.md", "lib/venv/__init__.py", "main.py"]
    assert skipped == {
        "vcs_dir": 3,
        "node_modules": 1,
        "venv": 4,
        "build_output": 6,
        "index_dir": 1,
        "lock_file": 5,
        "minified": 3,
    }


def test_secret_files(tmp_path: Path) -> None:
    secrets = [
        ".env",
        ".env.local",
        "prod.env",
        "server.pem",
        "tls.key",
        "cert.p12",
        "id_rsa",
        "id_rsa.pub",
        "id_ed25519",
        "credentials",
        "credentials.json",
        "aws/credentials.txt",
        "secrets.yaml",
        ".netrc",
        ".pgpass",
        "app.keystore",
    ]
    kept = ["credentials.py", "lib/secrets.py", "docs/secrets.md", "keys.py"]
    _write(tmp_path, {name: "TOKEN=abc\n" for name in [*secrets, *kept]})
    got, skipped = _paths(tmp_path)
    assert got == sorted(kept)
    assert skipped == {"secret": len(secrets)}


def test_binary_large_and_special_files(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "nul.dat": b"abc\x00def",
            "controls.bin": bytes(range(1, 32)) * 20,
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "big.txt": "x" * 2000,
            "edge.txt": "y" * 1000,
            "ansi.log.txt": "\x1b[31mred\x1b[0m\n" * 10,
        },
    )
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / ".gitignore")  # must not be opened (it would block)
    got, skipped = _paths(tmp_path, max_file_bytes=1000)
    assert got == ["ansi.log.txt", "edge.txt"]
    assert skipped == {"binary": 3, "too_large": 1, "special_file": 2}


def test_text_edge_cases(tmp_path: Path) -> None:
    raw = {
        "bad.py": b"s = '\xff\xfe caf\xe9'\n",
        "crlf.txt": b"one\r\ntwo\r\n",
        "bom.md": b"\xef\xbb\xbf# Title\n",
        "empty.py": b"",
        "ru.md": "# Привет\n".encode(),
    }
    _write(tmp_path, raw)
    files, report = walk(tmp_path, IndexSettings())
    by = {f.path: f for f in files}
    assert sorted(by) == sorted(raw)
    assert by["bad.py"].decode_errors and "\ufffd" in by["bad.py"].text
    assert by["crlf.txt"].text == "one\r\ntwo\r\n" and not by["crlf.txt"].decode_errors
    assert by["bom.md"].had_bom and by["bom.md"].text == "# Title\n"
    assert by["bom.md"].size == len(raw["bom.md"])
    assert by["empty.py"].text == "" and by["empty.py"].size == 0
    assert by["ru.md"].text == "# Привет\n"
    for rel, f in by.items():
        assert f.sha256 == hashlib.sha256(raw[rel]).hexdigest()
        assert f.mtime_ns == (tmp_path / rel).stat().st_mtime_ns
    assert report.files == 5 and report.decode_errors == 1
    json.dumps(report.to_dict())


def test_undecodable_names(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n")
    (tmp_path / "файл.py").write_text("y = 2\n")  # valid UTF-8, kept
    try:
        with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.py"), "w") as fh:
            fh.write("z = 3\n")
        os.mkdir(os.path.join(os.fsencode(tmp_path), b"dir\xfe"))
    except (OSError, UnicodeError):
        pytest.skip("the file system refuses names that are not UTF-8")
    files, report = walk(tmp_path)
    assert [f.path for f in files] == ["ok.py", "файл.py"]
    assert report.skipped == {"bad_name": 2}
    json.dumps(report.to_dict()).encode("utf-8")


def test_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    _write(outside, {"secret_notes.py": "x\n"})
    _write(root, {"real/a.py": "a = 1\n", "z.py": "z = 1\n"})
    (root / "out_file.py").symlink_to(outside / "secret_notes.py")
    (root / "out_dir").symlink_to(outside, target_is_directory=True)
    (root / "real" / "loop").symlink_to(root, target_is_directory=True)
    (root / "real" / "up").symlink_to("..", target_is_directory=True)
    (root / "self").symlink_to(root / "self")
    (root / "broken.py").symlink_to(root / "missing.py")
    (root / "alias.py").symlink_to(root / "z.py")
    (root / "linked_dir").symlink_to(root / "real", target_is_directory=True)
    # Links must not smuggle in a secret or VCS internals under an innocent name.
    _write(root, {".env": "TOKEN=1\n", ".git/config": "[core]\n"})
    (root / "notes.txt").symlink_to(root / ".env")
    (root / "cfg.txt").symlink_to(root / ".git" / "config")
    got, skipped = _paths(root)
    assert got == ["alias.py", "linked_dir/a.py", "real/a.py", "z.py"]
    # loops: self, real/loop, real/up and the same two again through linked_dir
    assert skipped == {
        "symlink_outside": 2,
        "symlink_loop": 5,
        "broken_symlink": 1,
        "secret": 2,
        "vcs_dir": 2,
    }
    got, skipped = _paths(root, follow_symlinks=False)
    assert got == ["real/a.py", "z.py"]
    assert skipped == {"symlink": 10, "secret": 1, "vcs_dir": 1}


def test_file_vanishing_between_scan_and_read(tmp_path: Path) -> None:
    """The error path of an unreadable file, exercised for real (works as root too)."""
    _write(tmp_path, {"a.py": "a\n", "b.py": "b\n", "c.py": "c\n"})
    walker = Walker(tmp_path, IndexSettings())
    it = walker.files()
    first = next(it)
    (tmp_path / "b.py").unlink()
    rest = list(it)
    assert [first.path, *(f.path for f in rest)] == ["a.py", "c.py"]
    assert walker.report.skipped == {"unreadable": 1}
    assert walker.report.examples["unreadable"] == ["b.py"]


@pytest.mark.skipif(
    IS_ROOT, reason="root reads files whatever their mode; see the vanishing-file test"
)
def test_permission_denied(tmp_path: Path) -> None:
    _write(tmp_path, {"ok.py": "x\n", "locked.py": "y\n", "closed/inner.py": "z\n"})
    (tmp_path / "locked.py").chmod(0)
    (tmp_path / "closed").chmod(0)
    try:
        got, skipped = _paths(tmp_path)
    finally:
        (tmp_path / "locked.py").chmod(0o644)
        (tmp_path / "closed").chmod(0o755)
    assert got == ["ok.py"]
    assert skipped == {"unreadable": 2}


def test_sorted_order_and_metadata(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a/b.py": "",
            "a.txt": "",
            "a-b/c.py": "",
            "B.md": "",
            "tests/test_x.py": "",
            "docs/guide.rst": "",
            "scripts/run": "#!/usr/bin/env python3\nprint(1)\n",
        },
    )
    files, _ = walk(tmp_path)
    paths = [f.path for f in files]
    assert paths == sorted(paths)
    by = {f.path: f for f in files}
    assert by["scripts/run"].language == "python"
    assert by["tests/test_x.py"].is_test and not by["a/b.py"].is_test
    assert by["docs/guide.rst"].is_doc and by["B.md"].is_doc and not by["a/b.py"].is_doc


def test_missing_root(tmp_path: Path) -> None:
    with pytest.raises(RepositoryNotFoundError, match="does not exist"):
        Walker(tmp_path / "nope", IndexSettings())
    (tmp_path / "file.py").write_text("x")
    with pytest.raises(RepositoryNotFoundError, match="not a folder"):
        walk(tmp_path / "file.py")


def test_report_reasons_are_enum_values(tmp_path: Path) -> None:
    _write(tmp_path, {".env": "A=1\n", "ok.py": "x\n"})
    walker = Walker(tmp_path, IndexSettings())
    assert [f.path for f in walker.files()] == ["ok.py"]
    data = walker.report.to_dict()
    assert data["skipped"] == {SkipReason.SECRET.value: 1} and data["files"] == 1
    assert data["examples"] == {"secret": [".env"]} and data["skipped_total"] == 1


# ---------------------------------------------------------------------------- detection table

DETECTION = [
    # path, first line, language, is_test, is_doc
    ("pkg/mod.py", "", "python", False, False),
    ("pkg/types.pyi", "", "python", False, False),
    ("tests/unit/helpers.py", "", "python", True, False),
    ("pkg/test_mod.py", "", "python", True, False),
    ("pkg/mod_test.py", "", "python", True, False),
    ("conftest.py", "", "python", True, False),
    ("pkg/contest.py", "", "python", False, False),
    ("web/app.js", "", "javascript", False, False),
    ("web/app.test.js", "", "javascript", True, False),
    ("web/app.spec.js", "", "javascript", True, False),
    ("web/__tests__/util.js", "", "javascript", True, False),
    ("web/app.mjs", "", "javascript", False, False),
    ("web/api.ts", "", "typescript", False, False),
    ("web/api.test.ts", "", "typescript", True, False),
    ("web/types.d.ts", "", "typescript", False, False),
    ("web/View.tsx", "", "tsx", False, False),
    ("web/View.spec.tsx", "", "tsx", True, False),
    ("cmd/main.go", "", "go", False, False),
    ("cmd/main_test.go", "", "go", True, False),
    ("go/testdata/input.go", "", "go", True, False),
    ("src/main/java/App.java", "", "java", False, False),
    ("src/test/java/AppTest.java", "", "java", True, False),
    ("src/main/java/AppTests.java", "", "java", True, False),
    ("src/lib.rs", "", "rust", False, False),
    ("tests/integration.rs", "", "rust", True, False),
    ("src/util.c", "", "c", False, False),
    ("include/util.h", "", "c", False, False),
    ("src/util.cpp", "", "cpp", False, False),
    ("src/util_test.cc", "", "cpp", True, False),
    ("src/Service.cs", "", "csharp", False, False),
    ("src/ServiceTests.cs", "", "csharp", True, False),
    ("lib/thing.rb", "", "ruby", False, False),
    ("spec/thing_spec.rb", "", "ruby", True, False),
    ("lib/thing_spec.rb", "", "ruby", True, False),
    ("src/Page.php", "", "php", False, False),
    ("src/PageTest.php", "", "php", True, False),
    ("app/Main.kt", "", "kotlin", False, False),
    ("app/MainTest.kt", "", "kotlin", True, False),
    ("build.gradle.kts", "", "kotlin", False, False),
    ("README.md", "", "markdown", False, True),
    ("tests/README.md", "", "markdown", False, True),
    ("docs/index.rst", "", "rst", False, True),
    ("docs/guide.adoc", "", "asciidoc", False, True),
    ("notes.txt", "", "text", False, True),
    ("README", "", "text", False, True),
    ("LICENSE", "", "text", False, True),
    ("COPYING.LIB", "", "text", False, True),
    ("CHANGELOG", "", "text", False, True),
    ("docs/NOTES", "", "text", False, True),
    ("requirements.txt", "", "text", False, False),
    ("data/words/en.txt", "", "text", False, False),
    ("scripts/deploy.sh", "", "shell", False, False),
    ("scripts/deploy", "#!/bin/bash", "shell", False, False),
    ("scripts/tool", "#!/usr/bin/env python3.11", "python", False, False),
    ("scripts/serve", "#!/usr/bin/env -S node --experimental", "javascript", False, False),
    ("scripts/task", "#!/usr/bin/ruby -w", "ruby", False, False),
    ("scripts/old", "#!/usr/bin/perl", "perl", False, False),
    ("scripts/unknown", "#!/opt/weird", "unknown", False, False),
    ("config.yaml", "", "yaml", False, False),
    ("pyproject.toml", "", "toml", False, False),
    ("package.json", "", "json", False, False),
    ("site/index.html", "", "html", False, False),
    ("site/style.css", "", "css", False, False),
    ("db/schema.sql", "", "sql", False, False),
    ("Dockerfile", "", "dockerfile", False, False),
    ("docker/Dockerfile.dev", "", "dockerfile", False, False),
    ("Makefile", "", "makefile", False, False),
    ("GNUmakefile", "", "makefile", False, False),
    ("CMakeLists.txt", "", "cmake", False, False),
    ("Gemfile", "", "ruby", False, False),
    ("Rakefile", "", "ruby", False, False),
    (".gitignore", "", "ignore", False, False),
    ("blob.xyz", "", "unknown", False, False),
]


@pytest.mark.parametrize(("path", "first_line", "language", "test", "doc"), DETECTION)
def test_detection_table(path: str, first_line: str, language: str, test: bool, doc: bool) -> None:
    assert detect_language(path, first_line) == language
    assert is_test(path, language) is test
    assert is_doc(path, language) is doc


def test_shebang_normalisation() -> None:
    assert shebang_interpreter("#!/usr/bin/env python3.12") == "python"
    assert shebang_interpreter("#! /bin/sh -e") == "sh"
    assert shebang_interpreter("#!/usr/bin/env FOO=1 bash") == "bash"
    assert shebang_interpreter("# not a shebang") is None
    assert shebang_interpreter("#!") is None
