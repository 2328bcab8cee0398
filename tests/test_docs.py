"""Docs layers D0/D1/D2: Markdown, reStructuredText and plain text with exact line spans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragstrata.core.rows import (
    ChunkRow,
    DocFileRow,
    Layer,
    SectionRow,
    SourceFile,
    content_hash,
)
from ragstrata.ingest.docs import extract_docs, github_slug
from ragstrata.ingest.docs.outline import Slugger


def _file(path: str, text: str, language: str = "markdown") -> SourceFile:
    raw = text.encode("utf-8")
    return SourceFile(
        path=path,
        language=language,
        is_test=False,
        is_doc=True,
        size=len(raw),
        mtime_ns=0,
        sha256=content_hash(raw),
        text=text,
    )


def _split(rows: list) -> tuple[DocFileRow, list[SectionRow], list[ChunkRow]]:
    d0 = [r for r in rows if isinstance(r, DocFileRow)]
    d1 = [r for r in rows if isinstance(r, SectionRow)]
    d2 = [r for r in rows if isinstance(r, ChunkRow)]
    assert len(d0) == 1 and len(d0) + len(d1) + len(d2) == len(rows)
    return d0[0], d1, d2


def _assert_exact(text: str, rows: list) -> None:
    """Every section/chunk text is exactly its source lines / offsets."""
    lines = text.split("\n")
    for row in rows:
        assert 1 <= row.start_line <= row.end_line
        if isinstance(row, SectionRow):
            assert row.text == "\n".join(lines[row.start_line - 1 : row.end_line])
            assert row.content_hash == content_hash(row.text)
        if isinstance(row, ChunkRow):
            assert row.layer is Layer.D2
            assert text[row.start_offset : row.end_offset] == row.text
            assert text.count("\n", 0, row.start_offset) + 1 == row.start_line
            assert text.count("\n", 0, row.end_offset - 1) + 1 == row.end_line


README = """\
Intro before any heading.

# Project

Some text.

## Install

```bash
# this is a shell comment, not a heading
pip install project
```

~~~
## neither is this
~~~

### From source

Clone and build.

## Usage

Call it.

Setext title
============

Setext sub
----------

> ## quoted heading is not a section

Tail.
"""


def test_markdown_sections_paths_levels_and_exact_lines() -> None:
    rows = extract_docs(_file("README.md", README))
    d0, d1, d2 = _split(rows)
    got = [(s.heading_path, s.level, s.start_line, s.end_line) for s in d1]
    assert got == [
        ("README.md", 0, 1, 1),
        ("README.md > Project", 1, 3, 5),
        ("README.md > Project > Install", 2, 7, 16),
        ("README.md > Project > Install > From source", 3, 18, 20),
        ("README.md > Project > Usage", 2, 22, 24),
        ("README.md > Setext title", 1, 26, 27),
        ("README.md > Setext title > Setext sub", 2, 29, 34),
    ]
    install = d1[2]
    assert "# this is a shell comment" in install.text and "## neither is this" in install.text
    assert install.text.startswith("## Install") and install.text.endswith("~~~")
    assert d1[0].title == "" and d1[0].slug == "" and d1[0].origin == "markdown"
    assert [s.slug for s in d1[1:]] == [
        "project",
        "install",
        "from-source",
        "usage",
        "setext-title",
        "setext-sub",
    ]
    assert d0.title == "Project"
    assert d0.outline == tuple(s.heading_path for s in d1[1:])
    assert (d0.start_line, d0.end_line) == (1, README.count("\n"))
    _assert_exact(README, rows)
    assert d2, "a non-empty document has chunks"


def test_duplicate_heading_slugs_follow_github() -> None:
    text = "# A\n\n## Install\n\n## Install\n\n## a-1\n\n## Install\n\n## Fix: `run()` now!\n"
    _, d1, _ = _split(extract_docs(_file("doc.md", text)))
    assert [s.slug for s in d1] == ["a", "install", "install-1", "a-1", "install-2", "fix-run-now"]
    slugger = Slugger()
    assert [slugger.slug(t) for t in ("a", "a-1", "a")] == ["a", "a-1", "a-2"]


def test_russian_headings_and_slugs() -> None:
    text = "# Руководство\n\n## Установка и настройка\n\nТекст.\n\n## Что нового?\n\nЕщё.\n"
    d0, d1, _ = _split(extract_docs(_file("docs/ru.md", text)))
    assert d0.title == "Руководство"
    assert [s.heading_path for s in d1] == [
        "docs/ru.md > Руководство",
        "docs/ru.md > Руководство > Установка и настройка",
        "docs/ru.md > Руководство > Что нового?",
    ]
    assert [s.slug for s in d1] == ["руководство", "установка-и-настройка", "что-нового"]
    assert github_slug("Ёлка  API_v2 — обзор") == "ёлка--api_v2--обзор"


def test_front_matter_title_and_body_lines() -> None:
    text = '---\ntitle: "Guide Title"\ntags: [a]\n---\n\nPreamble.\n\n# Heading\n\nBody.\n'
    rows = extract_docs(_file("guide.md", text))
    d0, d1, d2 = _split(rows)
    assert d0.title == "Guide Title"
    assert [(s.heading_path, s.start_line, s.end_line) for s in d1] == [
        ("guide.md", 6, 6),
        ("guide.md > Heading", 8, 10),
    ]
    assert all("tags:" not in c.text for c in d2)
    assert min(c.start_line for c in d2) == 6
    _assert_exact(text, rows)


def test_unclosed_front_matter_is_not_front_matter() -> None:
    text = "---\n\n# Only heading\n\ntext\n"
    _, d1, _ = _split(extract_docs(_file("x.md", text)))
    assert [(s.level, s.start_line) for s in d1] == [(0, 1), (1, 3)]


def test_crlf_markdown_keeps_exact_lines() -> None:
    text = "# Title\r\n\r\nline one\r\n\r\n## Next\r\n\r\nline two\r\n"
    rows = extract_docs(_file("crlf.md", text))
    _, d1, d2 = _split(rows)
    assert [(s.heading_path, s.start_line, s.end_line) for s in d1] == [
        ("crlf.md > Title", 1, 3),
        ("crlf.md > Title > Next", 5, 7),
    ]
    assert [s.title for s in d1] == ["Title", "Next"]
    _assert_exact(text, rows)
    assert d2


def test_chunks_carry_heading_path_of_the_section_they_start_in() -> None:
    parts = ["# Top\n\nIntro.\n"]
    for i in range(6):
        parts.append(
            f"\n## Part {i}\n\n" + "\n\n".join(f"Paragraph {i}.{j} " * 8 for j in range(4))
        )
    text = "".join(parts) + "\n"
    rows = extract_docs(_file("long.md", text), chunk_size=300, chunk_overlap=40)
    _, d1, d2 = _split(rows)
    assert len(d2) > 6
    _assert_exact(text, rows)
    for chunk in d2:
        owner = [s for s in d1 if s.start_line <= chunk.start_line][-1]
        assert chunk.heading_path == owner.heading_path
        assert len(chunk.text) <= 300
    assert {c.heading_path for c in d2} >= {f"long.md > Top > Part {i}" for i in range(6)}


def test_no_headings_and_empty_files() -> None:
    d0, d1, d2 = _split(extract_docs(_file("notes.md", "\n\njust text\nmore\n\n")))
    assert d0.title == "notes.md" and d0.outline == ()
    assert [(s.heading_path, s.level, s.start_line, s.end_line) for s in d1] == [
        ("notes.md", 0, 3, 4)
    ]
    assert len(d2) == 1 and d2[0].heading_path == "notes.md"
    for blank in ("", "\n\n   \n"):
        rows = extract_docs(_file("empty.md", blank))
        assert len(rows) == 1 and isinstance(rows[0], DocFileRow)
        assert rows[0].start_line == 1 and rows[0].end_line >= 1


RST = """\
==========
 Overview
==========

Intro paragraph.

Install
=======

Text.

.. code-block:: python

   # python comment
   x = 1

From source
-----------

Steps.

Настройка
=========

Готово.
"""


def test_rst_sections_with_overline_nesting_and_exact_lines() -> None:
    rows = extract_docs(_file("docs/index.rst", RST, language="rst"))
    d0, d1, d2 = _split(rows)
    assert [(s.heading_path, s.level, s.start_line, s.end_line) for s in d1] == [
        ("docs/index.rst > Overview", 1, 1, 5),
        ("docs/index.rst > Overview > Install", 2, 7, 15),
        ("docs/index.rst > Overview > Install > From source", 3, 17, 20),
        ("docs/index.rst > Overview > Настройка", 2, 22, 25),
    ]
    # RST anchors are docutils' own ids (ASCII; a Cyrillic title gets a numbered id).
    assert [s.slug for s in d1] == ["overview", "install", "from-source", "section-1"]
    assert all(s.origin == "rst" for s in d1)
    assert d0.title == "Overview"
    _assert_exact(RST, rows)
    assert d2


def test_no_rst_doctree_outlives_its_file() -> None:
    """docutils' cache of nested state machines pinned the last doctrees it parsed; the
    extraction lets them go (lists and definition lists make nested state machines)."""
    import gc

    from docutils import nodes

    def alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, nodes.document))

    before = alive()  # other tests of this process may hold documents of their own
    nested = RST + "\n- пункт *один*\n- item **two**\n\nterm\n    definition\n"
    for i in range(3):
        assert _split(extract_docs(_file(f"docs/p{i}.rst", nested, language="rst")))[1]
    assert alive() <= before


def test_broken_rst_never_raises_nor_writes_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    broken = (
        "Title\n=====\n\n.. unknown-directive:: x\n   :bad option:\n\n`unclosed <link\n\n"
        "* list\nno blank\n\n.. include:: /etc/passwd\n\n.. raw:: html\n\n   <b>x</b>\n\n"
        "+---+---+\n| broken | table\n+---+\n\nNext\n----\n\n:role:`x\n\n===\n"
    )
    rows = extract_docs(_file("bad.rst", broken, language="rst"))
    _, d1, _ = _split(rows)
    assert [s.title for s in d1 if s.level] == ["Title", "Next"]
    _assert_exact(broken, rows)
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


def test_plain_text_is_one_section() -> None:
    text = "\nLICENSE TEXT\n\nParagraph two.\n\n"
    rows = extract_docs(_file("LICENSE", text, language="text"))
    d0, d1, d2 = _split(rows)
    assert d0.title == "LICENSE"
    assert [(s.heading_path, s.level, s.start_line, s.end_line, s.origin) for s in d1] == [
        ("LICENSE", 0, 2, 4, "text")
    ]
    assert d2 and d2[0].heading_path == "LICENSE"
    _assert_exact(text, rows)


def test_format_falls_back_to_extension_and_ids_are_deterministic() -> None:
    f = _file("docs/x.rst", RST, language="unknown-doc")
    first, second = extract_docs(f), extract_docs(f)
    assert [r.id for r in first] == [r.id for r in second]
    assert len({r.id for r in first}) == len(first)
    assert any(isinstance(r, SectionRow) and r.origin == "rst" for r in first)


_FRAGMENTS = [
    "# Title",
    "## Sub",
    "### Deep",
    "Text line",
    "Привет, мир",
    "",
    "```",
    "~~~",
    "# inside?",
    "===",
    "---",
    "+++",
    "title: x",
    "> ## quoted",
    "    # indented code",
    "- item",
    "Setext",
    "CR\r",
    "lone\rcr",
    "form\x0cfeed",
    "line\u2028sep",
    "Title\u2028",
]


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_FRAGMENTS), max_size=40),
    language=st.sampled_from(["markdown", "rst", "text"]),
    trailing_newline=st.booleans(),
)
def test_any_document_gives_ordered_exact_sections_and_chunks(
    lines: list[str], language: str, trailing_newline: bool
) -> None:
    text = "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    rows = extract_docs(_file("p.md", text, language=language), chunk_size=80, chunk_overlap=10)
    d0, d1, d2 = _split(rows)
    n_lines = len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    assert d0.end_line == max(n_lines, 1)
    previous_end = 0
    for section in d1:
        assert previous_end < section.start_line <= section.end_line <= n_lines
        assert section.text.strip(), "no blank sections"
        previous_end = section.end_line
    _assert_exact(text, rows)
    for chunk in d2:
        owners = [s for s in d1 if s.start_line <= chunk.start_line]
        assert chunk.heading_path == (owners[-1].heading_path if owners else "p.md")


@pytest.mark.parametrize("language", ["markdown", "rst"])
def test_only_line_feeds_count_as_line_breaks(language: str) -> None:
    # docutils and markdown-it split on other characters too (lone CR, FF, U+2028).
    text = "Intro\x0cmore\rstill\u2028line one\n\nTitle\n=====\n\nbody\rtext\n"
    rows = extract_docs(_file("x", text, language=language))
    _, d1, _ = _split(rows)
    assert [(s.level, s.start_line, s.end_line) for s in d1] == [(0, 1, 1), (1, 3, 6)]
    assert d1[1].title == "Title"
    _assert_exact(text, rows)
