"""Round twenty-nine (issue 23): a short rule method hands the lead to the function doing the
work it calls, not to the helper that reports the failure (`self._error(...)`), however many
of the question's words that helper's long docstring says; unless the question asks about
failing. A how-question about the versions or builds the code handles ("which compiler
version it is running against", «подходит ли версия под требование») is a code question, not
one about the project's own releases. Plain Russian words of the new batches reach their code
terms (дозапись -> append, искомая строка -> needle, висячие запятые -> trailing). "Not a known
level", «не распознано» ask the branch for the rest (`default:`), as "unknown" does.

Двадцать девятый раунд: короткий метод правила передаёт первое место функции, которая делает
работу, а не помощнику, который записывает ошибку (`self._error(...)`), сколько бы слов вопроса
ни было в его длинной строке документации; если только вопрос не о самой ошибке. Вопрос «как»
о версиях или сборках, с которыми работает код («подходит ли версия под требование»), — вопрос
о коде, а не о выпусках самого проекта. Русские слова новых наборов доходят до терминов кода
(«дозапись» — append, «искомая строка» — needle, «висячие запятые» — trailing). «Не
распознано», "not a known level" спрашивают о ветке для остального (`default:`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import follow_up, indexed, plan, search_terms
from ragstrata.query.models import Intent

VALIDATOR = {
    "rules/validator.py": '''
        """Validation of documents against a schema of rules."""


        class Validator:
            """Checks a document field by field against the rules of its schema."""

            def _error(self, *args):
                """Creates and adds one or multiple errors.

                :param args: the invalid field's name, the error's reference and arbitrary,
                    supplemental information about the error: a rule's value, the errors of
                    its child validators, how many of the definitions were valid.
                """
                if len(args) == 1:
                    self._errors.extend(args[0])
                    return
                field, code = args[0], args[1]
                info = args[2:]
                self._errors.append((field, code, info))
                for child in info:
                    if isinstance(child, list):
                        self._errors.extend(child)
                return None

            def __validate_logical(self, operator, definitions, field, value):
                """Validates the value against each rule set; counts the valid ones."""
                valid_counter = 0
                _errors = []
                for i, definition in enumerate(definitions):
                    schema = {field: dict(definition)}
                    validator = self._child(schema)
                    if validator({field: value}):
                        valid_counter += 1
                    else:
                        _errors.append(validator.errors)
                return valid_counter, _errors

            def _validate_allof(self, definitions, field, value):
                """{'type': 'list', 'logical': 'allof'}"""
                valids, _errors = self.__validate_logical("allof", definitions, field, value)
                if valids < len(definitions):
                    self._error(field, "ALLOF", _errors, valids, len(definitions))

            def _validate_anyof(self, definitions, field, value):
                """{'type': 'list', 'logical': 'anyof'}"""
                valids, _errors = self.__validate_logical("anyof", definitions, field, value)
                if valids < 1:
                    self._error(field, "ANYOF", _errors, valids, len(definitions))
        ''',
}


@pytest.mark.parametrize(
    "question",
    [
        "How are the allof and anyof rules evaluated: how does it find how many of the "
        "alternative rule sets the value of a field satisfies?",
        "Как проверяются правила allof и anyof: как узнать, скольким альтернативным наборам "
        "правил удовлетворяет значение поля?",
    ],
)
def test_a_rule_hands_the_lead_to_its_worker_not_to_the_failure_report(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path / "rules", VALIDATOR) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("rules/validator.py", 25), answer.text


@pytest.mark.parametrize(
    "question",
    [
        "How does autocfg work out which compiler version it is running against, including "
        "when the compiler is a nightly or beta build?",
        "Как semver проверяет, подходит ли версия под требование с крышкой вроде ^0.2?",
        "When I ask for the next patch, minor or major version, how is the new version built, "
        "and what happens to the pre-release tag and build metadata?",
        # no cue word at all, but a detail of what the code does
        "Если значение пришло с другого узла, сохраняется ли оно в локальном кеше, и по "
        "какому правилу?",
    ],
)
def test_a_how_question_about_versions_the_code_handles_is_a_code_question(
    question: str,
) -> None:
    assert plan(question).intent is Intent.CODE_QA


@pytest.mark.parametrize(
    "question",
    [
        "How do I build the project?",
        "How are new versions released?",
        "Какая версия у проекта?",
        "Как установить библиотеку?",
        "When I release a new version, how do I publish it?",
    ],
)
def test_a_question_about_the_project_s_own_life_stays_with_the_project(question: str) -> None:
    assert plan(question).intent is Intent.PROJECT_MISC


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Что будет, если файл не удалось открыть на дозапись?", "append"),
        ("Как устроен поиск со скользящим хешем по окну текста?", "rolling"),
        ("Что происходит, когда среднее число пропущенных байтов ниже порога?", "average"),
        ("Что вернётся, если искомая строка длиннее текста?", "needle"),
        ("Куда переносится временный файл на место целевого?", "target"),
        ("Как удаляются висячие запятые из JSON?", "trailing"),
        ("Где сохраняется причина пропуска задачи?", "skip"),
        ("Как ищется ширина символа в многоуровневых таблицах?", "nested"),
        ("Как библиотека решает, что префильтр не окупается?", "effective"),
        ("Что происходит при выходе из блока with?", "exit"),
    ],
)
def test_plain_russian_words_reach_their_code_terms(question: str, term: str) -> None:
    assert term in search_terms(question)


LEVELS = {
    "levels.go": """
        package levels

        // Level is how severe a message is.
        type Level uint32

        const (
            PanicLevel Level = iota
            ErrorLevel
            InfoLevel
            DebugLevel
        )

        // ParseLevel takes a string level and returns the level constant.
        func ParseLevel(lvl string) (Level, error) {
            switch strings.ToLower(lvl) {
            case "panic":
                return PanicLevel, nil
            case "error":
                return ErrorLevel, nil
            case "info":
                return InfoLevel, nil
            case "debug":
                return DebugLevel, nil
            default:
                var l Level
                return l, fmt.Errorf("not a valid level: %q", lvl)
            }
        }

        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does it turn a level name string into a level?",
            "and what if the string is not a known level?",
        ),
        (
            "Как строка с названием уровня превращается в уровень?",
            "а если название уровня не распознано?",
        ),
    ],
)
def test_not_a_known_value_asks_the_branch_for_the_rest(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "levels", LEVELS, first, question)
    lead = answer.citations[0]
    # the `default:` branch and its error, not the `switch` line
    assert (lead.path, lead.start_line) == ("levels.go", 24), answer.text
    assert lead.end_line <= 27, answer.text
