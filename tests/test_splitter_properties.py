"""Hypothesis invariants of split_spans (ragstrata's offset-carrying recursive splitter)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragstrata.core.languages import known_languages, ladder_for
from ragstrata.errors import ConfigError
from ragstrata.ingest.splitter import RecursiveSplitter, TextSpan, split_spans

ALPHABET = "ab xy\n\n.,;:\t\r-é漢"
SEPARATORS = ["\n\n", "\n", " ", ". ", ", ", "\nclass ", "\n# "]

texts = st.text(alphabet=ALPHABET, max_size=400) | st.lists(
    st.sampled_from(
        ["def f():", "    return 1", "class A:", "# Title", "", "word word word", "x" * 30]
    ),
    max_size=40,
).map("\n".join)
ladders = st.lists(st.sampled_from(SEPARATORS), unique=True, min_size=1, max_size=5)


def _utf8(s: str) -> int:
    return len(s.encode("utf-8"))


def _check_common(
    text: str, spans: list[TextSpan], overlap: int, measure: Callable[[str], int]
) -> None:
    prev: TextSpan | None = None
    covered = bytearray(len(text))
    for span in spans:
        # non-empty, exact slice, trimmed
        assert span.text
        assert text[span.start_offset : span.end_offset] == span.text
        assert not span.text[0].isspace() and not span.text[-1].isspace()
        # line span matches the offsets (1-based, inclusive)
        assert span.start_line == text.count("\n", 0, span.start_offset) + 1
        assert span.end_line == text.count("\n", 0, span.end_offset - 1) + 1
        assert span.start_line <= span.end_line
        if prev is not None:
            # in order, and the overlap with the previous chunk is bounded
            assert span.start_offset >= prev.start_offset
            assert span.end_offset > prev.end_offset
            shared = max(0, prev.end_offset - span.start_offset)
            assert measure(text[span.start_offset : span.start_offset + shared]) <= overlap
        covered[span.start_offset : span.end_offset] = b"\x01" * (
            span.end_offset - span.start_offset
        )
        prev = span
    # every non-whitespace character is inside some chunk
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not missing, (missing[:5], text)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(1, 40), st.integers(0, 25), ladders)
def test_hard_limit_with_cut_anywhere(
    text: str, size: int, overlap: int, ladder: list[str]
) -> None:
    spans = split_spans(text, chunk_size=size, overlap=overlap, separators=[*ladder, ""])
    _check_common(text, spans, overlap, len)
    assert all(len(s.text) <= size for s in spans)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(1, 40), st.integers(0, 25), ladders)
def test_oversize_only_when_no_separator_allows(
    text: str, size: int, overlap: int, ladder: list[str]
) -> None:
    spans = split_spans(text, chunk_size=size, overlap=overlap, separators=ladder)
    _check_common(text, spans, overlap, len)
    for span in spans:
        if len(span.text) > size:
            assert not any(sep in span.text for sep in ladder), (span, ladder)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 40), st.integers(0, 25), ladders)
def test_custom_len_func_bytes(text: str, size: int, overlap: int, ladder: list[str]) -> None:
    spans = split_spans(
        text, chunk_size=size, overlap=overlap, separators=[*ladder, ""], len_func=_utf8
    )
    _check_common(text, spans, overlap, _utf8)
    # A single character of more bytes than chunk_size cannot be cut further.
    assert all(_utf8(s.text) <= size or len(s.text) == 1 for s in spans)


@settings(max_examples=100, deadline=None)
@given(texts, st.sampled_from(known_languages()), st.integers(5, 60), st.integers(0, 20))
def test_language_ladders(text: str, language: str, size: int, overlap: int) -> None:
    spans = split_spans(text, chunk_size=size, overlap=overlap, separators=ladder_for(language))
    _check_common(text, spans, overlap, len)
    assert all(len(s.text) <= size for s in spans)


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(1, 40), st.integers(0, 45), ladders)
def test_cut_anywhere_fast_path_matches_the_general_merge(
    text: str, size: int, overlap: int, ladder: list[str]
) -> None:
    """With ``len`` the "" separator is windowed directly; any other len_func takes the
    general path. Both must agree, for split_spans and for the seed's splitter."""
    seps = [*ladder, ""]
    fast = split_spans(text, chunk_size=size, overlap=overlap, separators=seps)
    slow = split_spans(text, chunk_size=size, overlap=overlap, separators=seps, len_func=_chars)
    assert fast == slow
    for keep in ("none", "start", "end"):
        quick = RecursiveSplitter(size, overlap, seps, keep_type=keep)
        general = RecursiveSplitter(size, overlap, seps, len_func=_chars, keep_type=keep)
        assert quick.split_spans(text) == general.split_spans(text)


def _chars(s: str) -> int:
    return len(s)


def test_deterministic_and_exact_example() -> None:
    src = (
        "import os\n\n\nclass A:\n    def f(self):\n        return 1\n\n\ndef g():\n    return 2\n"
    )
    spans = split_spans(src, chunk_size=50, overlap=0, separators=ladder_for("python"))
    assert spans == split_spans(src, chunk_size=50, overlap=0, separators=ladder_for("python"))
    assert [s.text for s in spans] == [
        "import os",
        "class A:\n    def f(self):\n        return 1",
        "def g():\n    return 2",
    ]
    assert [(s.start_line, s.end_line) for s in spans] == [(1, 1), (4, 6), (9, 10)]


def test_markdown_splits_on_headings_first() -> None:
    doc = "# T\n\nintro text\n\n## A\n\nalpha alpha\n\n## B\n\nbeta"
    spans = split_spans(doc, chunk_size=25, overlap=0, separators=ladder_for("markdown"))
    assert [s.text for s in spans] == ["# T\n\nintro text", "## A\n\nalpha alpha", "## B\n\nbeta"]


def test_crlf_blank_lines_are_block_boundaries() -> None:
    text = "para one\r\nline\r\n\r\npara two\r\n"
    spans = split_spans(text, chunk_size=16, overlap=0, separators=ladder_for("text"))
    assert [(s.text, s.start_line, s.end_line) for s in spans] == [
        ("para one\r\nline", 1, 2),
        ("para two", 4, 4),
    ]


def test_ladders_are_data() -> None:
    assert ladder_for("python")[:2] == ("\nclass ", "\ndef ")
    assert ladder_for("markdown")[:2] == ("\n# ", "\n## ")
    assert ladder_for("tsx") == ladder_for("typescript")
    assert ladder_for("no-such-language") == (
        "\n\n\n",
        "\n\r\n\r\n",
        "\n\n",
        "\n\r\n",
        "\n",
        " ",
        "",
    )
    assert all(ladder_for(lang)[-1] == "" for lang in (*known_languages(), "unknown"))


def test_overlap_carries_whole_pieces() -> None:
    spans = split_spans("a b c d e f g h", chunk_size=6, overlap=2, separators=[" "])
    assert [s.text for s in spans] == ["a b c", "c d e", "e f g", "g h"]


def test_empty_and_whitespace_and_crlf() -> None:
    assert split_spans("", chunk_size=5, overlap=0, separators=["\n"]) == []
    assert split_spans(" \n\t\n", chunk_size=5, overlap=0, separators=["\n"]) == []
    spans = split_spans("ab\r\ncd\r\nef", chunk_size=5, overlap=0, separators=["\n", ""])
    assert [(s.text, s.start_line, s.end_line) for s in spans] == [
        ("ab", 1, 1),
        ("cd", 2, 2),
        ("ef", 3, 3),
    ]


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [(0, 0, "chunk size must be greater than zero, got 0"), (5, -1, "overlap must be .* got -1")],
)
def test_validation(size: int, overlap: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        split_spans("x", chunk_size=size, overlap=overlap, separators=["\n"])
