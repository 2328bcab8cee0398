"""Round thirty (issue 23): a character the question names in words ("a line break", «обратный
слеш», "three stars") is a value the answering line writes as a literal (`r == '\\n'`,
`'\\\\'`, `'*'`); a small validator the question names wholly, its verb among the words
(«как проверяется значение параллельности»), keeps the lead of a how-answer instead of handing
it to the function calling it; of the how-ranking's first two, the function more of the
retrieved candidates call leads when it says as many of the question's words; «превращает размер
в короткую строку» asks the method writing the value as text (Go's `String()`), not the parser;
a call the code does without ("without an explicit call to flush", «без явного вызова
flush») asks for no callers; a branch inside the best one that says all but one of its words
(and two at least) is cited instead of the whole block; plain Russian words of the new batches reach their code terms
(арность -> arity, параллельность -> concurrency).

Тридцатый раунд: символ, названный в вопросе словами («перевод строки», «обратный слеш»,
«три звёздочки»), — значение, которое отвечающая строка пишет литералом (`r == '\\n'`);
маленькая проверка, которую вопрос называет целиком вместе с глаголом («как проверяется
значение параллельности»), остаётся первой в ответе «как», а не уступает место вызывающей её
функции; из первых двух кандидатов впереди та функция, которую вызывают другие найденные; русские слова новых наборов доходят до терминов кода (арность — arity)."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import follow_up, indexed, plan, search_terms
from ragstrata.answer.graphs.base import hit_from_scored
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.answer.graphs.worker import called_worker
from ragstrata.core.values import scored_row
from ragstrata.query.characters import named_characters
from ragstrata.query.facets import facets_of
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


SETTINGS = {
    "conf/reader.py": '''
        """Reading settings files."""

        import os


        def load_file(path, defaults=None):
            """Reads the settings file at ``path``; the defaults fill what it leaves out."""
            if not os.path.exists(path):
                return dict(defaults or {})
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            settings = dict(defaults or {})
            for key, value in parse_pairs(text).items():
                settings[key] = value
            return settings


        def load_env(prefix, environ=None):
            """Reads the settings given as environment variables starting with ``prefix``."""
            environ = os.environ if environ is None else environ
            lines = []
            for name, value in environ.items():
                if name.startswith(prefix):
                    lines.append(f"{name[len(prefix):].lower()}={value}")
            return parse_pairs("\\n".join(lines))


        def parse_pairs(text):
            pairs = {}
            for raw in text.splitlines():
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                key, sep, value = line.partition("=")
                if not sep:
                    raise ValueError(f"no '=' in setting line: {raw!r}")
                pairs[key.strip()] = value.strip()
            return pairs
        ''',
}


@pytest.mark.parametrize(
    ("order", "lead"),
    [
        # `parse_pairs` is called by both readers and says as many of the question's words
        ([("load_env", 0.5), ("parse_pairs", 0.4), ("load_file", 0.3)], "parse_pairs"),
        # nothing of the window calls `load_env`: the lead keeps its place
        ([("parse_pairs", 0.5), ("load_env", 0.4), ("load_file", 0.3)], "parse_pairs"),
        ([("load_file", 0.5), ("load_env", 0.4), ("parse_pairs", 0.3)], "load_file"),
        # retrieval found `parse_pairs` a much weaker match: the calls tip only a close one
        ([("load_env", 0.5), ("parse_pairs", 0.2), ("load_file", 0.1)], "load_env"),
    ],
)
def test_the_function_the_candidates_call_leads_the_how_ranking(
    tmp_path: Path, order: list[tuple[str, float]], lead: str
) -> None:
    question = "When settings are read, how are the lines turned into keys and values?"
    groups = stem_groups(facets_of(plan(question)).concepts)
    with indexed(tmp_path / "conf", SETTINGS) as repo:
        reader = repo.reader
        head = []
        for name, score in order:
            row = reader.resolver.resolve(f"conf.reader.{name}", limit=1).best
            assert row is not None, name
            head.append(hit_from_scored(scored_row(row, score), "test"))
        ranked = called_worker(head, reader, groups)
    assert (ranked[0].symbol or "").endswith(lead), [h.symbol for h in ranked]


SIZES = {
    "size/size.go": """
        package size

        // Size is a number of bytes.
        type Size uint64

        const (
            B  Size = 1
            KB      = B << 10
            MB      = KB << 10
            GB      = MB << 10
        )

        // String writes the size in the largest unit that divides it: "100GB", "1025KB".
        func (s Size) String() string {
            switch {
            case s == 0:
                return "0B"
            case s%GB == 0:
                return fmt.Sprintf("%dGB", s/GB)
            case s%MB == 0:
                return fmt.Sprintf("%dMB", s/MB)
            case s%KB == 0:
                return fmt.Sprintf("%dKB", s/KB)
            default:
                return fmt.Sprintf("%dB", s)
            }
        }

        // UnmarshalText reads a size such as "10 MB" or "5 gigabytes" into a number of bytes.
        func (s *Size) UnmarshalText(t []byte) error {
            text := strings.TrimSpace(string(t))
            i := 0
            for i < len(text) && text[i] >= '0' && text[i] <= '9' {
                i++
            }
            val, err := strconv.ParseUint(text[:i], 10, 64)
            if err != nil {
                return err
            }
            unit := strings.ToLower(strings.TrimSpace(text[i:]))
            switch unit {
            case "", "b", "byte", "bytes":
                *s = Size(val)
            case "k", "kb", "kilobyte", "kilobytes":
                *s = Size(val) * KB
            case "m", "mb", "megabyte", "megabytes":
                *s = Size(val) * MB
            case "g", "gb", "gigabyte", "gigabytes":
                *s = Size(val) * GB
            default:
                return fmt.Errorf("unknown unit %q", unit)
            }
            return nil
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        'Как size выбирает единицу измерения, когда превращает размер в короткую строку вроде "100GB"?',
        'How does it pick the unit when it turns a size into a short string like "100GB"?',
    ],
)
def test_into_a_string_asks_the_method_writing_the_value_as_text(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path / "size", SIZES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    # `String()`, not `UnmarshalText` reading "10 MB"
    assert (lead.path, lead.start_line) == ("size/size.go", 14), answer.text


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (
            "Как tabwriter разбирает байты на ячейки и когда он сам, без явного вызова flush, "
            "выводит накопленный текст?",
            {"how"},
        ),
        ("When does it write the buffered text out without an explicit call to flush?", {"how"}),
        # a question about the calls themselves
        ("Кто вызывает flush?", {"callers"}),
        ("Где вызывается flush без аргументов?", {"callers"}),
    ],
)
def test_a_call_the_code_does_without_asks_for_no_callers(question: str, asks: set[str]) -> None:
    assert set(facets_of(plan(question)).asks) == asks


UUIDS = {
    "uuid/codec.go": """
        package uuid

        // parse reads the 36-character text form of a UUID into its 16 bytes.
        func parse(b []byte) (UUID, error) {
            var u UUID
            if len(b) == 36 {
                if b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
                    return u, ErrInvalidDashes
                }
                for i, x := range [16]byte{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34} {
                    v, ok := xtob(b[x], b[x+1])
                    if !ok {
                        return u, ErrInvalidFormat
                    }
                    u[i] = v
                }
                return u, nil
            }
            return u, ErrInvalidLength
        }
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "Как разбирается текстовая запись UUID?",
            "А что будет, если строка длиной 36 символов, но дефисы стоят не на своих местах?",
        ),
        (
            "How is the text form of a UUID parsed?",
            "And what if the string is 36 characters long but the dashes are not in their places?",
        ),
    ],
)
def test_the_inner_branch_saying_nearly_every_word_is_cited(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "uuid", UUIDS, first, question)
    lead = answer.citations[0]
    # the dash check and its error, not the whole `if len(b) == 36` block with its loop
    assert lead.path == "uuid/codec.go", answer.text
    assert 7 <= lead.start_line <= lead.end_line <= 9, answer.text
