"""Follow-ups from the sixteenth round's blind batch, one class each.

A detail follow-up is answered in the topic the previous answer led with unless another
function's lines answer clearly better. When no line of the topic answers at all (the
previous answer led with the wrong code), the first function found for the follow-up is a
guess, not the topic: a function whose lines answer it better by one more word of the
question answers instead.

A missing value is also tested as JavaScript writes `undefined` (`url === void 0`, `typeof x
=== 'undefined'`), and given its default in one line (`data = data || STATUS_CODES[code]`,
`x = x or {}`): "if I call it without passing any data" asks for that line.

Russian words of general vocabulary the glossary lacked («архив», «разреженный»,
«распаковка», «повторение», «кадр», …) reach the English words of the code.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import indexed, method_row
from ragstrata.answer.graphs import build_graph
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.app.sessions import next_state
from ragstrata.core.evidence import Evidence
from ragstrata.query.facets import read_facets
from ragstrata.query.models import RouterPlan
from ragstrata.query.paraphrase import Query, RuEnTermExpander


def _files(topic_reads_port: bool) -> dict[str, str]:
    """A settings loader (the topic), a port reader found first for the follow-up, and the
    port check that answers it; the loader names the port only in ``topic_reads_port``."""
    read = "port" if topic_reads_port else "text"
    return {
        "app/loader.py": f'''
            def load_settings(path):
                """Read the settings file at path."""
                with open(path, encoding="utf-8") as handle:
                    {read} = handle.read()
                return {read}
            ''',
        "app/net.py": """
            def read_port(text):
                port = text.strip()
                return int(port)
            """,
        "app/checks.py": """
            def check_port(port):
                if port not in range(1, 65536):
                    raise ValueError(f"port {port} is out of range")
                return port
            """,
    }


_HOW = "How does it read the settings file?"
_DETAIL = ("And what if the given port is invalid?", "А если порт вне допустимого диапазона?")


def _lead(root: Path, question: str, *, topic_reads_port: bool) -> tuple[str, int]:
    """The lead of ``question`` asked after :data:`_HOW`, whose answer led with the loader;
    the port check is found only by reading the two questions as one."""
    with indexed(root, _files(topic_reads_port)) as repo:
        state = next_state(repo.route(_HOW), None, "app.loader.load_settings")
        plan = RouterPlan.model_validate(repo.route(question, state))
        graph = build_graph(plan.graph_id, reader=repo.reader)
        own = [h for h in repo.search(question, state=state).hits if "checks" not in h.path]
        joint = [
            h for h in repo.search(f"{_HOW} {question}", layers=["C1"]).hits if "checks" in h.path
        ]
        evidence = Evidence(hits=tuple(own), requirements={}, followed=tuple(joint))
        lead = graph.answer(plan, evidence).citations[0]
        return lead.path, lead.start_line


@pytest.mark.parametrize("question", _DETAIL)
def test_a_topic_holding_no_answering_line_gives_way_to_a_better_answer(
    tmp_path: Path, question: str
) -> None:
    # the loader says nothing of a port: the check answers by one word more than the
    # reader found first (whose own name is the only place it says "port")
    assert _lead(tmp_path, question, topic_reads_port=False) == ("app/checks.py", 2)


@pytest.mark.parametrize("question", _DETAIL)
def test_a_topic_holding_an_answering_line_needs_a_clearly_better_one(
    tmp_path: Path, question: str
) -> None:
    # the loader reads the port: one word more is not enough to leave the topic
    path, _ = _lead(tmp_path, question, topic_reads_port=True)
    assert path == "app/loader.py"


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Как при чтении архива определяется конец записей?", {"archive"}),
        ("Как хранится разреженный файл в архиве?", {"sparse", "archive"}),
        ("Как сохраняется монотонный порядок идентификаторов?", {"monotonic"}),
        ("Что происходит при распаковке в каталог?", {"unpack"}),
        ("Как создаётся класс со слотами?", {"slot"}),
        ("Как находятся дыры в файле на диске?", {"hole"}),
        ("Как работают повторения вроде * или +?", {"repetition", "repeat"}),
        ("Как проверяется заголовок очередного кадра?", {"frame"}),
        ("Когда повторение считается успешным?", {"successful"}),
        # «удалённый» is removed as often as remote
        ("Как переиспользуются ключи удалённых элементов?", {"removed"}),
        # a body sent in blocks is sent in chunks
        ("Что придёт после данных блока?", {"chunk"}),
        ("Как проверяется подпись на эллиптических кривых?", {"elliptic", "curve"}),
    ],
)
def test_general_russian_words_reach_the_code_words(question: str, words: set[str]) -> None:
    query = RuEnTermExpander().paraphrase(Query(query_str=question))
    assert words <= query.keywords, sorted(query.keywords)


PARSE_URL = """\
function parse (req) {
  let url = req.url;
  if (url === void 0) return url;
  let parsed = req.parsedUrl;
  if (parsed && parsed.raw === url) return parsed;
  parsed = { href: url, pathname: url, query: null };
  let idx = url.indexOf('?', 1);
  if (idx !== -1) parsed.query = url.substring(idx + 1);
  return (req.parsedUrl = parsed);
}"""

SEND = """\
function send (res, code = 200, data = '', headers = {}) {
  let type = headers['content-type'];
  if (data instanceof Buffer) {
    type = type || 'application/octet-stream';
  } else if (typeof data === 'object') {
    data = JSON.stringify(data);
    type = type || 'application/json';
  } else {
    data = data || STATUS_CODES[code];
  }
  res.writeHead(code, { 'content-type': type || 'text/plain' });
  res.end(data);
}"""


@pytest.mark.parametrize(
    ("question", "text", "terms", "line"),
    [
        (
            "А что он вернёт, если у запроса вообще нет url?",
            PARSE_URL,
            ("url", "return", "request", "req", "query"),
            3,
        ),
        (
            "And what does it return when the request has no url?",
            PARSE_URL,
            ("url", "return", "request", "req", "query"),
            3,
        ),
        (
            "And if I call it without passing any data, what ends up in the response body?",
            SEND,
            ("data", "response", "body"),
            9,
        ),
        ("А если данные не передавать, что уйдёт в тело ответа?", SEND, ("data", "body"), 9),
    ],
)
def test_a_missing_value_is_read_as_javascript_tests_and_defaults_it(
    question: str, text: str, terms: tuple[str, ...], line: int
) -> None:
    facets = read_facets(question)
    assert "missing" in facets.details, facets.details
    row = method_row("lib.handler", "index.js", "javascript", text)
    found = answering_lines(row, replace(facets, terms=terms))
    # the line itself, or the branch holding it alone (`} else {` and its one line)
    assert found is not None and found.start_line <= line == found.end_line, found
