"""The ingestion facade on a hostile repository: nothing crashes, the right rows come out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    Layer,
    RelationRow,
    SectionRow,
    SourceFile,
    content_hash,
)
from ragstrata.errors import RepositoryNotFoundError
from ragstrata.ingest.pipeline import extract_file
from ragstrata.relations.repository import IngestEvent, IngestResult, ingest_repository
from ragstrata.settings import IndexSettings

DEPTH = 30
NESTED = "/".join(f"d{i}" for i in range(DEPTH)) + "/deep.py"

GOOD = {
    "README.md": "# Hostile\n\nIntro.\n\n## Install\n\n```sh\n# not a heading\n```\n",
    "pkg/__init__.py": "",
    "pkg/util.py": '"""Utilities."""\n\n\ndef helper(x):\n    return x + 1\n',
    "pkg/app.py": (
        "from pkg.util import helper\n\n\nclass App:\n    def run(self):\n"
        "        return helper(1)\n"
    ),
    "broken.py": "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n\n\nclass Fine:\n    x = 1\n",
    "docs/broken.rst": (
        "Title\n=====\n\n.. unknown:: x\n   :bad:\n\n`unclosed <link\n\n+--+\n| x\n\nSub\n---\n\nok\n"
    ),
    "docs/руководство пользователя.md": "# Руководство\n\n## Установка\n\nТекст.\n",
    "src/модуль.py": "def привет():\n    return 'мир'\n",
    "my docs/read me.md": "# Read me\n\nspaces in names\n",
    "src/my module.py": "def spaced():\n    return 2\n",
    "empty.py": "",
    "empty.md": "",
    "tests/test_app.py": "from pkg.app import App\n\n\ndef test_run():\n    assert App().run() == 2\n",
    NESTED: "def deep():\n    return 'bottom'\n",
    "keep.log.txt": "kept text\n",
}
RAW = {
    "crlf.py": b"def crlf_one():\r\n    return 1\r\n\r\n\r\ndef crlf_two():\r\n    return 2\r\n",
    "bom.md": "\ufeff# BOM Title\n\nbody\n".encode(),
    "bad_utf8.py": b"def bad():\n    return '\xff\xfe\xfa'\n",
}
SKIPPED = {
    # reason-independent: none of these may produce a row
    ".git/config": b"[core]\n",
    ".git/objects/ab/cdef": b"x" * 10,
    "node_modules/lib/index.js": b"module.exports = 1;\n",
    ".venv/lib/site.py": b"import os\n",
    "build/lib/out.py": b"x = 1\n",
    "dist/pkg.js": b"var a=1;\n",
    "package-lock.json": b"{}\n",
    "poetry.lock": b"[[package]]\n",
    "static/app.min.js": b"var a=1;" * 50 + b"\n",
    "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
    "data.bin": bytes(range(256)) * 8,
    ".env": b"API_KEY=supersecret\n",
    ".env.local": b"API_KEY=supersecret\n",
    "certs/server.pem": b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    "certs/private.key": b"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
    "id_rsa": b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n",
    "ignored_dir/secret_plan.md": b"# ignored\n",
    "debug.log": b"log line\n",
}


def _build(root: Path, outside: Path) -> None:
    for rel, text in GOOD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel, data in {**RAW, **SKIPPED}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / ".gitignore").write_text("ignored_dir/\n*.log\n", encoding="utf-8")
    # A 5,000-line file (many definitions) and one over the 1 MiB default size limit.
    (root / "gen.py").write_text(
        "".join(f"def f{i}(x):\n    y = x * {i}\n    return y\n\n\n" for i in range(1000)),
        encoding="utf-8",
    )
    (root / "huge.py").write_text("x = 1\n" * 200_000, encoding="utf-8")
    # Symlinks: a loop back to the root, one to a parent, and two escaping the root.
    outside.mkdir()
    (outside / "leak.py").write_text("def leaked():\n    pass\n", encoding="utf-8")
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "pkg" / "up").symlink_to("..", target_is_directory=True)
    (root / "escape_dir").symlink_to(outside, target_is_directory=True)
    (root / "escape_file.py").symlink_to(outside / "leak.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root reads anything
        unreadable = root / "unreadable.py"
        unreadable.write_text("x = 1\n", encoding="utf-8")
        unreadable.chmod(0)


@pytest.fixture(scope="module")
def hostile(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, IngestResult, list[IngestEvent]]:
    base = tmp_path_factory.mktemp("hostile")
    root = base / "repo"
    root.mkdir()
    _build(root, base / "outside")
    events: list[IngestEvent] = []
    result = ingest_repository(root, IndexSettings(), progress=events.append)
    return root, result, events


def _by_path(result: IngestResult) -> dict[str, list]:
    return {fr.file.path: list(fr.rows) for fr in result.files}


def test_ingestion_completes_with_every_good_file(hostile) -> None:
    _, result, _ = hostile
    paths = set(_by_path(result))
    expected = set(GOOD) | set(RAW) | {"gen.py"}
    assert expected <= paths, sorted(expected - paths)


def test_skipped_files_yield_no_rows(hostile) -> None:
    _, result, _ = hostile
    paths = set(_by_path(result))
    assert not paths & set(SKIPPED), sorted(paths & set(SKIPPED))
    assert "huge.py" not in paths
    assert not any(p.startswith(("loop/", "escape_dir/", "pkg/up/")) for p in paths), paths
    assert "escape_file.py" not in paths and "dangling.py" not in paths
    assert all(".git/" not in p and "node_modules" not in p for p in paths)
    rows_text = "".join(getattr(r, "text", "") for r in result.rows())
    assert "supersecret" not in rows_text and "leaked" not in rows_text


def test_skip_report_counts(hostile) -> None:
    _, result, _ = hostile
    report = result.report()
    expected = {
        "binary": 2,  # image.png, data.bin
        "broken_symlink": 1,  # dangling.py
        "build_output": 2,  # build/, dist/
        "gitignored": 2,  # ignored_dir/, debug.log
        "lock_file": 2,  # package-lock.json, poetry.lock
        "minified": 1,  # static/app.min.js
        "node_modules": 1,
        "secret": 5,  # .env, .env.local, server.pem, private.key, id_rsa
        "symlink_loop": 2,  # loop -> root, pkg/up -> ..
        "symlink_outside": 2,  # escape_dir, escape_file.py
        "too_large": 1,  # huge.py (1.2 MB > 1 MiB)
        "vcs_dir": 1,  # .git/
        "venv": 1,  # .venv/
    }
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        expected["unreadable"] = 1
    assert report["skipped"]["skipped"] == expected
    assert report["skipped"]["files"] == report["files"] == len(result.files)
    assert report["skipped"]["decode_errors"] == 1
    assert report["rows"] == {
        str(layer): sum(1 for r in result.rows() if r.layer is layer) for layer in Layer
    }
    assert report["warnings"] == list(result.warnings)


def test_every_file_keeps_its_anchor_row_and_layers_follow_the_kind(hostile) -> None:
    _, result, _ = hostile
    for fr in result.files:
        layers = {r.layer for r in fr.rows}
        if fr.file.is_doc:
            assert Layer.D0 in layers and layers <= {Layer.D0, Layer.D1, Layer.D2}, fr.file.path
        else:
            assert Layer.C0 in layers and layers <= {Layer.C0, Layer.C1, Layer.C2, Layer.C3}
        for row in fr.rows:
            assert row.path == fr.file.path
            assert 1 <= row.start_line <= row.end_line <= max(fr.file.line_count, 1)
            if isinstance(row, ChunkRow):
                assert fr.file.text[row.start_offset : row.end_offset] == row.text
            if isinstance(row, SectionRow):
                lines = fr.file.text.split("\n")
                assert row.text == "\n".join(lines[row.start_line - 1 : row.end_line])


def test_expected_rows_for_the_hostile_cases(hostile) -> None:
    _, result, _ = hostile
    rows = _by_path(result)

    def defs(path: str) -> dict[str, int]:
        return {r.name: r.start_line for r in rows[path] if isinstance(r, DefinitionRow)}

    assert defs("crlf.py") == {"crlf_one": 1, "crlf_two": 5}
    assert "bad" in defs("bad_utf8.py")
    assert {"ok", "Fine"} <= set(defs("broken.py"))  # a syntax error loses only its own part
    assert "deep" in defs(NESTED) and "привет" in defs("src/модуль.py")
    assert "spaced" in defs("src/my module.py")
    assert len([n for n in defs("gen.py") if n.startswith("f")]) == 1000
    gen = next(fr.file for fr in result.files if fr.file.path == "gen.py")
    assert gen.line_count == 5000
    assert max(r.end_line for r in rows["gen.py"] if isinstance(r, ChunkRow)) == 4998
    bom = next(r for r in rows["bom.md"] if isinstance(r, DocFileRow))
    assert bom.title == "BOM Title"
    for path in ("empty.py", "empty.md"):
        assert len(rows[path]) == 1 and isinstance(rows[path][0], FileRow | DocFileRow)
    rst = [r.heading_path for r in rows["docs/broken.rst"] if isinstance(r, SectionRow)]
    assert "docs/broken.rst > Title > Sub" in rst
    ru = [
        r.heading_path
        for r in rows["docs/руководство пользователя.md"]
        if isinstance(r, SectionRow)
    ]
    assert ru[-1] == "docs/руководство пользователя.md > Руководство > Установка"
    assert all(r.is_test for r in rows["tests/test_app.py"])
    calls = [r for r in rows["pkg/app.py"] if isinstance(r, RelationRow) and r.relation == "calls"]
    assert any(r.to_name == "helper" and r.line == 6 for r in calls), calls


def test_warnings_name_the_file_and_progress_is_reported(hostile) -> None:
    _, result, events = hostile
    assert any(w.startswith("bad_utf8.py:") and "UTF-8" in w for w in result.warnings)
    file_events = [e for e in events if e.kind == "file"]
    assert len(file_events) == len(result.files)
    assert [e.kind for e in events[-2:]] == ["relations", "done"]
    assert events[-1].rows == sum(result.layer_counts().values())


def test_ingestion_is_deterministic(hostile) -> None:
    root, result, _ = hostile
    again = ingest_repository(root, IndexSettings())
    assert [r.id for r in again.rows()] == [r.id for r in result.rows()]
    assert [fr.file.path for fr in again.files] == sorted(fr.file.path for fr in again.files)
    ids = [r.id for r in result.rows()]
    assert len(ids) == len(set(ids))


def test_missing_root_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(RepositoryNotFoundError):
        ingest_repository(tmp_path / "missing", IndexSettings())


def _source(path: str, text: str, *, is_doc: bool, language: str) -> SourceFile:
    return SourceFile(
        path=path,
        language=language,
        is_test=False,
        is_doc=is_doc,
        size=len(text.encode()),
        mtime_ns=0,
        sha256=content_hash(text),
        text=text,
    )


def test_an_extractor_failure_becomes_a_warning_and_keeps_the_anchor_row() -> None:
    from ragstrata.ingest import pipeline

    def explode(file: SourceFile, settings: IndexSettings) -> list:
        raise RecursionError("maximum recursion depth exceeded")

    settings = IndexSettings(chunk_size=40, chunk_overlap=0)
    warnings: list[str] = []
    code = _source(
        "m.py",
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
        is_doc=False,
        language="python",
    )
    rows = pipeline._guarded(code, settings, warnings, explode, Layer.C0)
    assert isinstance(rows[0], FileRow) and rows[0].path == "m.py"
    chunks = [r for r in rows if isinstance(r, ChunkRow)]
    assert chunks and all(code.text[c.start_offset : c.end_offset] == c.text for c in chunks)
    doc = _source("d.md", "# T\n", is_doc=True, language="markdown")
    rows = pipeline._guarded(doc, settings, warnings, explode, Layer.D0)
    assert len(rows) == 1 and isinstance(rows[0], DocFileRow) and rows[0].title == "d.md"
    assert warnings == [
        "m.py: C-layer extraction failed: RecursionError: maximum recursion depth exceeded",
        "d.md: D-layer extraction failed: RecursionError: maximum recursion depth exceeded",
    ]
    # The public path still routes docs to D-layers and code to C-layers.
    assert {r.layer for r in extract_file(doc, settings).rows} <= {Layer.D0, Layer.D1, Layer.D2}
