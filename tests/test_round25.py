"""Round twenty-five (issue 23): a question that opens with a sentence of context and then asks
how the code works goes to the code; so does one asking how to do something with the code when
no cue names another intent; a follow-up stays on the very definition the previous answer led
with; the project's name does not hide a word the question also writes by itself; plain words
for wrapping, hunks, ranges, terminals and arithmetic reach the words code writes.

Двадцать пятый раунд: вопрос, который начинается с предложения-пояснения и только потом
спрашивает, как работает код, уходит в код; так же и вопрос «как сделать что-то кодом», если
ни одно слово не указывает на другое намерение; уточняющий вопрос остаётся при том самом
определении, с которого начинался прошлый ответ; имя проекта не прячет слово, которое вопрос
пишет и отдельно; слова «перенос», «ханк», «отрезок», «псевдотерминал» находят слова кода."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, how_order, plan
from ragstrata.core.paths import peripheral_path
from ragstrata.query.facets import facets_of, read_facets
from ragstrata.query.models import Intent


@pytest.mark.parametrize(
    "question",
    [
        "На некоторых системах (Solaris, AIX) стандартный способ запустить процесс с"
        " псевдотерминалом не годится. Как библиотека в таком случае сама создаёт дочерний"
        " процесс?",
        "On some systems the standard way to launch a process with a terminal does not work."
        " How does the library create the child process itself then?",
    ],
)
def test_a_sentence_of_context_before_the_how_question_leaves_it_a_code_question(
    question: str,
) -> None:
    assert plan(question).intent is Intent.CODE_QA


@pytest.mark.parametrize(
    "question",
    [
        "Как взять из корзины только те токены, которые есть прямо сейчас, не блокируясь?",
        "Как выгрузить содержимое кэша в массив и потом загрузить его обратно?",
    ],
)
def test_how_to_do_something_with_the_code_is_answered_from_the_code(question: str) -> None:
    assert plan(question).intent is Intent.CODE_QA


@pytest.mark.parametrize(
    "question",
    ["How do I stop pytest from capturing output?", "Как ограничить глубину обхода каталогов?"],
)
def test_how_to_configure_something_stays_a_project_question(question: str) -> None:
    assert plan(question).intent is Intent.PROJECT_MISC


def test_what_it_does_when_something_holds_asks_a_condition() -> None:
    facets = read_facets("What does it do when exactly one byte of input remains?")
    assert "condition" in facets.details


# a public method and the internal one it calls, named alike but for the case of one letter
BUCKET = {
    "go.mod": "module example.com/bucket\n\ngo 1.21\n",
    "bucket.go": """
        package bucket

        import "time"

        // Take takes count tokens from the bucket without blocking.
        func (tb *Bucket) Take(count int64) time.Duration {
        \ttb.mu.Lock()
        \tdefer tb.mu.Unlock()
        \td, _ := tb.take(time.Now(), count, infinityDuration)
        \treturn d
        }

        // take works out how long the caller has to wait until count tokens are there.
        func (tb *Bucket) take(now time.Time, count int64, maxWait time.Duration) (time.Duration, bool) {
        \tif count <= 0 {
        \t\treturn 0, true
        \t}
        \tavail := tb.availableTokens - count
        \tif avail >= 0 {
        \t\ttb.availableTokens = avail
        \t\treturn 0, true
        \t}
        \twaitTime := time.Duration(-avail) * tb.fillInterval
        \tif waitTime > maxWait {
        \t\treturn 0, false
        \t}
        \ttb.availableTokens = avail
        \treturn waitTime, true
        }
    """,
}


def test_a_follow_up_stays_on_the_definition_of_that_very_name(tmp_path: Path) -> None:
    first = "How does take work out how long the caller has to wait for its tokens?"
    answer = follow_up(tmp_path, BUCKET, first, "And what if the clock goes backwards?")
    lead = answer.citations[0]
    # `take` starts at line 13; `Take` (lines 5-10) is another method
    assert lead.path == "bucket.go" and lead.start_line >= 13, answer.text[:300]


def test_the_project_name_does_not_hide_a_word_the_question_writes_by_itself() -> None:
    by_rate = code_hit(
        "bucket.NewBucketWithRate",
        "rate.go",
        "func NewBucketWithRate(rate float64, capacity int64) *Bucket {\n"
        "\treturn NewBucketWithRateAndClock(rate, capacity, nil)\n}\n",
    )
    by_tokens = code_hit(
        "bucket.NewBucket",
        "bucket.go",
        "func NewBucket(fillInterval time.Duration, tokens int64) *Bucket {\n"
        "\treturn NewBucketWithClock(fillInterval, tokens, nil)\n}\n",
    )
    question = (
        "When I create a limiter from a tokens-per-second rate, how does ratelimit decide how"
        " often to add tokens?"
    )
    # "rate" is a word of the question, not only the first letters of `ratelimit`
    assert how_order(question, [by_rate, by_tokens], ["ratelimit"])[0] is by_rate


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Как текст в ячейке при переносе разбивается на строки?", "wrap"),
        ("Как список правок разбивается на ханки?", "hunk"),
        ("Как находится самый длинный совпадающий отрезок?", "range"),
        ("Что происходит с вхождениями строки вне диапазона?", "occurrence"),
        ("Как библиотека создаёт псевдотерминал для дочернего процесса?", "pty"),
        ("Сколько байтов входа тратится на одно число?", "consume"),
        ("Как устроено банковское округление?", "bankers"),
        ("How are long values broken into several lines?", "wrap"),
        ("How does it compute the remainder after dividing two numbers?", "mod"),
        ("How is division carried out digit by digit?", "div"),
        ("How is the square root of a number calculated?", "sqrt"),
    ],
)
def test_plain_words_for_wrapping_hunks_ranges_and_arithmetic_reach_their_code_terms(
    question: str, term: str
) -> None:
    assert term in facets_of(plan(question)).terms


@pytest.mark.parametrize(
    ("path", "beside"),
    [
        ("perf/lib/bigdecimal.js", True),
        ("perf/bigtime.js", True),
        ("src/perf_counter.py", False),
        ("big.js", False),
    ],
)
def test_a_perf_folder_holds_benchmarks_beside_the_project(path: str, beside: bool) -> None:
    assert peripheral_path(path) is beside
