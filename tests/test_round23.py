"""Round twenty-three (issue 23): "what algorithm does it use to …" asks how something works,
and a detail of a definition named by the question's own word is answered by its lines, not
by its card again.

Двадцать третий раунд: «какой алгоритм …» спрашивает, как это работает; деталь функции,
названной словом самого вопроса, отвечается её строками, а не карточкой ещё раз."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import indexed, method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.core.question import QuestionFacets
from ragstrata.core.rows import DefinitionRow
from ragstrata.query.facets import facets_of, read_facets


@pytest.mark.parametrize(
    "question",
    [
        "What algorithm advances the generator's state and turns it into each random output?",
        "Which approach does it take to seed the generator?",
        "What strategy is used when the buffer is full?",
        "Какой алгоритм используется для перемешивания элементов?",
        "Какой подход применяется при переполнении буфера?",
        "Каким способом генератор получает начальное значение?",
    ],
)
def test_asking_for_the_algorithm_or_approach_asks_how_it_works(question: str) -> None:
    assert "how" in read_facets(question).asks


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Which file defines the generator?", {"where"}),
        ("В каком файле определён генератор?", {"where"}),
    ],
)
def test_a_where_question_stays_a_where_question(question: str, asks: set[str]) -> None:
    assert read_facets(question).asks == asks


# a stream's error handler named `error`: the question's "errors" is its own name
HANDLER = (
    "function error (err) {\n"
    "  if (forwardError || !(err.statusCode < 500)) {\n"
    "    next(err)\n"
    "    return\n"
    "  }\n"
    "  next()\n"
    "}\n"
)


def _handler_asked(question: str) -> tuple[DefinitionRow, QuestionFacets]:
    """The handler named `error` and ``question`` read as a condition detail of it."""
    facets = facets_of(plan(question))
    row = method_row("index.serveStatic.error", "index.js", "javascript", HANDLER)
    return row, replace(facets, details=facets.details | {"condition"})


@pytest.mark.parametrize(
    "question",
    [
        "Which kinds of errors are still passed on instead of being skipped?",
        "Какие ошибки всё равно передаются дальше, а не пропускаются?",
    ],
)
def test_a_detail_of_a_definition_named_by_the_question_word_cites_its_lines(
    question: str,
) -> None:
    span = answering_lines(*_handler_asked(question), shown=True)
    # the branch deciding it (2-5), not nothing (the card again)
    assert span is not None and (span.start_line, span.end_line) == (2, 5), span


def test_the_own_name_does_not_weigh_in_choosing_the_definition() -> None:
    row, facets = _handler_asked("Какие ошибки всё равно передаются дальше, а не пропускаются?")
    # weighed against other definitions, only the question's other words count: none here
    assert answering_lines(row, facets) is None
    assert answering_lines(row, facets, shown=True) is not None


def test_the_own_name_still_says_nothing_when_other_words_answer() -> None:
    text = (
        "def parse(text):\n"
        "    if not text:\n"
        "        return None\n"
        "    head = parse_head(text)\n"
        "    return head\n"
    )
    row = method_row("cfg.parse", "cfg.py", "python", text)
    facets = facets_of(plan("What does parse return when the text is empty?"))
    span = answering_lines(row, facets)
    # the guard for the empty text, not the line calling `parse_head`
    assert span is not None and (span.start_line, span.end_line) == (2, 3), span


def test_a_name_carried_from_the_conversation_is_no_word_the_question_writes() -> None:
    text = (
        "def make_response(self, rv):\n"
        "    if rv is None:\n"
        "        raise TypeError('the view function did not return a valid response')\n"
        "    return self.response_class(rv)\n"
    )
    row = method_row("flask.app.Flask.make_response", "app.py", "python", text)
    # "what about in the tests?" after "where is make_response defined?": the topic's name
    # is carried into the terms, but the question writes only "tests"
    asked = facets_of(plan("What about in the tests?"))
    facets = replace(asked, terms=(*asked.terms, "make", "response"))
    assert answering_lines(row, facets, shown=True) is None


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Как задача повторно запускается после ошибки?", "retry"),
        ("Что будет, если в файле переводы строк вперемешку?", "mixed"),
        ("Когда поток усыпляют, а когда он крутится в активном ожидании?", "park"),
        ("Когда поток усыпляют, а когда он крутится в активном ожидании?", "spin"),
    ],
)
def test_russian_words_for_retrying_mixing_and_parking_reach_their_english_terms(
    question: str, term: str
) -> None:
    assert term in facets_of(plan(question)).terms


# an old copy of the library kept for a benchmark: every function says the question's words
_OLD_COPY = "\n\n".join(
    f"def retry_variant_{n}(task, attempts=3, pause=1.0):\n"
    f'    """Retry the task when it fails: run it again after a pause between attempts."""\n'
    f"    return task()\n"
    for n in range(30)
)
ASIDE = {
    "benchmark/old_retry/retry_copy.py": _OLD_COPY,
    "src/pkg/again.py": '''
        import time


        def run_again(task, attempts=3, pause=1.0):
            """Run the task again when it fails, waiting a pause between attempts."""
            for attempt in range(attempts):
                try:
                    return task()
                except OSError:
                    time.sleep(pause * (attempt + 1))
            raise RuntimeError("gave up")
    ''',
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it retry a task that fails, and how long is the pause between attempts?",
        "Как задача повторно запускается после сбоя и какая пауза между попытками?",
    ],
)
def test_a_copy_beside_the_project_does_not_crowd_its_code_out_of_a_how_answer(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, ASIDE) as repo:
        result = repo.ask(question)
    code = [h for h in result.evidence.hits if h.layer == "C1"]
    # the project's own function is among the evidence, before the benchmark's copies
    assert code and code[0].path == "src/pkg/again.py", [h.path for h in code[:5]]
    assert result.answer.citations[0].path == "src/pkg/again.py", result.answer.text[:300]


def test_a_question_about_the_benchmark_keeps_its_code_first(tmp_path: Path) -> None:
    with indexed(tmp_path, ASIDE) as repo:
        result = repo.ask("How does the benchmark's old copy retry a task that fails?")
    code = [h for h in result.evidence.hits if h.layer == "C1"]
    assert code[0].path.startswith("benchmark/"), [h.path for h in code[:5]]


@pytest.mark.parametrize(
    "question",
    [
        "Как rimraf решает, отдать ли удаление встроенной функции Node.js?",
        "Does it use the Node.js built-in or its own code?",
    ],
)
def test_a_product_named_like_a_file_is_no_file(question: str) -> None:
    anchors = plan(question).query_plan.anchors
    assert not [a for a in anchors if a.type.value == "FILE_PATH"], anchors
    assert plan("What does config.js export?").query_plan.anchors[0].type.value == "FILE_PATH"


def test_a_question_naming_javascript_finds_the_typescript_code(tmp_path: Path) -> None:
    files = {
        "bench/run.js": "function measure(fn) {\n  return fn()\n}\n",
        "src/remove.ts": (
            "export function removeTree(path: string): boolean {\n"
            "  // the JavaScript implementation: walk the tree, remove children first\n"
            "  return walkAndRemove(path)\n"
            "}\n"
        ),
    }
    with indexed(tmp_path, files) as repo:
        result = repo.ask("How does the JavaScript implementation remove a tree?")
    paths = [h.path for h in result.evidence.hits]
    assert "src/remove.ts" in paths, paths


@pytest.mark.parametrize(
    ("question", "aside"),
    [
        ("How does the benchmark's old copy remove a folder?", True),
        ("Как устроен пример из папки examples?", True),
        ("How does it split a name, for example a.b?", False),
        ("Как он разбирает строку, например a.b?", False),
        ("How does fuzzy matching score a candidate?", False),
    ],
)
def test_asking_about_code_beside_the_project_is_read_from_its_words(
    question: str, aside: bool
) -> None:
    # "for example" gives data, «например» is no example folder, "fuzzy" no fuzzing harness
    assert read_facets(question).mentions_aside is aside
