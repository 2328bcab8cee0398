"""Follow-ups and how-questions from the thirteenth round's blind batches, one class each.

"Before the search on disk begins, for example …" asks for no usage section: "for" keeps to
the word before it. «Где и как …» asks how, and «… и когда вызывается обработчик» in a
how-question asks when the code calls it, not who does. "What if the tool cannot be found?"
asks for the branch of a missing value, which JavaScript writes `if (!resolved) {`. A
backslash named in words matches the escaped literal `'\\'`. And a follow-up may be about code
the previous answer did not lead with: a function further down the follow-up's own retrieval
answers when its lines answer clearly better than the topic's.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

from answer_fixture import code_hit, method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.answer.graphs.follow_up import clearly_better
from ragstrata.answer.graphs.ranking import _nested_worker
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.core.evidence import Hit
from ragstrata.core.rows import DefinitionRow
from ragstrata.query.facets import concepts_of, read_facets


@pytest.mark.parametrize(
    ("question", "ask"),
    [
        (
            "How is a pattern split into a starting directory and a list of sub-patterns "
            "before the search on disk begins, for example for an absolute path?",
            "how",
        ),
        (
            "Как шаблон делится на начальный каталог и список подшаблонов перед поиском на "
            "диске, например для абсолютного пути?",
            "how",
        ),
        ("How do I search for files by extension?", None),
    ],
)
def test_for_keeps_to_the_word_before_it(question: str, ask: str | None) -> None:
    facets = read_facets(question)
    if ask is None:  # a real "search for": the usage section answers how to do it
        assert "usage" in facets.topics, facets.topics
        assert not facets.how
    else:
        assert "usage" not in facets.topics, facets.topics
        assert ask in facets.asks, facets.asks


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (
            "Как minimist определяет, что опция неизвестна, и когда вызывается пользовательский "
            "обработчик неизвестных опций?",
            {"how"},
        ),
        (
            "How does minimist decide that an option is unknown, and when is the user's handler "
            "for unknown options called?",
            {"how"},
        ),
        ("Где и как csrf хранит секретный токен между запросами?", {"how"}),
        ("Where and how does csrf keep the secret token between requests?", {"how"}),
        ("Где вызывается parse?", {"callers"}),
        ("Who calls parse?", {"callers"}),
        # which one is used is asked, not where it is
        ("Какой предел используется по умолчанию, если его не задали?", {"configure"}),
        ("Which limit is used by default if none is given?", {"configure"}),
        ("Какая функция используется для сравнения строк?", set()),
        ("Which function is used to compare strings?", set()),
        ("Где используется exceedsLimit?", {"callers"}),
        ("Where is exceedsLimit used?", {"callers"}),
        # round 14: a call inside the clause a how-question asks about asks for no callers
        (
            "Как библиотека определяет, из какого модуля приложения был сделан вызов "
            "логирования, пропуская свои внутренние кадры стека?",
            {"how"},
        ),
        (
            "How does the library work out, from which module of the application the logging "
            "call was made, skipping its own frames?",
            {"how"},
        ),
        ("Как узнать, кто вызывает parse?", {"callers"}),
        # ... nor does the noun «вызов» naming no function in a how-question or a condition
        ("Как в funcy устроен повторный вызов функции, если она падает с исключением?", {"how"}),
        ("А что будет, если вызов исходной функции всё равно падает с TypeError?", set()),
        ("Покажи вызовы parse", {"callers"}),
        ("Как найти вызовы parse?", {"callers"}),
        ("Как повлияет удаление вызовов функции `merge_cookies` на вход?", {"callers"}),
        # the verb in the plural: the functions asked about call `parse`
        ("Какие функции вызывают parse?", {"callers"}),
        ("Какие методы вызывают parse, и где?", {"callers"}),
        ("Какие функции вызывает parse?", {"callees"}),
        ("Which functions does parse call?", {"callees"}),
    ],
)
def test_what_a_question_asks_by_its_shape(question: str, asks: set[str]) -> None:
    facets = read_facets(question)
    assert facets.asks == asks, facets.asks


@pytest.mark.parametrize(
    "question",
    [
        "and what if the dot in the section name is escaped with a backslash?",
        "а если точка в имени секции экранирована обратным слешем?",
    ],
)
def test_a_backslash_named_in_words_matches_the_escaped_literal(question: str) -> None:
    text = """\
function splitSections (str, separator) {
  let lastMatchIndex = 0
  const sections = []
  do {
    nextIndex = str.indexOf(separator, lastMatchIndex)
    if (nextIndex !== -1) {
      lastMatchIndex = nextIndex + separator.length
      if (nextIndex > 0 && str[nextIndex - 1] === '\\\\') {
        continue
      }
      sections.push(str.slice(lastSeparatorIndex, nextIndex))
    }
  } while (nextIndex !== -1)
  return sections
}"""
    facets = replace(read_facets(question), terms=("dot", "backslash", "escape"))
    span = answering_lines(
        method_row("ini.splitSections", "lib/ini.js", "javascript", text), facets
    )
    assert span is not None and span.start_line == 8, span


SECURE = """\
function runSecure (options, command) {
  const resolved = resolveTool()
  if (!resolved) {
    console.error('install the decryption tool first')
    process.exitCode = 1
    return
  }

  const child = spawn(resolved.command, resolved.args.concat(command))
  child.on('exit', function (code) {
    if (code !== 0) console.error('the decryption tool failed: ' + code)
    process.exitCode = code
  })
}"""


@pytest.mark.parametrize(
    "question",
    [
        "What happens if that decryption tool cannot be found at all?",
        "А что будет, если инструмент расшифровки не установлен?",
    ],
)
def test_a_negated_value_is_the_branch_of_a_missing_one(question: str) -> None:
    facets = read_facets(question)
    assert "missing" in facets.details, facets.details
    facets = replace(facets, terms=("decryption", "tool"))
    span = answering_lines(method_row("cli.runSecure", "cli.js", "javascript", SECURE), facets)
    assert span is not None and (span.start_line, span.end_line) == (3, 7), span


def test_a_negated_predicate_is_no_missing_value() -> None:
    text = """\
function onerror (err) {
  const isNativeError = err instanceof Error
  if (!isNativeError) err = new Error(format('non-error thrown: %j', err))
  let statusCode = err.status || err.statusCode
  // default to 500
  if (typeof statusCode !== 'number' || !statuses.message[statusCode]) statusCode = 500
  this.status = statusCode
}"""
    for question in (
        "and which status code is used if the error has none?",
        "а какой код статуса будет, если у ошибки его нет?",
    ):
        facets = replace(read_facets(question), terms=("status", "code", "error"))
        span = answering_lines(
            method_row("context.onerror", "lib/context.js", "javascript", text), facets
        )
        # `!isNativeError` tests a flag, not whether a value is there: the default answers
        assert span is not None and span.start_line == 6, (question, span)


STARTER = """\
function startTool (command) {
  const child = spawn('dotenvx', ['run', '--'].concat(command), { stdio: 'inherit' })
  child.on('exit', function (code) {
    process.exitCode = code
  })
  return child
}"""

LOADER = """\
function loadAll (paths, encoding) {
  const parsed = {}
  const failures = []
  for (const path of paths) {
    let content
    try {
      content = readFileSync(path, { encoding })
    } catch (err) {
      failures.push({ path, error: err.message })
      continue
    }
    Object.assign(parsed, parseLines(content))
  }
  return { parsed, failures }
}"""

PARSER = """\
function parseLines (content) {
  const out = {}
  for (const line of content.split('\\n')) {
    const [key, value] = line.split('=')
    if (key) out[key.trim()] = (value || '').trim()
  }
  return out
}"""


def _hits() -> tuple[list[Hit], dict[str, DefinitionRow]]:
    texts = {"cli.startTool": STARTER, "cli.parseLines": PARSER, "cli.loadAll": LOADER}
    rows = {s: method_row(s, f"{s}.js", "javascript", t) for s, t in texts.items()}
    hits = [code_hit(s, f"{s}.js", t) for s, t in texts.items()]
    return hits, rows


@pytest.mark.parametrize(
    "question",
    [
        "And what happens if reading one of the files fails?",
        "А что будет, если один из файлов не удалось прочитать?",
    ],
)
def test_a_function_retrieval_found_answers_when_its_lines_answer_clearly_better(
    question: str,
) -> None:
    hits, rows = _hits()
    facets = replace(read_facets(question), terms=("file", "read", "fail", "error"))
    order = clearly_better([hits[0]], hits[1:], facets, lambda h: rows[h.symbol or ""])
    assert order[0].symbol == "cli.loadAll", [h.symbol for h in order]


@pytest.mark.parametrize(
    "question",
    [
        "And what exit code is set when the child process exits?",
        "А какой код выхода ставится, когда дочерний процесс завершается?",
    ],
)
def test_the_topic_stays_when_its_own_lines_answer(question: str) -> None:
    hits, rows = _hits()
    facets = replace(read_facets(question), terms=("exit", "code", "child", "process"))
    order = clearly_better([hits[0]], hits[1:], facets, lambda h: rows[h.symbol or ""])
    assert order[0].symbol == "cli.startTool", [h.symbol for h in order]


ARGS_FILES = {
    "package.json": '{"name": "argparse-lite", "version": "1.0.0"}\n',
    "index.js": """\
        'use strict';

        module.exports = function (args, opts) {
          if (!opts) { opts = {}; }
          var flags = { bools: {}, strings: {}, unknownFn: null };
          var argv = { _: [] };

          function setKey(obj, keys, value) {
            var o = obj;
            for (var i = 0; i < keys.length - 1; i++) {
              var key = keys[i];
              if (o[key] === undefined) { o[key] = {}; }
              o = o[key];
            }
            var lastKey = keys[keys.length - 1];
            if (o[lastKey] === undefined || flags.bools[lastKey]) {
              o[lastKey] = value;
            } else if (Array.isArray(o[lastKey])) {
              o[lastKey].push(value);
            } else {
              o[lastKey] = [o[lastKey], value];
            }
          }

          function setArg(key, val) {
            var value = !flags.strings[key] && Number(val) ? Number(val) : val;
            setKey(argv, key.split('.'), value);
          }

          for (var i = 0; i < args.length; i++) {
            var arg = args[i];
            if (/^--.+=/.test(arg)) {
              var m = arg.match(/^--([^=]+)=([\\s\\S]*)$/);
              setArg(m[1], m[2]);
            } else if (/^--.+/.test(arg)) {
              setArg(arg.slice(2), args[i + 1]);
              i++;
            } else {
              argv._.push(arg);
            }
          }
          return argv;
        };
        """,
}


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        (
            "How does it handle an option passed several times: does the last value win or are "
            "the values collected into a list?",
            ("option", "several", "last", "value", "win", "collect", "list"),
        ),
        (
            "Как обрабатывается опция, переданная несколько раз: побеждает последнее значение "
            "или значения собираются в список?",
            ("option", "several", "last", "value", "win", "collect", "list"),
        ),
    ],
)
def test_a_function_nested_in_the_lead_leads_when_the_words_are_its(
    question: str, terms: tuple[str, ...]
) -> None:
    lines = textwrap.dedent(ARGS_FILES["index.js"]).splitlines()

    def hit(symbol: str, start: int, end: int) -> Hit:
        text = "\n".join(lines[start - 1 : end])
        return replace(code_hit(symbol, "index.js", text), start_line=start, end_line=end)

    container = hit("index.index", 3, 43)
    set_arg = hit("index.index.setArg", 25, 28)
    set_key = hit("index.index.setKey", 8, 23)
    groups = stem_groups(concepts_of(question, terms))
    order = _nested_worker([container, set_arg, set_key], groups)
    assert order[0] is set_key, [h.symbol for h in order]
    # the container's own lines saying the words keep it first
    assert _nested_worker([container, set_arg], groups)[0] is container


@pytest.mark.parametrize(
    ("wrapper", "callee", "rank"),
    [
        ("hamming", "generic_hamming", 0),
        ("Parse", "doParse", 0),
        ("remove_entry", "swap_remove_entry", 1),  # a variant of it, no implementation
    ],
)
def test_a_wrapper_of_its_implementation_is_no_accessor(
    wrapper: str, callee: str, rank: int
) -> None:
    text = f"pub fn {wrapper}(a: &str) -> usize {{\n    {callee}(a.chars())\n}}"
    assert doing_rank(code_hit(f"crate::{wrapper}", "src/lib.rs", text)) == (False, rank)
