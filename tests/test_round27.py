"""Round twenty-seven (issue 23): a follow-up asking about the values the code does not list
("some other length", "neither 10 nor 12 digits") is answered by the branch for the rest (the
`default:` of a `switch`, the final `else`), not by a listed branch that says more of its
words; an operator the question writes (`==`) reaches the method defining it; a question naming
nothing and asking about no test is answered from the project's own code before its tests;
plain Russian words for ring buffers, sifting and reallocation reach the words code writes.

Двадцать седьмой раунд: уточняющий вопрос о значениях, которых код не перечисляет («какой-то
другой длины», «не 10 и не 12 цифр»), получает ветку для остальных (`default:`, последний
`else`), а не перечисленную ветку, в которой больше слов вопроса; оператор из вопроса (`==`)
находит метод, который его определяет; вопрос, не называющий ни имени, ни тестов, получает
код самого проекта раньше его тестов; «кольцевой буфер», «просеивать», «перевыделение»
находят слова кода."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, indexed, method_row, plan, search_terms
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import setup_only
from ragstrata.answer.graphs.ranking import definition_hits
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.answer.graphs.worker import worker_first
from ragstrata.core.evidence import Evidence, Requirement
from ragstrata.query.facets import facets_of
from ragstrata.query.models import AnchorType

SCAN = (
    "func (id *ULID) Scan(src interface{}) error {\n"
    "\tswitch x := src.(type) {\n"
    "\tcase nil:\n"
    "\t\treturn nil\n"
    "\tcase string:\n"
    "\t\treturn id.UnmarshalText([]byte(x))\n"
    "\tcase []byte:\n"
    "\t\t// Drivers often return text columns as []byte: accept both forms.\n"
    "\t\tswitch len(x) {\n"
    "\t\tcase len(*id):\n"
    "\t\t\treturn id.UnmarshalBinary(x)\n"
    "\t\tcase EncodedSize:\n"
    "\t\t\treturn id.UnmarshalText(x)\n"
    "\t\tdefault:\n"
    "\t\t\treturn ErrDataSize\n"
    "\t\t}\n"
    "\t}\n"
    "\treturn ErrScanValue\n"
    "}\n"
)
INN = '''def check_number(value):
    """Check the control digits of a tax number."""
    digits = list(map(int, value))
    if len(digits) == 10:
        control = sum(d * w for d, w in zip(digits, WEIGHTS_10)) % 11
        return (control % 10) == digits[-1] if control > 9 else control == digits[-1]
    elif len(digits) == 12:
        first = sum(d * w for d, w in zip(digits, WEIGHTS_11)) % 11
        second = sum(d * w for d, w in zip(digits, WEIGHTS_12)) % 11
        return first % 10 == digits[-2] and second % 10 == digits[-1]
    else:
        return False
'''
COOKIE = (
    "function getcookie(req, name, secrets) {\n"
    "  var raw = cookies[name]\n"
    "  var val\n"
    "  if (raw) {\n"
    "    if (raw.substr(0, 2) === 's:') {\n"
    "      val = unsigncookie(raw.slice(2), secrets)\n"
    "\n"
    "      if (val === false) {\n"
    "        debug('cookie signature invalid')\n"
    "        val = undefined\n"
    "      }\n"
    "    } else {\n"
    "      debug('cookie unsigned')\n"
    "    }\n"
    "  }\n"
    "  return val\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("text", "language", "question", "first"),
    [
        (SCAN, "go", "And if the driver hands back a byte slice of some other length, say 20?", 14),
        (SCAN, "go", "А если драйвер вернёт срез байтов какой-то другой длины?", 14),
        (INN, "python", "What is returned when the number is neither 10 nor 12 digits long?", 11),
        (INN, "python", "Что вернётся, если в номере не 10 и не 12 цифр?", 11),
    ],
)
def test_values_the_code_does_not_list_are_answered_by_the_branch_for_the_rest(
    text: str, language: str, question: str, first: int
) -> None:
    row = method_row("pkg.check", "pkg/check.src", language, text)
    span = answering_lines(row, facets_of(plan(question)))
    # the `default:` / final `else:` and its body, not the listed branch (`case len(*id):`,
    # `elif len(digits) == 12:`)
    assert span is not None and span.start_line == first, span


def test_the_branch_around_the_answering_lines_keeps_them_whatever_its_rest_does() -> None:
    row = method_row("index.getcookie", "index.js", "javascript", COOKIE)
    question = (
        "А если подпись у cookie не сошлась ни с одним секретом — что тогда получается "
        "вместо идентификатора сессии?"
    )
    span = answering_lines(row, facets_of(plan(question)))
    # the lines under `if (val === false)` (8-10), not the `else` for unsigned cookies (12)
    assert span is not None and 6 <= span.start_line <= 8 and span.end_line <= 11, span


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("What happens if the input text is not 32, 36, 38 or 45 characters long?", True),
        ("Что вернётся, если в номере не 10 и не 12 цифр?", True),
        ("What is returned when the number is neither 10 nor 12 digits long?", True),
        ("What happens if the timeout is not 5 seconds but 10?", False),
        ("Что будет, если передать не более 10 или 20 элементов?", False),
    ],
)
def test_values_a_question_excludes_ask_for_the_rest(question: str, rest: bool) -> None:
    assert ("otherwise" in facets_of(plan(question)).details) is rest


@pytest.mark.parametrize(
    "question",
    [
        "What does comparing a compiled pattern to a plain string with == actually check?",
        "Что проверяет сравнение шаблона со строкой через ==?",
        "What does != do for two patterns?",
    ],
)
def test_an_operator_the_question_writes_reaches_the_method_defining_it(question: str) -> None:
    assert "eq" in search_terms(question)
    assert "eq" not in facets_of(plan("What does comparing a pattern to a string check?")).terms


GLOB = """class Glob:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, str) and self.matches(other)
"""
GLOB_TEST = """def test_comparing_compiled_pattern_to_plain_string_checks_match():
    compiled = Glob("c?*")
    assert compiled == "cat"
    assert compiled != "dog"
"""


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("What does comparing a compiled pattern to a plain string with == actually check?", 1),
        ("Что проверяет сравнение скомпилированного шаблона с обычной строкой?", 1),
        ("Which test compares a compiled pattern with a plain string?", 0),
    ],
)
def test_a_question_naming_nothing_is_answered_from_the_code_before_its_tests(
    question: str, lead: int
) -> None:
    test = code_hit("tests.test_glob.test_comparing", "tests/test_glob.py", GLOB_TEST)
    code = code_hit("wildcard.glob.Glob", "wildcard/glob.py", GLOB, kind="class")
    asked = plan(question)
    # what retrieval ranked first was the test: the evidence policy's one definition
    found = Evidence(
        hits=(test, code),
        requirements={
            "require_def": Requirement(
                name="require_def", required=True, satisfied=True, hits=(test,)
            )
        },
    )
    focus = facets_of(asked)
    own = not (focus.tests or focus.mentions_tests or focus.mentions_aside)
    defs = definition_hits(asked, found, focus, own_first=own)
    # the project's own class first; a question about tests still gets its test
    assert defs[0] is (test, code)[lead], [h.symbol for h in defs]


@pytest.mark.parametrize(
    ("question", "term"),
    [
        (
            "Что происходит, когда в кольцевой буфер фиксированного размера добавляют элемент?",
            "ring",
        ),
        (
            "Что происходит, когда в кольцевой буфер фиксированного размера добавляют элемент?",
            "fixed",
        ),
        ("Как двоичная куча просеивает добавленное значение?", "sift"),
        ("Что происходит со старым указателем при перевыделении буфера?", "realloc"),
        ("Как звёздочки в шаблоне схлопываются в одну?", "collapse"),
        ("Как при хранении в Redis не затереть более новое значение старым?", "overwrite"),
    ],
)
def test_plain_russian_words_for_buffers_heaps_and_memory_reach_their_code_terms(
    question: str, term: str
) -> None:
    assert term in search_terms(question)


@pytest.mark.parametrize(
    "question",
    [
        "How are hashed schedule fields such as H/15 or H(0-29) turned into concrete numbers?",
        "Как поле расписания вида H(0-29) превращается в конкретные числа?",
    ],
)
def test_a_one_letter_call_of_a_syntax_is_no_name_the_answer_must_find(question: str) -> None:
    """`H(0-29)` writes a schedule's syntax: no definition of `H` is required, so the answer
    never opens with "`H` not found"; a call named by a real name still must be found."""
    assert "H" not in _strong_symbols(question)
    assert "get_value" in _strong_symbols("How does get_value() read the settings?")


@pytest.mark.parametrize(
    ("question", "data"),
    [
        (
            'Как подставляются значения в шаблоны сообщений вроде "${path} must be at least ${min}"?',
            "min",
        ),
        (
            "How are values put into message templates like '${path} must be at least ${min}'?",
            "path",
        ),
    ],
)
def test_the_words_of_a_quoted_example_name_nothing(question: str, data: str) -> None:
    """The words of an example text the question quotes (a message template) are data: no
    name of them leads the answer (`ArraySchema.min` for "${min}")."""
    names = [a.value for a in plan(question).query_plan.anchors if a.type is AnchorType.SYMBOL]
    assert data not in names, names


def _strong_symbols(question: str) -> list[str]:
    return [
        a.value.rstrip("()")
        for a in plan(question).query_plan.anchors
        if a.type is AnchorType.SYMBOL and a.confidence >= 0.7
    ]


NEW_CANONICAL = """pub fn new_canonical(iter: I) -> Decompositions<I> {
    Decompositions {
        kind: DecompositionType::Canonical,
        iter: iter.fuse(),
        buffer: TinyVec::new(),
        ready: 0..0,
    }
}
"""
NEW_V1 = """pub const fn new_v1(ts: Timestamp, node_id: &[u8; 6]) -> Self {
    let (ticks, counter) = ts.to_gregorian();
    Builder::from_gregorian_timestamp(ticks, counter, node_id).into_uuid()
}
"""
GO_NEW = """func New[K comparable, V any]() *Map[K, V] {
\treturn &Map[K, V]{
\t\ttable:    make(map[K]V),
\t\tordering: doublylinkedlist.New[K](),
\t}
}
"""


def test_a_constructor_building_its_value_in_place_only_sets_it_up() -> None:
    """A Rust `new_canonical` building its struct and a Go `New` making an empty map set the
    value up (a map type is no loop); a `new_v1` handing the work to a builder does it."""
    assert setup_only(code_hit("crate::Decompositions::new_canonical", "src/d.rs", NEW_CANONICAL))
    assert setup_only(code_hit("linkedhashmap.New", "maps/linkedhashmap/map.go", GO_NEW))
    assert not setup_only(code_hit("crate::v1::Uuid::new_v1", "src/v1.rs", NEW_V1))


WRAPPERS = {
    "store/pairs.py": '''
        class Pairs:
            def put(self, key, val, on_dup=None):
                """Associate key with val.

                If key is already associated with another value, or val with another key,
                the duplication policy on_dup decides: raise, drop the old item, or ignore
                the new one. If key is already associated with val, nothing happens.

                Raises DuplicationError when the policy says so.
                """
                self._update([(key, val)], on_dup)

            def _update(self, items, on_dup):
                for key, val in items:
                    old = self._fwd.get(key)
                    if old is not None and old != val and on_dup == "raise":
                        raise DuplicationError(key)
                    self._fwd[key] = val
                    self._inv[val] = key
    ''',
    "store/version.py": '''
        def parse(text):
            """Parse the given version string.

            Returns a Version; raises InvalidVersion when the string is no version. The
            comparison of two parsed versions ignores trailing zeros, so "1.0.0" and "1"
            are the same version, and local labels sort after the public part.

            >>> parse("1.0.0") == parse("1")
            True
            """
            return Version(text)


        class Version:
            def __init__(self, text):
                self.parts = tuple(int(p) for p in text.split("."))
    ''',
}


def test_a_one_statement_body_under_a_long_docstring_hands_the_work_on(tmp_path: Path) -> None:
    """`put` is one call under ten lines of docstring: the function it calls does the work; a
    `parse` only building a `Version` keeps the lead (a class builds, no function works)."""
    groups = stem_groups([{"duplicate"}, {"key"}, {"value"}])
    with indexed(tmp_path / "pairs", WRAPPERS) as repo:
        found = repo.search("put parse key value version", layers=["C1"]).hits
        hits = {h.symbol: h for h in found if h.layer == "C1"}
        put = hits["store.pairs.Pairs.put"]
        parse = hits["store.version.parse"]
        assert worker_first([put], repo.reader, groups)[0].symbol == "store.pairs.Pairs._update"
        assert worker_first([parse], repo.reader, groups)[0].symbol == "store.version.parse"
