"""Detail follow-ups are answered by the lines of the conversation's topic that say it.

Each on a real index (SQLite, hash embedder), in a session: a name the follow-up writes that
nothing defines («если метода head в классе нет») is a word of the detail, not a new subject; a
punctuation character named in words ("colons") matches the literal a line writes (``':'``);
"more than three" asks for the branch past the listed ones; a unit test written beside the code
never answers a detail of the code; "what if there is none" is answered by the check for None.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import follow_up, method_row
from ragstrata.answer.graphs.detail import DetailSpan, answering_lines
from ragstrata.query.facets import read_facets


def _answering(
    symbol: str,
    path: str,
    language: str,
    text: str,
    question: str,
    terms: tuple[str, ...],
    detail: str = "",
) -> DetailSpan | None:
    """The lines of ``text`` (a definition from line 1) that answer ``question`` read with
    ``terms``; ``detail``: the kind of detail the question must be read as asking."""
    facets = replace(read_facets(question), terms=terms)
    assert not detail or detail in facets.details, facets.details
    return answering_lines(method_row(symbol, path, language, text), facets)


VIEW_FILES = {
    "web/views.py": '''
        """Class-based views."""


        class View:
            """A view: a subclass implements dispatch_request."""

            def dispatch_request(self, request):
                raise NotImplementedError()

            @classmethod
            def as_view(cls, name):
                """Turn the class-based view into a view function: each request is handed to
                the view's handler for its HTTP method."""

                def view(request):
                    self = cls()
                    return self.dispatch_request(request)

                view.__name__ = name
                return view


        class MethodView(View):
            """A view whose methods are named after the HTTP methods they handle."""

            def dispatch_request(self, request):
                """Call the method of this view named after the request's HTTP method."""
                handler = getattr(self, request.method.lower(), None)
                if handler is None and request.method == "HEAD":
                    handler = getattr(self, "get", None)
                if handler is None:
                    raise NotImplementedError(request.method)
                return handler(request)
        ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does a class-based view pick the handler for the request's HTTP method?",
            "and what happens to a HEAD request when the class has no head method?",
        ),
        (
            "Как class-based view выбирает обработчик по HTTP-методу запроса?",
            "а что происходит с HEAD-запросом, если метода head в классе нет?",
        ),
    ],
)
def test_a_name_nothing_defines_is_a_word_of_the_detail_asked(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path, VIEW_FILES, first, question)
    cited = answer.citations[0]
    # the HEAD branch the request reaches, not "`head` appears in …" nor a card
    assert (cited.path, cited.start_line) == ("web/views.py", 29), answer.lead
    assert cited.end_line <= 30, answer.lead


RANGE_FILES = {
    "Cargo.toml": '[package]\nname = "ranges"\nversion = "0.1.0"\n',
    "src/range.rs": """
        pub struct LineRange {
            pub lower: usize,
            pub upper: usize,
        }

        impl LineRange {
            /// Parse "N", "N:M" or "N:M:C" into a line range.
            pub fn parse_range(raw: &str) -> Result<LineRange, String> {
                let parts: Vec<&str> = raw.split(':').collect();
                match parts.len() {
                    1 => {
                        let n = parts[0].parse().map_err(|_| "not a number")?;
                        Ok(LineRange { lower: n, upper: n })
                    }
                    2 => {
                        let lower = parts[0].parse().map_err(|_| "not a number")?;
                        let upper = parts[1].parse().map_err(|_| "not a number")?;
                        Ok(LineRange { lower, upper })
                    }
                    3 => {
                        let n: usize = parts[0].parse().map_err(|_| "not a number")?;
                        let c: usize = parts[2].parse().map_err(|_| "not a number")?;
                        Ok(LineRange { lower: n - c, upper: n + c })
                    }
                    _ => Err(
                        "too many ':' characters, expected 'N', 'N:M' or 'N:M:C'".to_string(),
                    ),
                }
            }
        }

        #[test]
        fn test_parse_range_fails_with_more_than_three_colons() {
            // more than three colons in a line range: parsing fails
            let parsed = LineRange::parse_range("1:2:3:4");
            assert!(parsed.is_err());
        }
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does it parse a line range like 10:20?",
            "and what happens when there are more than three colons?",
        ),
        (
            "Как разбирается диапазон строк вроде 10:20?",
            "а что будет, если двоеточий больше чем три?",
        ),
    ],
)
def test_colons_named_in_words_match_the_literal_of_the_branch_past_the_listed_ones(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path, RANGE_FILES, first, question)
    cited = answer.citations[0]
    # the `_ =>` arm writing ':' (not the split on ':', not the inline test saying "colons")
    assert (cited.path, cited.start_line) == ("src/range.rs", 25), answer.lead


@pytest.mark.parametrize(
    "question",
    [
        "and what happens when the class has no handler for the request?",
        "а что будет, если обработчика для запроса в классе нет?",
    ],
)
def test_a_question_about_something_missing_is_answered_by_the_check_for_none(
    question: str,
) -> None:
    text = (
        "def dispatch(self, request):\n"
        "    if self.init_every_request:\n"
        "        self.setup(request)\n"
        "    handler = getattr(self, request.method.lower(), None)\n"
        "    if handler is None:\n"
        "        handler = self.default_handler\n"
        "    return handler(request)\n"
    )
    where = ("views.View.dispatch", "views.py", "python")
    terms = ("handler", "request", "class")
    span = _answering(*where, text, question, terms)
    # both conditions carry the words; the one testing for an absent value answers "no handler"
    assert span is not None and span.start_line == 5, span
    # a key missing from a mapping is an absent value too
    keyed = text.replace("if handler is None:", 'if "handler" not in vars(self):')
    span = _answering(*where, keyed, question, terms)
    assert span is not None and span.start_line == 5, span


PROMPT_FILES = {
    "cli/prompts.py": '''
        """Questions asked on the terminal."""


        class Session:
            """A terminal session."""

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False


        def confirm(text, default=None):
            """Ask a yes/no question until the user answers it."""
            while True:
                value = input(text).lower().strip()
                if value in ("y", "yes"):
                    return True
                if value in ("n", "no"):
                    return False
                if default is not None and value == "":
                    return default
        ''',
}


def test_a_word_nothing_defines_names_no_dunder_of_that_name(tmp_path: Path) -> None:
    answer = follow_up(
        tmp_path,
        PROMPT_FILES,
        "How does confirm read the user's answer?",
        "а что будет, если пользователь просто нажал Enter?",
    )
    cited = answer.citations[0]
    # "Enter" is the key the user pressed, not `Session.__enter__`: the answer stays in confirm
    assert cited.path == "cli/prompts.py" and cited.start_line >= 14, answer.lead


@pytest.mark.parametrize(
    "question",
    [
        "and what if the flag needs a value but none is given?",
        "а что будет, если значение для флага не задано?",
    ],
)
def test_a_missing_value_is_answered_by_the_branch_raising_an_error_named_for_it(
    question: str,
) -> None:
    text = (
        "func (f *FlagSet) parseLong(name string, args []string) (string, error) {\n"
        "\tflag, ok := f.formal[name]\n"
        "\tif !ok {\n"
        '\t\treturn "", f.ignoreUnknownValue(flag, args)\n'
        "\t}\n"
        "\tif len(args) > 0 {\n"
        "\t\treturn args[0], nil\n"
        "\t} else {\n"
        '\t\treturn "", &ValueRequiredError{flag: flag}\n'
        "\t}\n"
        "}"
    )
    span = _answering(
        "pflag.FlagSet.parseLong", "flag.go", "go", text, question, ("flag", "value", "given")
    )
    # both branches write the flag; the one raising ValueRequiredError answers "none is given"
    assert span is not None and span.start_line == 8, span


@pytest.mark.parametrize(
    "question",
    [
        "and how many edits apart can a suggestion be?",
        "а сколько правок допускается между словом и подсказкой?",
    ],
)
def test_how_many_is_answered_by_the_bound_the_code_compares_with(question: str) -> None:
    text = (
        "export function suggestSimilar(word, candidates) {\n"
        "  word = word.slice(2);\n"
        "  let similar = [];\n"
        "  let bestDistance = maxDistance;\n"
        "  candidates.forEach((candidate) => {\n"
        "    const distance = editDistance(word, candidate);\n"
        "    if (distance <= bestDistance) similar.push(candidate);\n"
        "  });\n"
        "  return similar;\n"
        "}"
    )
    span = _answering(
        "lib/suggestSimilar.suggestSimilar",
        "lib/suggestSimilar.js",
        "js",
        text,
        question,
        ("edits", "apart", "suggestion"),
        detail="amount",
    )
    # the bound (`maxDistance`), not `slice(2)` nor the line merely naming the edit distance
    assert span is not None and (span.start_line, span.end_line) == (4, 4), span


@pytest.mark.parametrize(
    "question",
    [
        "and what if the user just presses Enter?",
        "а что будет, если пользователь просто нажал Enter?",
    ],
)
def test_pressing_enter_alone_is_answered_by_the_check_for_an_empty_string(question: str) -> None:
    text = (
        "def confirm(text, default=False):\n"
        "    while True:\n"
        "        value = read_line(text).lower().strip()\n"
        '        if value in ("y", "yes"):\n'
        "            rv = True\n"
        '        elif value in ("n", "no"):\n'
        "            rv = False\n"
        '        elif default is not None and value == "":\n'
        "            rv = default\n"
        "        else:\n"
        "            continue\n"
        "        break\n"
        "    return rv"
    )
    span = _answering(
        "click.termui.confirm",
        "src/click/termui.py",
        "python",
        text,
        question,
        ("user", "presses", "enter"),
        detail="missing",
    )
    assert span is not None and span.start_line == 8, span


def test_a_value_tested_as_not_empty_is_no_check_for_a_missing_one() -> None:
    text = (
        "func (f *FlagSet) parseLongArg(name string, a []string) (string, error) {\n"
        "\tif len(split) == 2 {\n"
        "\t\tvalue = split[1]\n"
        '\t} else if flag.NoOptDefVal != "" {\n'
        "\t\tvalue = flag.NoOptDefVal\n"
        "\t} else if len(a) > 0 {\n"
        "\t\tvalue = a[0]\n"
        "\t} else {\n"
        "\t\terr = f.fail(&ValueRequiredError{flag: flag})\n"
        "\t}\n"
        "\treturn value, err\n"
        "}"
    )
    question = "and what if the flag needs a value but none is given?"
    span = _answering(
        "pflag.FlagSet.parseLongArg", "flag.go", "go", text, question, ("flag", "value", "given")
    )
    # `!= ""` asks for a value that is there; the branch raising ValueRequiredError answers
    assert span is not None and span.start_line == 8, span


@pytest.mark.parametrize(
    "question",
    [
        "and what status code does it answer with by default?",
        "а какой код ответа у него по умолчанию?",
    ],
)
def test_by_default_is_answered_by_the_value_set_when_none_was_given(question: str) -> None:
    text = (
        "func ThrottleWithOpts(opts ThrottleOpts) func(http.Handler) http.Handler {\n"
        "\tif opts.Limit < 1 {\n"
        '\t\tpanic("Throttle expects limit > 0")\n'
        "\t}\n"
        "\tstatusCode := opts.StatusCode\n"
        "\tif statusCode == 0 {\n"
        "\t\tstatusCode = http.StatusTooManyRequests\n"
        "\t}\n"
        "\tt := throttler{statusCode: statusCode}\n"
        "\treturn t.handler\n"
        "}"
    )
    span = _answering(
        "middleware.ThrottleWithOpts",
        "middleware/throttle.go",
        "go",
        text,
        question,
        ("status", "code", "answer", "default"),
        detail="missing",
    )
    # the zero value means none was given: the branch setting the default answers
    assert span is not None and (span.start_line, span.end_line) == (6, 8), span


def test_more_than_one_of_something_is_answered_by_the_check_naming_it() -> None:
    text = (
        "pub(crate) fn parse_spec(spec: &str) -> ParseResult {\n"
        "    let mut result = ParseResult::default();\n"
        "    let mut parts = spec.split('/');\n"
        "    let mods = parts.next();\n"
        "    if parts.next().is_some() {\n"
        "        result.add_error(format!(\"invalid spec '{spec}' (too many '/'s)\"));\n"
        "        return result;\n"
        "    }\n"
        "    if let Ok(num) = mods.parse() {\n"
        "        result.add_directive(num);\n"
        "    } else {\n"
        "        result.add_error(format!(\"invalid spec '{spec}'\"));\n"
        "    }\n"
        "    result\n"
        "}"
    )
    question = "and what if the string has more than one slash?"
    span = _answering(
        "crate::parser::parse_spec",
        "src/parser.rs",
        "rust",
        text,
        question,
        ("string", "one", "slash"),
    )
    # the check writing '/' answers; an `else` naming nothing is no branch "past the listed ones"
    assert span is not None and span.start_line == 5, span


@pytest.mark.parametrize(
    "question",
    ["and what if the same name appears twice?", "а что если одно имя встречается дважды?"],
)
def test_twice_is_answered_by_the_check_for_one_already_there(question: str) -> None:
    text = (
        "export function parseCookie(str: string): Cookies {\n"
        "  const obj: Cookies = {};\n"
        "  let index = 0;\n"
        "  do {\n"
        "    const eqIdx = str.indexOf('=', index);\n"
        "    const key = str.slice(index, eqIdx).trim();\n"
        "    if (obj[key] === undefined) {\n"
        "      obj[key] = decode(str.slice(eqIdx + 1));\n"
        "    }\n"
        "    index = str.indexOf(';', index) + 1;\n"
        "  } while (index > 0);\n"
        "  return obj;\n"
        "}"
    )
    span = _answering(
        "src/index.parseCookie",
        "src/index.ts",
        "typescript",
        text,
        question,
        ("same", "name", "appears", "twice"),
        detail="repeat",
    )
    assert span is not None and span.start_line == 7, span


@pytest.mark.parametrize(
    "question",
    [
        "and what happens with an unknown priority value?",
        "а что будет с неизвестным значением приоритета?",
    ],
)
def test_an_unknown_value_is_answered_by_the_default_branch(question: str) -> None:
    text = (
        "export function stringify(cookie: SetCookie): string {\n"
        "  const value = cookie.value == null ? '' : enc(cookie.value);\n"
        "  let str = cookie.name + '=' + value;\n"
        "  switch (cookie.priority) {\n"
        "    case 'low':\n"
        "      str += '; Priority=Low';\n"
        "      break;\n"
        "    case 'high':\n"
        "      str += '; Priority=High';\n"
        "      break;\n"
        "    default:\n"
        "      throw new TypeError(`option priority is invalid: ${cookie.priority}`);\n"
        "  }\n"
        "  return str;\n"
        "}"
    )
    span = _answering(
        "src/index.stringify",
        "src/index.ts",
        "typescript",
        text,
        question,
        ("unknown", "priority", "value"),
        detail="otherwise",
    )
    assert span is not None and (span.start_line, span.end_line) == (11, 12), span


@pytest.mark.parametrize(
    "question",
    ["and what if that date is already in the past?", "а если эта дата уже в прошлом?"],
)
def test_the_comment_above_a_line_says_what_it_answers(question: str) -> None:
    text = (
        "func parseRetryAfterHeader(headers []string) (time.Duration, bool) {\n"
        "\theader := headers[0]\n"
        "\tretryTime, err := time.Parse(time.RFC1123, header)\n"
        "\tif err != nil {\n"
        "\t\treturn 0, false\n"
        "\t}\n"
        "\tif until := retryTime.Sub(timeNow()); until > 0 {\n"
        "\t\treturn until, true\n"
        "\t}\n"
        "\t// date is in the past\n"
        "\treturn 0, true\n"
        "}"
    )
    span = _answering(
        "retryablehttp.parseRetryAfterHeader",
        "client.go",
        "go",
        text,
        question,
        ("date", "already", "past"),
    )
    # the code says nothing of a past date; the comment right above its line does
    assert span is not None and span.start_line == 11, span


@pytest.mark.parametrize(
    "question",
    ["and what if the string has no unit?", "а если в строке нет единицы измерения?"],
)
def test_a_negated_contains_is_a_check_for_something_missing(question: str) -> None:
    text = (
        "func ToDurationE(i any) (time.Duration, error) {\n"
        "\tswitch s := i.(type) {\n"
        "\tcase time.Duration:\n"
        "\t\treturn s, nil\n"
        "\tcase string:\n"
        '\t\tif !strings.ContainsAny(s, "nsuµmh") {\n'
        '\t\t\treturn time.ParseDuration(s + "ns")\n'
        "\t\t}\n"
        "\t\treturn time.ParseDuration(s)\n"
        "\t}\n"
        "\treturn 0, nil\n"
        "}"
    )
    span = _answering(
        "cast.ToDurationE", "time.go", "go", text, question, ("string", "unit"), detail="missing"
    )
    assert span is not None and span.start_line == 6, span


@pytest.mark.parametrize(
    "question", ["and what does it give for a number?", "and what does it give back then?"]
)
def test_what_does_it_give_asks_what_it_returns(question: str) -> None:
    assert "returns" in read_facets(question).details


@pytest.mark.parametrize(
    ("line", "stem"),
    [
        ("            '*' => {", "star"),
        ("    if c == '?' {", "ques"),
        ("    if (ch === '~') {", "tild"),
        ("    elif char == '#':", "hash"),
    ],
)
def test_a_wildcard_character_is_read_as_its_name(line: str, stem: str) -> None:
    """ "three stars in a row", «после звёздочки»: the line writing the `'*'` literal says it."""
    from ragstrata.answer.graphs.words import line_stems as _line_stems

    assert stem in _line_stems(line)


@pytest.mark.parametrize(
    "question",
    ["and what if an item is invalid?", "а если элемент неверный?"],
)
def test_of_two_branches_saying_it_alike_the_inner_one_is_cited(question: str) -> None:
    text = (
        "func parseMap(value string) (map[string]string, error) {\n"
        "\tmp := map[string]string{}\n"
        '\tif strings.TrimSpace(value) != "" {\n'
        '\t\tfor _, pair := range strings.Split(value, ",") {\n'
        '\t\t\tkv := strings.Split(pair, "=")\n'
        "\t\t\tif len(kv) != 2 {\n"
        '\t\t\t\treturn nil, fmt.Errorf("invalid map item: %q", pair)\n'
        "\t\t\t}\n"
        "\t\t\tmp[kv[0]] = kv[1]\n"
        "\t\t}\n"
        "\t}\n"
        "\treturn mp, nil\n"
        "}"
    )
    span = _answering(
        "envconfig.parseMap", "envconfig.go", "go", text, question, ("item", "invalid")
    )
    # the outer `if` holds the same words, eight lines around them: the branch itself answers
    assert span is not None and (span.start_line, span.end_line) == (6, 8), span
