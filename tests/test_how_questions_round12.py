"""How-questions and follow-ups from the twelfth round's blind batch, one class each.

"How are requests redirected to …" asks how the code works: its "to" belongs to the verb, no
"how to" is asked. A string the question gives as an example of data ("a style like
"red.on_blue"") names no method to lead with. Code that writes Russian only in its strings (a
locale's month names) matches a Russian question by what it prints, not by what it does. "What
if the count is negative?" is answered by the comparison with zero. And the Russian words of
dates and keys (and the thirteenth round's plain words) reach the code's vocabulary.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, indexed, method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.worded import named_worker
from ragstrata.answer.graphs.words import stem_groups, words_in
from ragstrata.answer.graphs.worker import worker_first
from ragstrata.query.facets import concepts_of, read_facets
from ragstrata.query.router import default_router
from ragstrata.retrieve.echo import TRANSLATION_REASON, demote_translations


@pytest.mark.parametrize(
    ("question", "ask"),
    [
        ("How are requests redirected to one preferred domain name?", "how"),
        ("How are requests sent to the canonical host, and what happens to the path?", "how"),
        ("How to redirect requests to one domain?", "howto"),
        ("How do I redirect requests to one domain?", "howto"),
    ],
)
def test_to_after_a_verb_asks_no_how_to(question: str, ask: str) -> None:
    facets = read_facets(question)
    assert ask in facets.asks, facets.asks
    assert facets.how is (ask == "how")


STYLE_FILES = {
    "Cargo.toml": '[package]\nname = "termstyle"\nversion = "0.1.0"\n',
    "src/style.rs": """\
        pub struct Style { fg: Option<Color>, bg: Option<Color>, bold: bool }

        impl Style {
            /// Reads a style from its dotted form: each part is a colour, an `on_` background
            /// colour or an attribute.
            pub fn from_dotted_str(s: &str) -> Style {
                let mut rv = Style::new();
                for part in s.split('.') {
                    rv = match part {
                        "bold" => rv.bold(),
                        p if p.starts_with("on_") => rv.bg(Color::parse(&p[3..])),
                        p if p.starts_with('#') => rv.fg(Color::hex(&p[1..])),
                        p => rv.fg(Color::parse(p)),
                    };
                }
                rv
            }

            /// Sets a blue background colour on the style.
            pub fn on_blue(self) -> Style { self.bg(Color::Blue) }

            /// Sets a red foreground colour on the style.
            pub fn red(self) -> Style { self.fg(Color::Red) }
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        'How is a style written as a dot-separated string like "red.on_blue" turned into '
        "colors and attributes?",
        "Как стиль, записанный строкой через точки вроде «red.on_blue», превращается в цвета и "
        "атрибуты?",
    ],
)
def test_an_example_string_names_no_method_to_lead_with(tmp_path: Path, question: str) -> None:
    with indexed(tmp_path / "termstyle", STYLE_FILES) as repo:
        answer = repo.ask(question).answer
    assert answer.status != "not_found", answer.lead
    assert "from_dotted_str" in answer.lead, answer.lead
    assert "on_blue" not in answer.lead


LOCALE = 'class RussianLocale:\n    past = "{0} назад"\n    timeframes = {"hour": "час"}\n'
COMMENTED = "def humanize(delta):\n    # разница в человеческих словах\n    return str(delta)\n"
DOCUMENTED = 'def humanize(delta):\n    """Разница словами."""\n    return str(delta)\n'


def test_code_writing_russian_only_in_strings_goes_behind_the_rest() -> None:
    locale, commented, documented = (
        code_hit("RussianLocale", "locales.py", LOCALE),
        code_hit("humanize", "locales.py", COMMENTED),
        code_hit("describe", "locales.py", DOCUMENTED),
    )
    question = "Как разница во времени превращается во фразу «2 часа назад»?"
    # a quoted string: the user may be looking for the code that writes it
    assert demote_translations([locale, commented], question) == [locale, commented]
    question = "Как разница во времени превращается в понятную человеку фразу?"
    moved = demote_translations([locale, commented, documented], question)
    assert [h.symbol for h in moved] == ["humanize", "describe", "RussianLocale"]
    assert TRANSLATION_REASON in moved[-1].reasons
    # an English question reads no Russian: nothing moves
    english = "How is a time difference turned into a human phrase?"
    assert demote_translations([locale, commented], english) == [locale, commented]


HUMANIZE_FILES = {
    "pyproject.toml": '[project]\nname = "timeword"\nversion = "0.1"\n',
    "timeword/locales.py": """\
        class RussianLocale:
            past = "{0} назад"
            future = "через {0}"
            timeframes = {"now": "сейчас", "hours": "{0} часа", "days": "{0} дня"}


        class UkrainianLocale:
            past = "{0} тому"
            future = "за {0}"
            timeframes = {"now": "зараз", "hours": "{0} години", "days": "{0} дні"}
        """,
    "timeword/moment.py": """\
        def humanize(moment, other):
            \"\"\"The difference between two moments as a phrase a human reads.\"\"\"
            delta = int((moment - other).total_seconds())
            if abs(delta) < 3600:
                return "minutes"
            return "hours" if abs(delta) < 86400 else "days"
        """,
}


def test_a_russian_how_question_searches_code_before_a_locale(tmp_path: Path) -> None:
    # «назад» and «через» are words of the locales' strings: what the code prints
    question = "Как timeword превращает разницу между моментами во фразу с назад или через?"
    with indexed(tmp_path / "timeword", HUMANIZE_FILES) as repo:
        hits = [h for h in repo.search(question, layers=["C1"], top_k=5).hits]
    assert hits[0].symbol == "timeword.moment.humanize", [h.symbol for h in hits]
    assert all(TRANSLATION_REASON in h.reasons for h in hits if "Locale" in (h.symbol or ""))


UPDATE = (
    "def update(self, n=1):\n"  # 1
    '    """Adds n to the counter and redraws when enough has changed."""\n'
    "    if self.disable:\n"
    "        return\n"
    "    if n < 0:\n"  # 5
    "        self.last_print_n += n\n"
    "    self.n += n\n"
    "    if self.n - self.last_print_n >= self.miniters:\n"
    "        self.refresh()\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "А что происходит, если счётчик увеличить на отрицательное число?",
        "And what if the counter is increased by a negative number?",
    ],
)
def test_a_negative_number_is_answered_by_the_comparison_with_zero(question: str) -> None:
    facets = replace(read_facets(question), terms=("counter", "number", "increase"))
    assert "negative" in facets.details
    span = answering_lines(method_row("tqdmish.Bar.update", "tqdmish.py", "python", UPDATE), facets)
    assert span is not None and (span.start_line, span.end_line) == (5, 6), span


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Как считается разница между двумя моментами?", {"difference", "moment"}),
        ("Как определяется начало периода, например квартала?", {"period", "quarter"}),
        ("Как распознаётся нажатие клавиши со стрелкой?", {"keypress", "arrow"}),
        ("Как относительная фраза вроде «3 дня назад» становится датой?", {"relative", "ago"}),
        ("Как собирается краткая подсказка по запуску программы?", {"short", "usage"}),
        ("Что рисует полоса прогресса справа?", {"bar", "progress", "right"}),
        ("Как strsim повышает оценку похожести двух строк?", {"boost", "similarity"}),
        ("Как собирается итоговый текст ошибки?", {"final", "error"}),
        ("Что выдаётся, если ни одна альтернатива не подошла?", {"return", "alternative"}),
        ("Куда ставится курсор после очистки экрана?", {"set", "cursor"}),
        ("Как библиотека решает, где разбить строку?", {"decide", "split"}),
        ("Как парсер запоминает уже разобранные выражения?", {"cache", "expression"}),
        ("How does the parser remember expressions it already parsed?", {"cache"}),
        # «копирования» had read as transliterations ("coping", "kopation")
        ("Как узел меняется на месте, без копирования?", {"copy", "clone"}),
        ("Как обёртка возвращает частичные применения функции?", {"partial"}),
        ("Какую ёмкость выбирает буфер, когда приходится выделять новую память?", {"allocate"}),
        ("Как устроен ранний возврат для значения с противоположной стороны?", {"early", "side"}),
    ],
)
def test_plain_words_reach_the_code_s_vocabulary(question: str, expected: set[str]) -> None:
    expansions = {
        w for e in default_router().plan(question).query_plan.expansions for w in e.split()
    }
    assert expected <= expansions, sorted(expansions)


def test_a_cue_writing_a_gap_before_to_still_matches() -> None:
    # "how do i add * to my": any words between "add" and "to"
    assert "install" in read_facets("How do I add commons-lang to my Maven project?").topics


def test_a_word_asked_twice_is_one_word_group() -> None:
    # «Как обрабатывается HEAD-запрос, если зарегистрирован только обработчик GET?»: both
    # Russian words read "handle, process"; a function named `handle` says one word of it
    groups = stem_groups([{"handle", "process"}, {"head"}, {"handle", "process"}, {"get"}])
    assert groups == [{"hand", "proc"}, {"head"}, {"get"}]
    assert words_in("function handle(req, res, next) {", groups) == 1


ANSI_FILES = {
    "Cargo.toml": '[package]\nname = "termtext"\nversion = "0.1.0"\n',
    "src/ansi.rs": """\
        pub struct Matches<'a> { s: &'a str, it: Peekable<CharIndices<'a>> }

        impl<'a> Iterator for Matches<'a> {
            type Item = Match<'a>;

            /// Finds the next escape sequence in the text and decides where it ends.
            fn next(&mut self) -> Option<Match<'a>> {
                advance_state(&mut self.it).map(|(start, end)| Match { start, end })
            }
        }

        fn advance_state(it: &mut Peekable<CharIndices>) -> Option<(usize, usize)> {
            loop {
                let (start, c) = it.next()?;
                if c != '\\u{1b}' {
                    continue;
                }
                let mut end = start;
                while let Some((idx, c)) = it.peek() {
                    if c.is_ascii_alphabetic() {
                        return Some((start, *idx + 1));
                    }
                    end = *idx;
                    it.next();
                }
                return Some((start, end));
            }
        }
        """,
}


def test_a_wrapper_mapping_what_it_hands_on_gives_the_lead_to_the_worker(tmp_path: Path) -> None:
    # `.map(…)` of the callee's result is no loop of the wrapper's own: the function it hands
    # the work to leads
    question = "How does termtext find escape sequences in a text and decide where each one ends?"
    with indexed(tmp_path / "termtext", ANSI_FILES) as repo:
        [wrapper] = [
            h for h in repo.search(question, layers=["C1"]).hits if h.symbol.endswith("::next")
        ][:1]
        groups = stem_groups([{"find"}, {"escape"}, {"sequence"}, {"end"}])
        lead = worker_first([wrapper], repo.reader, groups)[0]
    assert lead.symbol == "crate::ansi::advance_state", lead.symbol


@pytest.mark.parametrize(
    ("question", "how"),
    [
        ("Как по умолчанию определяется, подходит ли тип содержимого ответа для сжатия?", True),
        ("How does it pick the default level when none is given?", True),
        ("Как задать уровень по умолчанию?", False),
        ("Какой таймаут по умолчанию?", False),
        ("How do I change the default level?", False),
    ],
)
def test_how_a_default_is_decided_is_a_how_question(question: str, how: bool) -> None:
    # "by default" alone names what the code does when nothing is set; "how do I change …"
    # and «как задать …» ask for the setting
    facets = read_facets(question)
    assert facets.how is how, facets.asks
    assert ("configure" in facets.asks) is not how


@pytest.mark.parametrize(
    "question",
    ["How many times does it retry a request by default?", "Как долго по умолчанию ждёт ответ?"],
)
def test_how_many_by_default_still_asks_for_the_setting(question: str) -> None:
    assert "configure" in read_facets(question).asks


def test_a_lead_named_by_the_question_keeps_it_from_a_longer_body() -> None:
    question = "Как работает фильтрация по уровню, когда передан словарь «модуль → уровень»?"
    groups = stem_groups(concepts_of(question, ("filter", "level", "dict", "module")))
    by_level = code_hit(
        "loguru._filters.filter_by_level",
        "loguru/_filters.py",
        "def filter_by_level(record, level_per_module):\n"
        "    name = record['name']\n"
        "    while True:\n"
        "        level = level_per_module.get(name, None)\n"
        "        if level is not None:\n"
        "            return record['level'].no >= level\n"
        "        name = name.rpartition('.')[0]\n",
    )
    configure = code_hit(
        "loguru._logger.Logger.configure_filter_levels",
        "loguru/_logger.py",
        "def configure_filter_levels(self, handlers=None, levels=None, activation=None):\n"
        "    for params in levels or []:\n"
        "        self.level(**params)  # each level of the dict, by module name\n"
        "    for name, state in activation or []:\n"
        "        self.enable(name) if state else self.disable(name)  # filter the module\n",
    )
    # both names say two of the question's words: the lead's own name says as much
    assert named_worker([by_level, configure], groups)[0] is by_level


CONSTRAINT_FILES = {
    "go.mod": "module example.com/verrange\n\ngo 1.20\n",
    "constraints.go": """\
        package verrange

        import "strings"

        // Constraints is a set of version constraints joined by "||".
        type Constraints struct {
            constraints [][]string
        }

        // String returns the constraints as a string: each group's constraints joined with
        // a space, the groups joined with " || ".
        func (cs Constraints) String() string {
            buf := make([]string, len(cs.constraints))
            for i, group := range cs.constraints {
                buf[i] = strings.Join(group, " ")
            }
            return strings.Join(buf, " || ")
        }

        // NewConstraint returns Constraints for a constraint string.
        func NewConstraint(c string) (*Constraints, error) {
            ors := strings.Split(c, "||")
            or := make([][]string, len(ors))
            for k, v := range ors {
                or[k] = strings.Fields(strings.TrimSpace(v))
            }
            return &Constraints{constraints: or}, nil
        }
        """,
}


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Как разбирается строка ограничений, где условия объединены через «||»?", "NewConstraint"),
        ("How is a constraint string with conditions joined by || parsed?", "NewConstraint"),
        # asked how it is printed, the method that prints it answers
        ("How are the constraints printed back as a string?", "String"),
    ],
)
def test_a_method_presenting_a_value_answers_only_how_it_is_shown(
    tmp_path: Path, question: str, lead: str
) -> None:
    with indexed(tmp_path / "verrange", CONSTRAINT_FILES) as repo:
        answer = repo.ask(question).answer
    assert f".{lead}`" in answer.lead, answer.lead
