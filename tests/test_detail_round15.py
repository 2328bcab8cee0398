"""Follow-ups from the fifteenth round's blind batch, one class each.

"What if the value is negative?", «а если вес отрицательный?» are answered by the test the
code makes on the value's sign, and code writes that test as often from the other side — the
value is accepted when it is not negative (`value >= 0`, `0 <= timeout`, `isPosInt(weight)`) —
as it writes `n < 0`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from answer_fixture import method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.query.facets import read_facets

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
