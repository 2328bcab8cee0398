"""Round twenty-eight (issue 23): a how-question naming an operating system ("on Windows",
«на Linux», "on illumos") is answered from the code written for it (a file named for the
platform, or a Go build constraint); a command using a library from its own module
(`cmd/tool/main.go`) is no part of the library's work; a function the question's verb names
wholly (`truncate` for «укорачивает») keeps the lead from one its nouns name
(`lengthFilter`); a name given as an example of data ("a string like "1.5 KiB"") is no topic
of the follow-up; a word for the data the code works on ("after a number") names no file
(`number.go`); "generating XML" asks the writer, not the parser; «увеличивает» reaches `incr`,
«двусторонняя очередь» a `deque`, «бледный» `faint`.

Двадцать восьмой раунд: вопрос «как это работает» с названием операционной системы («на
Windows», «на Linux») получает код, написанный для неё (файл с её именем или ограничение сборки
Go); программа из `cmd/`, которая пользуется библиотекой, не отвечает на вопрос о работе
библиотеки; функция, которую целиком называет глагол вопроса (`truncate` для «укорачивает»),
не уступает первое место имени из его существительных (`lengthFilter`); имя из примера данных
(«строка вида "1.5 KiB"») не становится темой уточняющего вопроса; слово о данных («после
числа») не называет файл (`number.go`); «генерирует XML» спрашивает о записи, а не о разборе."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, how_order, indexed, search_terms
from ragstrata.core.platforms import file_platforms
from ragstrata.query.facets import read_facets


def _backend(build: str, tag: str) -> str:
    return f"""
        //go:build {build}

        package watch

        // addWatch starts watching path: a directory is watched as a whole, a file through
        // its parent directory ({tag}).
        func (w *Watcher) addWatch(path string, flags uint32) error {{
            dir, err := w.parentDirectory(path)
            if err != nil {{
                return err
            }}
            for _, seen := range w.watches {{
                if seen == dir {{
                    return nil
                }}
            }}
            w.watches = append(w.watches, dir)
            return w.register(dir, flags)
        }}
        """


WATCH = {
    "go.mod": "module example.com/watch\n\ngo 1.21\n",
    "watch.go": """
        package watch

        // Watcher reports changes to the paths it watches.
        type Watcher struct {
            watches []string
        }

        // Add starts watching a path.
        func (w *Watcher) Add(path string) error {
            return w.addWatch(path, 0)
        }
        """,
    "backend_windows.go": _backend("windows", "Windows"),
    "backend_inotify.go": _backend("linux", "Linux"),
    "backend_kqueue.go": _backend("freebsd || openbsd || darwin", "kqueue"),
    "backend_fen.go": _backend("solaris", "event port"),
}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("On Windows, how does the watcher add a path and avoid watching a directory twice?",
         "backend_windows.go"),
        ("Как на Linux наблюдатель добавляет путь и не следит за одной папкой дважды?",
         "backend_inotify.go"),
        ("On illumos, how is a path added to the watches, and what if its directory is there?",
         "backend_fen.go"),
        ("Как на macOS добавляется путь под наблюдение, если его папка уже наблюдается?",
         "backend_kqueue.go"),
    ],
)  # fmt: skip
def test_a_how_question_naming_a_platform_is_answered_from_its_code(
    tmp_path: Path, question: str, path: str
) -> None:
    with indexed(tmp_path / "watch", WATCH) as repo:
        answer = repo.ask(question).answer
    assert answer.citations, answer.text
    assert answer.citations[0].path == path, answer.text


@pytest.mark.parametrize(
    ("question", "platforms"),
    [
        ("How does it lock a file on Windows?", {"windows"}),
        ("Как это работает на Linux и macOS?", {"linux", "macos"}),
        ("On Unix-like systems, what happens?", {"linux", "macos", "bsd", "solaris", "android",
                                                 "ios"}),
        ("How does the window manager draw a window?", set()),
        ("What does Mac OS X do here?", {"macos"}),
    ],
)  # fmt: skip
def test_the_platforms_a_question_names(question: str, platforms: set[str]) -> None:
    assert read_facets(question).platforms == platforms


@pytest.mark.parametrize(
    ("path", "platforms"),
    [
        ("src/unix/linux.rs", {"linux"}),
        ("src/win.rs", {"windows"}),
        ("colorama/ansitowin32.py", {"windows"}),
        ("lib/window.js", set()),
        ("src/index.js", set()),
        ("backend_kqueue.go", {"bsd", "macos"}),
    ],
)
def test_the_platforms_a_file_is_written_for(path: str, platforms: set[str]) -> None:
    assert file_platforms(path) == platforms


LIBRARY = {
    "go.mod": "module example.com/notify\n\ngo 1.21\n",
    "notify.go": """
        package notify

        // readEvents reads the kernel's change events and reports each one on the events
        // channel, dropping events for paths nobody watches.
        func (w *Watcher) readEvents() {
            for {
                raw, err := w.next()
                if err != nil {
                    w.errors <- err
                    return
                }
                for _, ev := range decode(raw) {
                    if !w.watching(ev.Name) {
                        continue
                    }
                    w.events <- ev
                }
            }
        }
        """,
    "cmd/notify/watch.go": """
        package main

        import "example.com/notify"

        // watch prints every change event of the paths given.
        func watch(paths ...string) {
            w, err := notify.NewWatcher()
            if err != nil {
                exit("creating a watcher: %s", err)
            }
            for _, p := range paths {
                w.Add(p)
            }
            for ev := range w.Events {
                printTime("event: %s", ev)
            }
        }
        """,
}


def test_a_command_using_the_library_is_no_part_of_its_work(tmp_path: Path) -> None:
    with indexed(tmp_path / "notify", LIBRARY) as repo:
        answer = repo.ask("How does it watch paths and report the change events?").answer
    assert answer.citations[0].path == "notify.go", answer.text


TRUNCATE = (
    "function truncate(input, length, killwords) {\n"
    "  if (input.length <= length) {\n"
    "    return input\n"
    "  }\n"
    "  let idx = input.lastIndexOf(' ', length)\n"
    "  if (idx === -1 || killwords) {\n"
    "    idx = length\n"
    "  }\n"
    "  return input.substring(0, idx) + '...'\n"
    "}\n"
)
LENGTH_FILTER = (
    "function lengthFilter(val) {\n"
    "  var value = normalize(val, '')\n"
    "  if (value !== undefined) {\n"
    "    if (value instanceof Map || value instanceof Set) {\n"
    "      return value.size\n"
    "    }\n"
    "    if (isObject(value) && !(value instanceof SafeString)) {\n"
    "      return keys(value).length\n"
    "    }\n"
    "    return value.length\n"
    "  }\n"
    "  return 0\n"
    "}\n"
)


URLIZE = (
    "function urlize(str, length, nofollow) {\n"
    "  // split the text into words, break each long word and wrap links in a tag\n"
    "  var words = str.split(/(\\s+)/).filter(word => word && word.length)\n"
    "  return words.map(word => {\n"
    "    var short = word.substr(0, length)\n"
    "    return isLink(word) ? '<a href=\"' + word + '\">' + short + '</a>' : word\n"
    "  }).join('')\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("symbol", "text"),
    [
        # the nouns («длины», «фильтром») name `lengthFilter`
        ("filters.lengthFilter", LENGTH_FILTER),
        # a longer body says more of the question's words ("text", "words", "break", "length")
        ("filters.urlize", URLIZE),
    ],
)
def test_a_function_the_question_s_verb_names_wholly_keeps_the_lead(symbol: str, text: str) -> None:
    # «укорачивает» names `truncate` wholly: neither rival takes the lead from it
    truncate = code_hit("filters.truncate", "src/filters.js", TRUNCATE)
    rival = code_hit(symbol, "src/filters.js", text)
    found = [truncate, replace(rival, start_line=40, end_line=40 + rival.end_line)]
    question = "Как фильтр укорачивает длинный текст до заданной длины, не разрывая слова?"
    assert how_order(question, found)[0].symbol == "filters.truncate"


ORDINAL = (
    "func Ordinal(x int) string {\n"
    '\tsuffix := "th"\n'
    "\tswitch x % 10 {\n"
    "\tcase 1:\n"
    "\t\tif x%100 != 11 {\n"
    '\t\t\tsuffix = "st"\n'
    "\t\t}\n"
    "\tcase 2:\n"
    "\t\tif x%100 != 12 {\n"
    '\t\t\tsuffix = "nd"\n'
    "\t\t}\n"
    "\t}\n"
    "\treturn strconv.Itoa(x) + suffix\n"
    "}\n"
)
FORMAT_FLOAT = (
    "func FormatFloat(format string, n float64) string {\n"
    '\tprecision, sign := 2, ""\n'
    "\tif n < 0 {\n"
    '\t\tsign, n = "-", -n\n'
    "\t}\n"
    "\tintStr := strconv.FormatInt(int64(n), 10)\n"
    "\treturn sign + intStr + fractional(n, precision)\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "How is the English suffix (st, nd or th) chosen after a number like 21 or 112?",
        "Как выбирается английский суффикс (st, nd или th) после числа вроде 21 или 112?",
    ],
)
def test_a_word_for_the_data_the_code_works_on_names_no_file(question: str) -> None:
    # "a number" is what the code reads, not `number.go`
    ordinal = code_hit("humanize.Ordinal", "ordinals.go", ORDINAL)
    fmt = code_hit("humanize.FormatFloat", "number.go", FORMAT_FLOAT)
    assert how_order(question, [ordinal, fmt])[0].symbol == "humanize.Ordinal"


PARSE_XML = (
    "def parse(xml_input, attr_prefix='@'):\n"
    "    handler = _DictSAXHandler(attr_prefix=attr_prefix)\n"
    "    parser = expat.ParserCreate()\n"
    "    parser.StartElementHandler = handler.startElement\n"
    "    parser.Parse(xml_input, True)\n"
    "    return handler.item\n"
)
UNPARSE_XML = (
    "def unparse(input_dict, attr_prefix='@'):\n"
    "    output = StringIO()\n"
    "    for key, value in input_dict.items():\n"
    "        _emit(key, value, output, attr_prefix)\n"
    "    return output.getvalue()\n"
)


def test_generating_a_text_format_asks_the_writer_not_the_parser() -> None:
    found = [
        code_hit("xmltodict.parse", "xmltodict.py", PARSE_XML),
        replace(
            code_hit("xmltodict.unparse", "xmltodict.py", UNPARSE_XML), start_line=20, end_line=24
        ),
    ]
    question = "Which keys of the dict become attributes when generating XML from it?"
    assert how_order(question, found)[0].symbol == "xmltodict.unparse"


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Как кэш атомарно увеличивает значение счётчика?", "incr"),
        ("Как уменьшить значение счётчика?", "decrement"),
        ("Как кэш освобождает место при записи?", "cull"),
        ("Что происходит при добавлении в двустороннюю очередь?", "deque"),
        ("Как обрабатывается присваивание значения полю?", "assignment"),
        ("Как выбирается бледный цвет текста?", "faint"),
        ("Как решается, нужен ли досрочный пересчёт результата?", "recompute"),
        ("Как сопоставляются позиционные аргументы?", "positional"),
        ("Что будет, если неделя начинается с воскресенья?", "sunday"),
    ],
)
def test_plain_russian_words_reach_their_code_terms(question: str, term: str) -> None:
    assert term in search_terms(question)


SIZES = {
    "sizes.py": '''
        KIB = 1024
        """Bytes in one kibibyte."""

        UNITS = {"b": 1, "kib": KIB, "mib": KIB * KIB}


        def parse_size(text):
            """Read a size written as a number and a unit into a count of bytes."""
            number, _, unit = text.strip().partition(" ")
            value = float(number)
            factor = UNITS.get(unit.lower())
            if factor is None:
                raise ValueError(f"unknown unit: {unit}")
            return int(value * factor)
        ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        ('How does it read a string like "1.5 KiB" into a count of bytes?',
         "And what happens if the unit is not recognized?"),
        ('Как читается строка вида "1.5 KiB" в количество байт?',
         "А что будет, если единица измерения неизвестна?"),
    ],
)  # fmt: skip
def test_a_name_given_as_an_example_of_data_is_no_topic_of_the_follow_up(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "sizes", SIZES, first, question)
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("sizes.py", 12), answer.text
