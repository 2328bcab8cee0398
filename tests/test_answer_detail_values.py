"""Detail follow-ups about a value the question writes, and about what the code does not list.

"what if the time is 12 AM?" is answered by the branch writing ``"AM"`` and ``12``; «в ноль
колонок» by the check against ``0`` (a number word is its digits); a Russian word asked is one
word however many of its English terms a line writes; "one it does not support" by the error
at the end of a ``switch``; "longer than the size" by the comparison of a size with a
``length()``; a follow-up with no cue at all («Куда ставится курсор после этого?») by the
lines of the topic, not its card. And a flow noun after a
preposition («превращаются в вызовы API») is what a how-question is about, not a request for
callers. Each on real definition rows and the router's real facets.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import follow_up, method_row
from ragstrata.answer.graphs.detail import DetailSpan, answering_lines
from ragstrata.query.facets import read_facets


def _answering(
    where: tuple[str, str, str],
    text: str,
    question: str,
    terms: tuple[str, ...],
    concepts: tuple[frozenset[str], ...] = (),
) -> DetailSpan | None:
    facets = replace(read_facets(question), terms=terms, concepts=concepts)
    return answering_lines(method_row(*where, text), facets)


def _lines(span: DetailSpan | None) -> tuple[int, int] | None:
    return None if span is None else (span.start_line, span.end_line)


CLOCK = (
    "def to_24h(groups, hms, am):\n"  # 1
    "    H = M = 0\n"
    "    if hms is not None and groups[hms]:\n"
    "        H, M = groups[hms].split(':')\n"
    "        H = int(H)\n"  # 5
    "    else:\n"
    "        time_only = True\n"
    '    if am == "AM" and H == 12:\n'
    '        # correction for "12" hour functioning as "0" hour\n'
    "        H -= 12\n"  # 10
    '    elif am == "PM" and H != 12:\n'
    "        H += 12\n"
    "    return H, M\n"
)


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("and what happens to the hour if the time is 12 AM?", ("hour", "time")),
        ("А что происходит с часом, если время указано как 12 AM?", ("hour", "time", "datetime")),
    ],
)
def test_a_value_the_question_writes_finds_the_branch_writing_it(
    question: str, terms: tuple[str, ...]
) -> None:
    assert {"12", "am"} <= read_facets(question).values  # "AM" is a value, not a stopword
    span = _answering(("parse.to_24h", "parse.py", "python"), CLOCK, question, terms)
    assert _lines(span) == (8, 10), span
    # without the value the question names only the time, and the words alone decide
    plain = _answering(
        ("parse.to_24h", "parse.py", "python"), CLOCK, "and what about the time?", terms
    )
    assert _lines(plain) != (8, 10), plain


COLUMNS = (
    "pub fn wrap_columns<'a, Opt>(\n"  # 1
    "    text: &str,\n"
    "    columns: usize,\n"
    "    total_width_or_options: Opt,\n"
    "    left_gap: &str,\n"  # 5
    "    middle_gap: &str,\n"
    "    right_gap: &str,\n"
    ") -> Vec<String>\n"
    "where\n"
    "    Opt: Into<Options<'a>>,\n"  # 10
    "{\n"
    "    assert!(columns > 0);\n"
    "    let mut options: Options = total_width_or_options.into();\n"
    "    let inner_width = options.width.saturating_sub(left_gap.len());\n"
    "    options.width = inner_width / columns;\n"  # 15
    "    wrap(text, options)\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "Что произойдёт, если попросить разложить текст в ноль колонок?",
        "What happens if I ask for the text in zero columns?",
    ],
)
def test_a_number_word_is_the_digits_the_code_compares_with(question: str) -> None:
    # the signature runs past eight lines (its parameters one a line, then `where`): its
    # `text: &str` answers nothing
    span = _answering(
        ("crate::columns::wrap_columns", "src/columns.rs", "rust"), COLUMNS, question, ("text",)
    )
    assert _lines(span) == (12, 12), span
    assert read_facets(question).values == {"0"}


DECOMPRESS = (
    "function createDecompressionStream (encoding, debug) {\n"  # 1
    "  switch (encoding) {\n"
    "    case 'deflate':\n"
    "      return zlib.createInflate()\n"
    "    case 'gzip':\n"  # 5
    "      return zlib.createGunzip()\n"
    "    case 'br':\n"
    "      if (hasZstdSupport) {\n"
    "        return zlib.createZstdDecompress()\n"
    "      }\n"  # 10
    "      return zlib.createBrotliDecompress()\n"
    "    case 'identity':\n"
    "      return null\n"
    "  }\n"
    "  throw createError(415, 'unsupported content encoding \"' + encoding + '\"', {\n"  # 15
    "    encoding,\n"
    "    type: 'encoding.unsupported'\n"
    "  })\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "а если формат сжатия не поддерживается?",
        "and what if the compression format is one it does not support?",
    ],
)
def test_a_word_asked_counts_once_however_many_of_its_terms_a_line_writes(question: str) -> None:
    # «сжатие» asked as compression, decompress, deflate, gzip, inflate, zlib: the branch
    # writing three of them has said one word, as the error naming "unsupported" has
    compression = frozenset(
        {"compression", "decompress", "deflate", "encoding", "gzip", "inflate", "zlib"}
    )
    assert "otherwise" in read_facets(question).details
    terms = (*sorted(compression), "format", "support", "unsupported")
    concepts = (compression, frozenset({"format"}), frozenset({"support", "unsupported"}))
    span = _answering(
        ("lib/read.createDecompressionStream", "lib/read.js", "javascript"),
        DECOMPRESS,
        question,
        terms,
        concepts,
    )
    assert span is not None and span.start_line == 15, span


PAD = (
    "public static String leftPad(final String str, final int size, String padStr) {\n"  # 1
    "    if (str == null || size <= str.length()) {\n"
    "        return str;\n"
    "    }\n"
    "    final int pads = size - str.length();\n"  # 5
    "    if (padStr.length() == 1 && pads <= PAD_LIMIT) {\n"
    "        return leftPad(str, size, padStr.charAt(0));\n"
    "    }\n"
    "    return pad(str, pads, padStr);\n"
    "}\n"  # 10
)


def test_a_size_compared_with_a_length_method_answers_longer_than() -> None:
    question = "а что она вернёт, если строка уже длиннее нужного размера?"
    concepts = (frozenset({"string", "str", "line"}), frozenset({"long", "length"}),
                frozenset({"size", "length"}), frozenset({"return"}))  # fmt: skip
    terms = ("string", "str", "line", "long", "length", "size", "return")
    span = _answering(
        ("org.example.StringUtils.leftPad", "src/StringUtils.java", "java"),
        PAD,
        question,
        terms,
        concepts,
    )
    assert _lines(span) == (2, 4), span  # the guard, its return and its brace


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Как цветовые коды из текста превращаются в вызовы API консоли?", {"how"}),
        ("Как colorama решает, превращать ли их в вызовы Windows API?", {"how"}),
        ("покажи вызовы parse_args", {"callers"}),
        ("где вызовы функции parse_args?", {"callers"}),
    ],
)
def test_a_flow_noun_after_a_preposition_is_what_the_question_is_about(
    question: str, asks: set[str]
) -> None:
    assert read_facets(question).asks == asks


SCREEN_FILES = {
    "term/screen.py": '''
        """The legacy console: erasing and moving the cursor."""


        class Console:
            def __init__(self, handle):
                self.handle = handle

            def erase_screen(self, mode=0):
                """Erase part of the screen, as the ANSI 'erase display' command asks."""
                size = self.handle.size()
                if mode == 0:
                    start = self.handle.position()
                elif mode == 2:
                    start = (0, 0)
                else:
                    return
                self.handle.fill(" ", size, start)
                if mode == 2:
                    # home position after a full clear
                    self.handle.move_cursor(1, 1)
            ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "Как очищается экран в старой консоли?",
            "Куда ставится курсор после полной очистки?",
        ),
        (
            "How is the screen erased on the legacy console?",
            "Where does the cursor end up after a full clear?",
        ),
    ],
)
def test_a_follow_up_with_no_cue_asks_a_detail_of_the_topic(
    tmp_path: Path, first: str, question: str
) -> None:
    # no "what if", no «если»: a follow-up asking in plain words is still about a detail of
    # the function the answer led with, so its lines lead, not the definition card again
    answer = follow_up(tmp_path, SCREEN_FILES, first, question)
    cited = answer.citations[0]
    # the branch after a full clear (`if mode == 2:`, its comment, the cursor moved home)
    assert (cited.path, cited.start_line, cited.end_line) == ("term/screen.py", 18, 20), answer.lead
