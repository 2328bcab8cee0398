"""Follow-ups from the fifteenth round's blind batch, one class each.

"What if the value is negative?", «а если вес отрицательный?» are answered by the test the
code makes on the value's sign, and code writes that test as often from the other side — the
value is accepted when it is not negative (`value >= 0`, `0 <= timeout`, `isPosInt(weight)`) —
as it writes `n < 0`.

A detail follow-up is also read together with the question it follows: the definitions the
two find as one question hold the words of both ("the settings file" and "a line with no
equals sign": the parser, not the loader the previous answer led with), and one of them
answers when its lines answer clearly better than the topic's.
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

DELAY = """\
function parseDelay(value = DEFAULT_DELAY) {
  const options = readOptions();
  if (typeof value === "string") {
    value = Number(value);
  }
  if (value >= 0 && Number.isFinite(value)) {
    return Math.floor(value);
  }
  throw new RangeError(value + " is no valid delay");
}"""

WAIT = """\
def _wait(self, timeout, started):
    if timeout is None:
        timeout = self.timeout
        self._log("waiting for %s", self.name)
    if self._blocking is False:
        return True
    if 0 <= timeout < time.monotonic() - started:
        self._log("gave up waiting for %s", self.name)
        return True
    return False"""

WEIGHT = """\
set(key, value, weight) {
  if (this.maxWeight === undefined) {
    return this.store(key, value)
  }
  if (!isPosInt(weight)) {
    throw new TypeError('weight must be a positive integer')
  }
  this.total += weight
  return this.store(key, value)
}"""

_ROWS = {
    "delay": ("timers.parseDelay", "src/timers.js", "javascript", DELAY),
    "wait": ("lock.Lock._wait", "lock.py", "python", WAIT),
    "weight": ("cache.Cache.set", "src/cache.js", "javascript", WEIGHT),
}


@pytest.mark.parametrize(
    ("question", "row", "terms", "line"),
    [
        ("And what if the value given is negative or fractional?", "delay", ("value",), 6),
        ("А если переданное значение отрицательное или дробное?", "delay", ("value",), 6),
        ("What if the timeout is negative?", "wait", ("timeout",), 7),
        ("а если таймаут отрицательный?", "wait", ("timeout",), 7),
        ("What happens if an entry's weight is negative?", "weight", ("weight",), 5),
        ("А что будет, если вес записи отрицательный?", "weight", ("weight",), 5),
    ],
)
def test_a_sign_asked_about_is_answered_by_the_test_of_either_side(
    question: str, row: str, terms: tuple[str, ...], line: int
) -> None:
    facets = read_facets(question)
    assert "negative" in facets.details, facets.details
    found = answering_lines(method_row(*_ROWS[row]), replace(facets, terms=terms))
    assert found is not None and found.start_line == line, found


# a follow-up read with the question it follows: the settings loader the previous answer led
# with, and the parser holding the answer to "what if a line has no equals sign?"
SETTINGS_FILES = {
    "settings/loader.py": '''
        def load_settings(path):
            """Read the settings file at path and return its entries as a dict."""
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            return parse_entries(text)
        ''',
    "settings/parser.py": '''
        def parse_entries(text):
            """The name = value entries of a settings text."""
            entries = {}
            for number, line in enumerate(text.splitlines(), 1):
                if "=" not in line:
                    raise SyntaxError(f"line {number} has no equals sign")
                name, _, value = line.partition("=")
                entries[name.strip()] = value.strip()
            return entries
        ''',
}
_HOW = "How does it read the settings file into entries?"
_DETAIL = (
    ("And what if a line has no equals sign?", "en"),
    ("А что будет, если в строке нет знака равенства?", "ru"),
)


@pytest.mark.parametrize(("question", "lang"), _DETAIL)
def test_a_detail_follow_up_is_also_read_with_the_question_it_follows(
    tmp_path: Path, question: str, lang: str
) -> None:
    with indexed(tmp_path, SETTINGS_FILES) as repo:
        first = repo.ask(_HOW, session=f"s-{lang}")
        assert first.evidence.followed == ()  # nothing to follow yet
        result = repo.ask(question, session=f"s-{lang}")
        found = [h.symbol for h in result.evidence.followed]
        assert "settings.parser.parse_entries" in found, found
        # a question of its own is no follow-up
        fresh = repo.ask(question)
        assert fresh.evidence.followed == ()


@pytest.mark.parametrize(("question", "lang"), _DETAIL)
def test_the_function_found_with_the_question_followed_answers_when_its_lines_do(
    tmp_path: Path, question: str, lang: str
) -> None:
    with indexed(tmp_path, SETTINGS_FILES) as repo:
        state = next_state(repo.route(_HOW), None, "settings.loader.load_settings")
        plan = RouterPlan.model_validate(repo.route(question, state))
        graph = build_graph(plan.graph_id, reader=repo.reader)
        parser = repo.search(f"{_HOW} {question}", layers=["C1"]).hits
        # the follow-up's own retrieval without the parser: only the joint reading has it
        own = repo.search(question, state=state).hits
        evidence = Evidence(hits=tuple(h for h in own if "parser" not in h.path), requirements={})
        alone = graph.answer(plan, evidence).citations[0]
        assert alone.path != "settings/parser.py", alone
        joint = replace(evidence, followed=tuple(h for h in parser if h.layer == "C1"))
        lead = graph.answer(plan, joint).citations[0]
        assert (lead.path, lead.start_line) == ("settings/parser.py", 5), lead
