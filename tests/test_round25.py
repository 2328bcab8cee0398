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

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, how_order, method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import setup_only
from ragstrata.answer.graphs.follow_up import follow_up_order
from ragstrata.core.evidence import Evidence, Hit
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


@pytest.mark.parametrize(
    "question",
    [
        "What does it do when exactly one byte of input remains?",
        "А как обрабатываются значения с нулевым полем экспоненты — что тогда делается с"
        " мантиссой?",
    ],
)
def test_what_it_does_when_something_holds_asks_a_condition(question: str) -> None:
    assert "condition" in read_facets(question).details


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
        ("Что делается с мантиссой денормализованного числа?", "mantissa"),
        ("Что делается с мантиссой денормализованного числа?", "subnormal"),
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


def test_a_javascript_function_storing_its_arguments_on_this_is_a_constructor() -> None:
    constructor = code_hit(
        "index.Long",
        "index.js",
        "function Long(low, high, unsigned) {\n"
        "  /** The low 32 bits as a signed value. */\n"
        "  this.low = low | 0;\n"
        "  this.high = high | 0;\n"
        "  this.unsigned = !!unsigned;\n"
        "}\n",
    )
    worker = code_hit(
        "index.add",
        "index.js",
        "function add(a, b) {\n  this.low = a.low + b.low;\n  return carry(this);\n}\n",
    )
    assert setup_only(constructor)
    assert not setup_only(worker)


def test_a_parameter_stored_under_its_own_name_answers_no_detail() -> None:
    row = method_row(
        "matching.Optional.__init__",
        "glom/matching.py",
        "python",
        "def __init__(self, key, default=MISSING):\n"
        "    self.key = key\n"
        "    self.default = default\n",
    )
    question = "And if the optional key is missing, which default value ends up in the result?"
    assert answering_lines(row, facets_of(plan(question))) is None


INIT = (
    "def __init__(self, key, default=None):\n"
    "    if isinstance(key, Optional):\n"
    "        raise TypeError('double wrapping of an optional key')\n"
    "    if default is not None and not callable(default):\n"
    "        raise ValueError('the default of an optional key must be callable')\n"
    "    self.key, self.default = key, default\n"
)
MATCH = (
    "def match_dict(pattern, target):\n"
    "    result = {}\n"
    "    for key, sub in pattern.items():\n"
    "        if key.key in target:\n"
    "            result[key.key] = sub(target[key.key])\n"
    "        elif key.default is not None:\n"
    "            result[key.key] = key.default()\n"
    "    return result\n"
)


def test_a_constructor_checking_its_arguments_does_not_answer_a_follow_up() -> None:
    """The previous answer led with a function whose lines say little of the follow-up; the
    constructor retrieval found checks the arguments the follow-up names, but what the code
    does with them is elsewhere."""
    topic = code_hit("glom.matching.match_dict", "glom/matching.py", MATCH)
    init = code_hit("glom.matching.Optional.__init__", "glom/optional.py", INIT, kind="method")
    rows = {h.symbol: method_row(h.symbol or "", h.path, "python", h.text) for h in (topic, init)}
    question = "And if the default of an optional key is not callable, what happens?"
    found = follow_up_order(
        [topic],
        [init],
        Evidence(hits=(init,), requirements={}),
        facets_of(plan(question)),
        lambda h: rows.get(h.symbol or ""),
        3,
    )
    assert found[0] is topic


ENCODE = (
    "function encode(input) {\n"
    "  // a string of Unicode code points to a Punycode string\n"
    "  const output = [];\n"
    "  for (const code of input) output.push(basic(code));\n"
    "  return output.join('');\n"
    "}\n"
)
DECODE = (
    "function decode(input) {\n"
    "  // a Punycode string back to Unicode code points\n"
    "  const output = [];\n"
    "  for (const code of input) output.push(digit(code));\n"
    "  return String.fromCodePoint(...output);\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("How is a Punycode string decoded back into Unicode?", 1),
        ("Как строка в формате Punycode декодируется обратно в Unicode?", 1),
        # a question asking both operations keeps retrieval's order
        ("How are strings encoded and decoded?", 0),
    ],
)
def test_the_function_named_by_the_operation_asked_leads_over_its_opposite(
    question: str, lead: int
) -> None:
    encoder = code_hit("punycode.encode", "punycode.js", ENCODE)
    decoder = replace(
        code_hit("punycode.decode", "punycode.js", DECODE), start_line=10, end_line=15
    )
    found = [encoder, decoder]
    assert how_order(question, found)[0] is found[lead]


FORMAT_LEVEL = (
    "func formatLevel(level Level) string {\n"
    "\tswitch level {\n"
    '\tcase DebugLevel:\n\t\treturn "debug"\n'
    '\tcase InfoLevel:\n\t\treturn "info"\n'
    "\t}\n"
    '\treturn "unknown level"\n'
    "}\n"
)
PARSE_LEVEL = (
    "func ParseLevel(name string) (Level, error) {\n"
    "\tswitch strings.ToLower(name) {\n"
    '\tcase "debug":\n\t\treturn DebugLevel, nil\n'
    '\tcase "info":\n\t\treturn InfoLevel, nil\n'
    "\t}\n"
    '\treturn 0, fmt.Errorf("not a valid level: %q", name)\n'
    "}\n"
)


def _levels(first: str) -> list[Hit]:
    """The formatter and the parser of log levels, ``first`` ("format" or "parse") ranked
    first by retrieval."""
    hits = {
        "format": code_hit("log.formatLevel", "level.go", FORMAT_LEVEL),
        "parse": code_hit("log.ParseLevel", "level.go", PARSE_LEVEL),
    }
    second = "parse" if first == "format" else "format"
    return [hits[first], replace(hits[second], start_line=20, end_line=28)]


@pytest.mark.parametrize(
    ("question", "first", "lead"),
    [
        # text into values: the parser, not the formatter
        ("How does the logger turn the string with a level's name into a level?", "format", 1),
        ("Как логгер превращает строку с названием уровня в уровень?", "format", 1),
        # values into text: the formatter, not the parser
        ("How is a level turned into text for the log line?", "parse", 1),
        ("Как уровень превращается в текст для строки лога?", "parse", 1),
        # no single way ("a serialized level", «кодировка» is a charset): the order stays
        ("What happens when loading a serialized level from a stream fails partway?", "parse", 0),
        ("Как логгер понимает, в какой кодировке пришло название уровня?", "parse", 0),
    ],
)
def test_a_conversion_is_answered_by_the_function_named_for_its_way(
    question: str, first: str, lead: int
) -> None:
    found = _levels(first)
    assert how_order(question, found)[0] is found[lead]


@pytest.mark.parametrize(
    "question",
    [
        "How does it turn escape sequences in a string (like \\n or \\uXXXX) into characters?",
        "Как строка с экранированием вроде \\uXXXX превращается в символы?",
    ],
)
def test_an_escape_sequence_in_a_question_is_no_name_to_look_up(question: str) -> None:
    symbols = [a.value for a in plan(question).query_plan.anchors if a.type.value == "SYMBOL"]
    assert symbols == []


PARSE = (
    "function parse(argv, opts) {\n"
    "  const out = { _: [] };\n"
    "  for (const arg of argv) {\n"
    "    if (arg.startsWith('--')) out[arg.slice(2)] = true;\n"
    "    else out._.push(arg);\n"
    "  }\n"
    "  return out;\n"
    "}\n"
)


def test_a_build_copy_beside_its_source_follows_the_source() -> None:
    question = "How does it split the command line into flags and positional arguments?"
    built = code_hit("deno.mod.parse", "deno/mod.js", PARSE)
    source = code_hit("src.index.parse", "src/index.js", PARSE)
    assert how_order(question, [built, source])[0] is source
