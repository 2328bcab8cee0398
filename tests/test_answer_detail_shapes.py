"""Detail follow-ups answered by the shape of the lines, not only by their words.

A value the code never lists ("HTTP/2.0" of a parser listing 1.0 and 1.1) is answered by the
branch for the rest; "bigger than", «меньше, чем» by the comparison with a bound; a spelled-out
word ("a plain string") by the short name the code writes (``str``); a branch too long to show
whole from its lines that answer; and a topic declared by ``@overload`` stubs before its body
is read in the body. Each on real definition rows and, for the topic, a real index in a session.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import follow_up, method_row
from ragstrata.answer.graphs.detail import DetailSpan, answering_lines
from ragstrata.query.facets import read_facets


def _answering(
    where: tuple[str, str, str], text: str, question: str, terms: tuple[str, ...]
) -> DetailSpan | None:
    facets = replace(read_facets(question), terms=terms)
    return answering_lines(method_row(*where, text), facets)


def _first_cited(
    tmp_path: Path, files: dict[str, str], first: str, question: str
) -> tuple[str, int, str]:
    """Where the answer to ``question`` asked after ``first`` leads: path, line, its lead."""
    answer = follow_up(tmp_path, files, first, question)
    cited = answer.citations[0]
    return cited.path, cited.start_line, answer.lead


VERSION = (
    "fn parse_version(bytes: &[u8]) -> Result<u8, Error> {\n"  # 1
    '    const H10: &[u8] = b"HTTP/1.0";\n'
    '    const H11: &[u8] = b"HTTP/1.1";\n'
    "    if bytes.len() < 8 {\n"
    "        return Err(Error::Partial);\n"  # 5
    "    }\n"
    "    match &bytes[..8] {\n"
    "        H10 => Ok(0),\n"
    "        H11 => Ok(1),\n"
    "        _ => Err(Error::Unsupported),\n"  # 10
    "    }\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question", ["and what if HTTP/2.0 comes in?", "а если пришла версия HTTP/2.0?"]
)
def test_a_value_the_code_does_not_list_is_answered_by_the_branch_for_the_rest(
    question: str,
) -> None:
    span = _answering(("crate::parse_version", "src/lib.rs", "rust"), VERSION, question, ("http",))
    assert span is not None and (span.start_line, span.end_line) == (10, 10), span
    # a value it lists is no question about the rest
    listed = _answering(
        ("crate::parse_version", "src/lib.rs", "rust"),
        VERSION,
        question.replace("2.0", "1.1"),
        ("http",),
    )
    assert listed is not None and listed.start_line != 10, listed


CACHE = (
    "def __setitem__(self, key, value):\n"  # 1
    "    maxsize = self.__maxsize\n"
    "    size = self.getsizeof(value)\n"
    "    if size > maxsize:\n"
    '        raise ValueError("value too large")\n'  # 5
    "    if key not in self.__data or self.__size[key] < size:\n"
    "        while self.__currsize + size > maxsize:\n"
    "            self.popitem()\n"
    "    self.__data[key] = value\n"
)


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("and what if the single item is bigger than the whole cache?", ("item", "cache")),
        ("а если один элемент превышает размер всего кеша?", ("item", "element", "cache")),
    ],
)
def test_bigger_than_is_answered_by_the_comparison_with_the_bound(
    question: str, terms: tuple[str, ...]
) -> None:
    span = _answering(("cache.Cache.__setitem__", "cache.py", "python"), CACHE, question, terms)
    assert span is not None and (span.start_line, span.end_line) == (4, 5), span


ESCAPE = (
    "def escape(s):\n"  # 1
    '    if hasattr(s, "__html__"):\n'
    "        return Markup(s.__html__())\n"
    "    if type(s) is str:\n"
    "        return Markup(_escape_inner(s))\n"  # 5
    "    return Markup(_escape_inner(str(s)))\n"
)


@pytest.mark.parametrize(
    "question", ["and what about a plain string?", "а если передать обычную строку?"]
)
def test_a_word_spelled_out_matches_the_short_name_the_code_writes(question: str) -> None:
    span = _answering(
        ("markup.escape", "markup.py", "python"), ESCAPE, question, ("plain", "string")
    )
    assert span is not None and (span.start_line, span.end_line) == (4, 5), span


FIELD = (
    "func processField(value string, field reflect.Value) error {\n"  # 1
    "    typ := field.Type()\n"
    "    switch typ.Kind() {\n"
    "    case reflect.Map:\n"
    "        mp := reflect.MakeMap(typ)\n"  # 5
    '        if strings.TrimSpace(value) != "" {\n'
    '            pairs := strings.Split(value, ",")\n'
    "            for _, pair := range pairs {\n"
    '                kvpair := strings.Split(pair, ":")\n'
    "                if len(kvpair) != 2 {\n"  # 10
    '                    return fmt.Errorf("invalid map item: %q", pair)\n'
    "                }\n"
    "                k := reflect.New(typ.Key()).Elem()\n"
    "                if err := processField(kvpair[0], k); err != nil {\n"
    "                    return err\n"  # 15
    "                }\n"
    "                mp.SetMapIndex(k, k)\n"
    "            }\n"
    "        }\n"
    "        field.Set(mp)\n"  # 20
    "    }\n"
    "    return nil\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    ["and what if an item of the map has no colon?", "а если элемент карты записан без двоеточия?"],
)
def test_a_branch_too_long_to_show_is_cited_from_its_lines_that_answer(question: str) -> None:
    span = _answering(
        ("envconfig.processField", "envconfig.go", "go"), FIELD, question, ("item", "map", "colon")
    )
    # not from the `if strings.TrimSpace(value) != ""` around the loop (line 6)
    assert span is not None and span.start_line == 9, span
    assert span.end_line <= 13, span


SIGNER_FILES = {
    "signing/timed.py": '''
        """Signatures with a timestamp."""

        import typing as t


        class TimestampSigner:
            """Signs values with the time they were signed at."""

            @t.overload
            def unsign(self, value: bytes, max_age: int | None = None) -> bytes: ...

            @t.overload
            def unsign(self, value: bytes, max_age: int, with_time: bool) -> tuple: ...

            def unsign(self, value, max_age=None, with_time=False):
                """Check the signature of a value and how old it is."""
                value, stamp = value.rsplit(b".", 1)
                age = self.now() - int(stamp)
                if max_age is not None and age > max_age:
                    raise SignatureExpired(f"signature age {age} > {max_age} seconds")
                if age < 0:
                    raise SignatureExpired(f"signature age {age} < 0 seconds: from the future")
                return (value, stamp) if with_time else value

            def now(self):
                return 0


        class SignatureExpired(Exception):
            """The signature is older than allowed."""
        ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does the timestamp signer check that a signature is not too old?",
            "and what if the signature comes from the future?",
        ),
        (
            "Как подписчик с отметкой времени проверяет, что подпись не устарела?",
            "а что будет, если подпись пришла из будущего?",
        ),
    ],
)
def test_a_topic_declared_by_overload_stubs_is_read_in_its_body(
    tmp_path: Path, first: str, question: str
) -> None:
    # the branch for a negative age in the implementation, not a stub's signature
    path, line, lead = _first_cited(tmp_path, SIGNER_FILES, first, question)
    assert (path, line) == ("signing/timed.py", 21), lead


SCHEDULER_FILES = {
    "planner/jobs.py": '''
        """Jobs run on a weekly plan."""

        import datetime


        class Job:
            def __init__(self):
                self.start_day = None

            def monday(self):
                """Run the job on Mondays."""
                self.start_day = "monday"
                return self

            def sunday(self):
                """Run the job on Sundays."""
                self.start_day = "sunday"
                return self


        WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


        def move_to_next_weekday(moment, weekday):
            """Move the moment to the given weekday, this week or the next."""
            days_ahead = WEEKDAYS.index(weekday) - moment.weekday()
            if days_ahead < 0:
                days_ahead += 7
            return moment + datetime.timedelta(days=days_ahead)
        ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "Как планировщик переносит задачу на нужный день недели?",
            "а если этот день на этой неделе уже прошёл?",
        ),
        (
            "How does the planner move a job to the right day of the week?",
            "and what if that day has already passed this week?",
        ),
    ],
)
def test_a_plural_in_the_code_is_the_word_of_the_question(
    tmp_path: Path, first: str, question: str
) -> None:
    # `days_ahead` is about the day asked of: the branch for a day already past this week
    path, line, lead = _first_cited(tmp_path, SCHEDULER_FILES, first, question)
    assert (path, line) == ("planner/jobs.py", 27), lead


def test_fuzzing_harnesses_are_code_beside_the_project_s_own() -> None:
    from ragstrata.core.paths import peripheral_path

    assert peripheral_path("fuzz/fuzz_targets/fuzz_quote.rs")
    assert peripheral_path("fuzz/fuzz_quote_python/src/fuzz.rs")
    assert not peripheral_path("src/fuzzy.rs")  # a fuzzy matcher is the project's own code


PARSE_SIZE = (
    "func ParseSize(s string) (uint64, error) {\n"  # 1
    "    num, rest := splitNumber(s)\n"
    "    f, err := strconv.ParseFloat(num, 64)\n"
    "    if err != nil {\n"
    "        return 0, err\n"  # 5
    "    }\n"
    "    extra := strings.ToLower(strings.TrimSpace(rest))\n"
    "    if m, ok := sizeTable[extra]; ok {\n"
    "        return uint64(f * float64(m)), nil\n"
    "    }\n"  # 10
    '    return 0, fmt.Errorf("unhandled size name: %v", extra)\n'
    "}\n"
)


@pytest.mark.parametrize(
    "question", ["and what if the unit is an unknown one?", "а если единица незнакомая?"]
)
def test_what_no_branch_handled_is_answered_by_the_error_at_the_end(question: str) -> None:
    span = _answering(("human.ParseSize", "size.go", "go"), PARSE_SIZE, question, ("unit",))
    # no line says "unit": the error the body ends with is what an unknown one gets
    assert span is not None and (span.start_line, span.end_line) == (11, 11), span
