"""Round thirty (issue 23): a character the question names in words ("a line break", «обратный
слеш», "three stars") is a value the answering line writes as a literal (`r == '\\n'`,
`'\\\\'`, `'*'`); a small validator the question names wholly, its verb among the words
(«как проверяется значение параллельности»), keeps the lead of a how-answer instead of handing
it to the function calling it; plain Russian words of the new batches reach their code terms
(арность -> arity, параллельность -> concurrency).

Тридцатый раунд: символ, названный в вопросе словами («перевод строки», «обратный слеш»,
«три звёздочки»), — значение, которое отвечающая строка пишет литералом (`r == '\\n'`);
маленькая проверка, которую вопрос называет целиком вместе с глаголом («как проверяется
значение параллельности»), остаётся первой в ответе «как», а не уступает место вызывающей её
функции; русские слова новых наборов доходят до терминов кода (арность — arity)."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import follow_up, indexed, search_terms
from ragstrata.query.characters import named_characters
from ragstrata.query.lexicon import query_tokens


@pytest.mark.parametrize(
    ("question", "characters"),
    [
        ("Does the resulting string end with a newline?", {"\n"}),
        ("а если точка в имени секции экранирована обратным слешем?", {".", "\\"}),
        ("and what if there are three stars in a row?", {"*"}),
        ("А если у ключа нет закрывающей скобки?", {"])}"}),
        ("And if the closing bracket is missing?", {"]"}),
        ("Что будет с символом табуляции?", {"\t"}),
        ("What if the name has a NUL character in the middle?", {"\x00"}),
        # a name of something else, not of a character
        ("Где точка входа программы?", set()),
        ("How does the hash map grow?", set()),
    ],
)
def test_a_character_named_in_words_is_read_as_the_character(
    question: str, characters: set[str]
) -> None:
    assert set(named_characters(query_tokens(question))) == characters


LEXER = {
    "lexer/lexer.go": """
        package lexer

        // Next reads the next token of the input: a word or a comment.
        func (l *Lexer) Next() (*Token, error) {
            state := startState
            var value []rune
            for {
                r, _, err := l.input.ReadRune()
                if err != nil {
                    return &Token{kind: kindOf(state), value: string(value)}, err
                }
                switch state {
                case startState:
                    if r == '#' {
                        state = commentState
                    } else if !unicode.IsSpace(r) {
                        state = wordState
                        value = append(value, r)
                    }
                case wordState:
                    if unicode.IsSpace(r) {
                        return &Token{kind: WordToken, value: string(value)}, nil
                    }
                    value = append(value, r)
                case commentState:
                    if r == '\\n' {
                        return &Token{kind: CommentToken, value: string(value)}, nil
                    }
                    value = append(value, r)
                }
            }
        }
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does the lexer split the input into words and comments?",
            "When does a comment end — at any whitespace, or only at a line break?",
        ),
        (
            "Как лексер делит ввод на слова и комментарии?",
            "Где заканчивается комментарий — на любом пробеле или только на переводе строки?",
        ),
    ],
)
def test_a_named_character_leads_to_the_line_testing_it(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "lexer", LEXER, first, question)
    lead = answer.citations[0]
    # `if r == '\n' {` in the comment state, not the `'#'` that starts a comment
    assert (lead.path, lead.start_line, lead.end_line) == ("lexer/lexer.go", 26, 28), answer.text


LIMIT = {
    "limit/index.js": """
        export default function pLimit(concurrency) {
            validateConcurrency(concurrency);

            const queue = [];
            let activeCount = 0;

            const resumeNext = () => {
                if (activeCount < concurrency && queue.length > 0) {
                    activeCount++;
                    queue.shift()();
                }
            };

            const next = () => {
                activeCount--;
                resumeNext();
            };

            const run = async (task, resolve, args) => {
                const result = (async () => task(...args))();
                resolve(result);
                try {
                    await result;
                } catch {}
                next();
            };

            const generator = (task, ...args) => new Promise(resolve => {
                queue.push(run.bind(undefined, task, resolve, args));
                resumeNext();
            });

            return generator;
        }

        function validateConcurrency(concurrency) {
            if (!((Number.isInteger(concurrency) || concurrency === Number.POSITIVE_INFINITY)
                && concurrency > 0)) {
                throw new TypeError('Expected `concurrency` to be a number from 1 and up');
            }
        }
        """,
}


def test_a_validator_the_question_names_keeps_the_lead(tmp_path: Path) -> None:
    with indexed(tmp_path / "limit", LIMIT) as repo:
        answer = repo.ask(
            "Как limit проверяет значение лимита параллельности и какие значения считает "
            "допустимыми?"
        ).answer
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("limit/index.js", 36), answer.text


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Что происходит с лишними аргументами сверх арности функции?", "arity"),
        ("Как проверяется значение параллельности?", "concurrency"),
        ("Как строка центрируется по ширине?", "center"),
        ("Как выводится подробный формат?", "verbose"),
        ("Что будет, если единица записана заглавной буквой?", "uppercase"),
        ("Как создаются промежуточные уровни?", "intermediate"),
    ],
)
def test_plain_russian_words_of_round_thirty_reach_their_code_terms(
    question: str, term: str
) -> None:
    assert term in search_terms(question)
