"""Round twenty-four (issue 23): a long function doing the work keeps the lead of a
how-answer from the helper it calls for one of the things the question lists; plain words for
buckets, remainders, idling, reversing and choosing reach the words code writes.

Двадцать четвёртый раунд: длинная функция, которая делает работу, остаётся первой в ответе
«как это работает» и не уступает место помощнику, которого она вызывает ради одного из
перечисленных в вопросе пунктов; слова «корзина», «остаток», «простаивать», «задом наперёд»
находят слова кода."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import indexed, method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.query.facets import facets_of

# a reader of 40 lines of code handling comments, quotes and continuation lines, and the
# helper it calls for the continuation lines alone: named by more of the question's words
READER = {
    "src/conf/reader.py": '''
        def read_value(text, rest):
            """Read the value of a key line: strip an inline comment, remove the quotes
            around it and join the continuation lines that follow a backslash."""
            value = text.strip()
            if value.startswith('"') and value.endswith('"'):
                value = value[1:-1]
                quoted = True
            else:
                quoted = False
            if not quoted and "#" in value:
                value = value.split("#", 1)[0]
            if not quoted and ";" in value:
                value = value.split(";", 1)[0]
            value = value.rstrip()
            if value.endswith("\\\\"):
                value = read_continuation_lines(value, rest)
            if value == "true":
                value = "1"
            if value == "false":
                value = "0"
            if value.startswith("'") and value.endswith("'"):
                value = value[1:-1]
            if value.startswith("[") and value.endswith("]"):
                value = value[1:-1]
            if value.startswith("{") and value.endswith("}"):
                value = value[1:-1]
            if value.lower() == "none":
                value = ""
            if value.lower() == "null":
                value = ""
            if value.lower() == "yes":
                value = "1"
            if value.lower() == "no":
                value = "0"
            if value.lower() == "on":
                value = "1"
            if value.lower() == "off":
                value = "0"
            if len(value) > 4096:
                raise ValueError("value too long")
            return value


        def read_continuation_lines(value, rest):
            """Join the continuation lines of a value that ends with a backslash."""
            while value.endswith("\\\\") and rest:
                value = value[:-1] + rest.pop(0).strip()
            return value
    ''',
}


@pytest.mark.parametrize(
    "question",
    [
        "When the parser reads the value of a key line, how does it deal with inline comments,"
        " quotes and continuation lines?",
        "Как при чтении значения строки с ключом обрабатываются комментарии в строке, кавычки"
        " и строки-продолжения?",
    ],
)
def test_a_long_function_doing_the_work_keeps_the_lead_from_a_helper_it_calls(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, READER) as repo:
        result = repo.ask(question)
    lead = result.answer.citations[0]
    assert (lead.path, lead.start_line) == ("src/conf/reader.py", 1), result.answer.text[:300]


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Сколько корзин создаётся для заданного числа ключей?", "bucket"),
        ("Как получают частное и остаток от деления на 100?", "remainder"),
        ("Как получают частное и остаток от деления на 100?", "division"),
        ("Когда рабочий поток простаивает, он завершается?", "idle"),
        ("Как строка переворачивается задом наперёд?", "reverse"),
        ("Как middleware для раздачи статики проверяет путь?", "static"),
        ("How does the client choose which server a key goes to?", "pick"),
        ("Как при уничтожении кэша освобождается память?", "drop"),
        ("What happens to the entries when the cache is destroyed?", "drop"),
    ],
)
def test_plain_words_for_buckets_remainders_idling_and_choosing_reach_their_code_terms(
    question: str, term: str
) -> None:
    assert term in facets_of(plan(question)).terms


@pytest.mark.parametrize(
    "question",
    [
        'How does it split words glued together with inner capitals, like "fooBar" or'
        ' "XMLHttpRequest", into separate words?',
        "Как разбиваются слова, склеенные заглавными буквами, вроде «fooBar» или «XMLHttpRequest»?",
        "How is a CamelCase word split into snake_case?",
        "Как слово в CamelCase превращается в snake_case?",
    ],
)
def test_names_listed_as_examples_and_ways_of_writing_names_need_no_definition(
    question: str,
) -> None:
    symbols = [a for a in plan(question).query_plan.anchors if a.type.value == "SYMBOL"]
    # each is weak: nothing has to define it, so its absence is no "not found"
    assert len(symbols) == 2 and all(a.confidence < 0.7 for a in symbols), symbols


def test_names_a_question_asks_about_stay_required() -> None:
    anchors = plan("Where is parseConfig defined, and what does loadFile do?").query_plan.anchors
    assert [(a.value, a.confidence >= 0.7) for a in anchors] == [
        ("parseConfig", True),
        ("loadFile", True),
    ]


SPLITTER = {
    "src/words.js": """
        const splitGlued = string => {
            // a lower-case letter followed by a capital starts a new word
            string = string.replace(/([a-z\\\\d])([A-Z])/g, '$1 $2');
            // a run of capitals followed by a capital and a lower-case letter
            return string.replace(/([A-Z]+)([A-Z][a-z\\\\d]+)/g, '$1 $2');
        };

        export default function toWords(string) {
            return splitGlued(string).split(' ');
        }
    """,
}


def test_a_how_question_giving_examples_is_answered_from_the_code(tmp_path: Path) -> None:
    question = (
        'How does it break up words glued together with inner capital letters, like "fooBar"'
        ' or "XMLHttpRequest"?'
    )
    with indexed(tmp_path, SPLITTER) as repo:
        result = repo.ask(question)
    assert result.answer.status != "not_found", result.answer.text[:300]
    assert result.answer.citations[0].path == "src/words.js"


# content-disposition's fallback: the outer condition restates the question's premise ("a
# string"), the inner branch answers it
FALLBACK = (
    "function parameters (filename, fallback) {\n"
    "  if (typeof fallback === 'string') {\n"
    "    if (!ASCII_TEXT_REGEXP.test(fallback)) {\n"
    "      throw new TypeError('Fallback must be valid US-ASCII: ' + fallback)\n"
    "    }\n"
    "\n"
    "    if (fallback === filename) return { filename }\n"
    "    return { filename: fallback, 'filename*': encodeExtended(filename) }\n"
    "  }\n"
    "  return { filename }\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "What happens if the fallback name is a string with non-ASCII characters?",
        "А что будет, если в качестве запасного имени передать строку, в которой есть не-ASCII"
        " символы?",
    ],
)
def test_the_branch_inside_the_condition_restating_the_premise_answers(question: str) -> None:
    row = method_row("index.parameters", "index.js", "javascript", FALLBACK)
    span = answering_lines(row, facets_of(plan(question)))
    assert span is not None and (span.start_line, span.end_line) == (3, 5), span
