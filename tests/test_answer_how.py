"""How-questions in plain words lead with the function that does the work.

Three classes, each on a real index (SQLite, hash embedder): a question that opens with
"how" / «как» and asks nothing else is a how-question; a thin wrapper with several calls hands
the lead to the callee whose body carries the question's words (``Bind`` -> ``Default``, the
switch over JSON, XML and form); an attribute writer (``public=``) is an accessor, not the work.
A detail follow-up's two-word phrase ("not found") picks the lines that write it as one name
(``INDEX_NOT_FOUND``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, indexed, method_row
from ragstrata.answer.graphs.ranking import doing_rank
from ragstrata.app.facade import Ragstrata
from ragstrata.core.evidence import Hit
from ragstrata.query.facets import read_facets

FILES = {
    "go.mod": "module example.com/web\n\ngo 1.22\n",
    "context.go": """
        package web

        // Context carries one request.
        type Context struct {
        \tMethod string
        \tType   string
        }

        // Bind decodes the request body into obj with the binding its content type selects.
        func (c *Context) Bind(obj any) error {
        \tb := Default(c.Method, c.Type)
        \treturn c.MustBindWith(obj, b)
        }

        // MustBindWith decodes with b and aborts the request on an error.
        func (c *Context) MustBindWith(obj any, b string) error {
        \tif b == "" {
        \t\treturn nil
        \t}
        \tc.Method = b
        \treturn nil
        }
        """,
    "binding.go": """
        package web

        // Default returns the binding for a method and a content type.
        func Default(method, contentType string) string {
        \tif method == "GET" {
        \t\treturn "form"
        \t}
        \tswitch contentType {
        \tcase "application/json":
        \t\treturn "json"
        \tcase "application/xml", "text/xml":
        \t\treturn "xml"
        \tdefault:
        \t\treturn "form"
        \t}
        }
        """,
    "method.go": """
        package web

        // IsGet reports whether a request method is GET.
        func IsGet(method string) bool {
        \tif method == "GET" {
        \t\treturn true
        \t}
        \treturn false
        }
        """,
    "lib/web/plugin.rb": """
        module Web
          module Plugin
            # compile! compiles the web plugin's pattern: compile, compiled, compiler web.
            def compile!(pattern)
              pattern
            end
          end
        end
        """,
    "lib/web/base.rb": """
        module Web
          class Base
            # Serve static files from this public folder: the folder static files are served
            # from when a request names one.
            def public=(value)
              warn 'public= is deprecated, serve files with public_folder'
              set(:public_folder, value)
            end

            def compile!(pattern)
              pattern.to_s
            end

            def route!(pattern)
              compile!(pattern)
            end

            # Answer with a file when the path names one.
            def static!(env)
              return if (public_dir = settings.public_folder).nil?
              path = File.expand_path(public_dir + unescape(request.path_info))
              return unless path.start_with?(public_dir)
              return unless File.file?(path)
              env['sinatra.static_file'] = path
              send_file path, disposition: nil
            end
          end
        end
        """,
    "web/errors.ts": """
        /** The readable message of one validation error, turned into text. */
        export function errorMessage(error: Issue): string {
          const text = error.message ?? "invalid";
          return text.trim();
        }

        /** Format the issues of a failed parse, one per line. */
        export function formatIssues(failure: Failure): string {
          const lines: string[] = [];
          for (const issue of failure.issues) {
            lines.push(`x ${issue.message}`);
            if (issue.path.length > 0) {
              lines.push(`  at ${issue.path.join(".")}`);
            }
          }
          return lines.join("\\n");
        }
        """,
    "src/main/java/org/ex/Tags.java": """
        package org.ex;

        public class Tags {
            static final int INDEX_NOT_FOUND = -1;

            public static String substringBetween(String str, String open, String close) {
                if (str == null || open == null || close == null) {
                    return null;
                }
                int start = str.indexOf(open);
                if (start != INDEX_NOT_FOUND) {
                    int end = str.indexOf(close, start + open.length());
                    if (end != INDEX_NOT_FOUND) {
                        return str.substring(start + open.length(), end);
                    }
                }
                return null;
            }
        }
        """,
}


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    with indexed(tmp_path_factory.mktemp("web"), FILES) as repo:
        yield repo


def _line_of(rs: Ragstrata, path: str, needle: str) -> int:
    lines = (rs.repo / path).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if needle in line)


@pytest.mark.parametrize(
    ("question", "how"),
    [
        ("How are validation errors turned into a readable message?", True),
        ("Как fd разбирает ограничение по размеру файла?", True),
        ("Что zod делает с ключами объекта, которых нет в схеме?", True),
        ("How do I change the port?", False),  # a configuration question
        ("Как установить gorilla/mux?", False),  # an install question
        ("How do I install it?", False),
        # «как» + an infinitive asks how to do it (the documentation), not how it works
        ("Как в sinatra описать маршрут с именованным параметром?", False),
        ("Как указать bat, какой пейджер использовать?", False),  # a configuration question
    ],
)
def test_a_question_opening_with_how_and_asking_nothing_else_is_a_how_question(
    question: str, how: bool
) -> None:
    assert read_facets(question).how is how


@pytest.mark.parametrize(
    "question",
    [
        "Как в sinatra описать маршрут с именованным параметром?",
        "Как мне подключить библиотеку к проекту?",
        "Как на gin написать обработчик?",
    ],
)
def test_how_and_an_infinitive_is_the_russian_how_do_i(question: str) -> None:
    assert "howto" in read_facets(question).asks


@pytest.mark.parametrize(
    "question",
    [
        "How does the context choose how to parse the request body as json, xml or form?",
        "Как контекст выбирает, как разбирать тело запроса — как json, xml или form?",
    ],
)
def test_a_wrapper_hands_the_lead_to_the_callee_doing_the_described_work(
    rs: Ragstrata, question: str
) -> None:
    result = rs.ask(question)
    first = result.answer.citations[0]
    default = _line_of(rs, "binding.go", "func Default")
    assert (first.path, first.start_line) == ("binding.go", default)


def test_an_attribute_writer_does_not_lead_a_how_answer(rs: Ragstrata) -> None:
    result = rs.ask("How does the base serve a static file from the public folder?")
    first = result.answer.citations[0]
    assert first.path == "lib/web/base.rb"
    assert "static!" in result.answer.lead and "public=" not in result.answer.lead


def test_a_detail_follow_up_reads_a_phrase_written_as_one_name(rs: Ragstrata) -> None:
    rs.ask("Where is substringBetween defined?", session="tags")
    result = rs.ask("and what does it return when the closing tag is not found?", session="tags")
    first = result.answer.citations[0]
    guard = _line_of(rs, "src/main/java/org/ex/Tags.java", "if (start != INDEX_NOT_FOUND)")
    last = _line_of(rs, "src/main/java/org/ex/Tags.java", "return str.substring")
    assert first.path == "src/main/java/org/ex/Tags.java"
    assert guard <= first.start_line and first.end_line <= last + 2


def test_a_phrase_written_as_one_name_outweighs_its_words_apart() -> None:
    from ragstrata.answer.graphs.detail import answering_lines

    text = (
        "static String tail(String s, String close) {\n"
        "    if (closeFound(s)) {\n"
        "        return s;\n"
        "    }\n"
        "    if (indexOf(s, close) == NOT_FOUND) {\n"
        "        return null;\n"
        "    }\n"
        "    return s;\n"
        "}\n"
    )
    row = method_row("T.tail", "T.java", "java", text.rstrip("\n"))
    facets = read_facets("and what does it return when the closing tag is not found?")
    facets = replace(facets, terms=("return", "closing", "tag", "found"))
    span = answering_lines(row, facets)
    assert span is not None and (span.start_line, span.end_line) == (5, 7)


def test_a_follow_up_to_a_plain_question_is_answered_inside_the_answer_s_topic(
    rs: Ragstrata,
) -> None:
    """The user named no symbol; the definition the answer led with is the topic of "and
    what if …?", and the lines of it that answer are cited (not another definition's card)."""
    rs.ask("How does the context choose how to parse the request body as json, xml or form?",
           session="topic")  # fmt: skip
    result = rs.ask("and what if it is a GET?", session="topic")
    first = result.answer.citations[0]
    guard = _line_of(rs, "binding.go", 'if method == "GET"')
    assert (first.path, first.start_line) == ("binding.go", guard)
    assert first.end_line <= guard + 2


def test_the_answer_s_topic_is_kept_weakly_and_only_when_no_symbol_was_named() -> None:
    from ragstrata.app.sessions import ANSWER_TOPIC_CONFIDENCE, next_state
    from ragstrata.query.router import Router

    router = Router()
    plain = router.plan("How does it decide which route matches?").model_dump(mode="json")
    state = next_state(plain, None, "mux.Route.Match")
    (topic,) = state["active_anchors"]
    assert (topic["value"], topic["subtype"]) == ("mux.Route.Match", "answer")
    assert topic["confidence"] == ANSWER_TOPIC_CONFIDENCE
    named = router.plan("Where is the function DefaultQuery defined?").model_dump(mode="json")
    values = [a["value"] for a in next_state(named, None, "gin.Context.Query")["active_anchors"]]
    assert "gin.Context.Query" not in values and "DefaultQuery" in values
    follow = router.plan("and what if the method does not match?", state)
    assert "mux.Route.Match" not in follow.query_plan.keyword_hints  # no search term


@pytest.mark.parametrize(
    "question",
    [
        "How is the SameSite attribute written when a cookie becomes a Set-Cookie string?",
        "Как записывается атрибут SameSite, когда cookie превращается в строку Set-Cookie?",
    ],
)
def test_a_name_the_question_wrote_that_nothing_defines_gives_way_to_the_answer_s_topic(
    question: str,
) -> None:
    from ragstrata.app.sessions import next_state
    from ragstrata.query.router import Router

    plan = Router().plan(question).model_dump(mode="json")
    written = [a["value"] for a in plan["query_plan"]["anchors"] if a["type"] == "SYMBOL"]
    assert "SameSite" in written
    # the answer led with the function writing the attribute; no name written is defined
    state = next_state(plan, None, "src/index.stringifySetCookie", written)
    symbols = [(a["value"], a["subtype"]) for a in state["active_anchors"] if a["type"] == "SYMBOL"]
    assert symbols == [("src/index.stringifySetCookie", "answer")]
    # a name that is defined stays the topic
    kept = next_state(plan, None, "src/index.stringifySetCookie")["active_anchors"]
    assert [a["value"] for a in kept if a["type"] == "SYMBOL"] == written


def test_a_callable_that_is_mostly_its_parameter_list_declares_and_does_no_work() -> None:
    from ragstrata.answer.graphs.ranking import doing_rank
    from ragstrata.core.evidence import Hit

    params = "".join(f"    option_{n}: int = {n},\n" for n in range(30))
    declared = f"def Option(\n{params}) -> Any:\n    return OptionInfo(option_0)\n"
    worker = "def get_param(info):\n" + "".join(f"    step_{n}(info)\n" for n in range(30))

    def hit(name: str, text: str) -> Hit:
        lines = text.count("\n")
        return Hit(
            layer="C1", path="pkg/params.py", start_line=1, end_line=lines, symbol=name,
            score=1.0, reasons=(), text=text, kind="function",
        )  # fmt: skip

    assert doing_rank(hit("pkg.params.Option", declared)) == (False, 3)  # as a declaration
    assert doing_rank(hit("pkg.main.get_param", worker)) == (False, 0)


def test_a_leaf_helper_yields_the_lead_to_the_function_doing_the_work(rs: Ragstrata) -> None:
    """A four-line helper that calls nothing of the project does not do what a how-question
    asks when the next candidate has a body of its own (a loop over the issues)."""
    result = rs.ask("How are validation errors turned into a readable multi-line message?")
    first = result.answer.citations[0]
    assert (first.path, first.start_line) == (
        "web/errors.ts",
        _line_of(rs, "web/errors.ts", "formatIssues"),
    )


def test_a_ruby_bang_name_is_kept_and_the_called_definition_answers_who_calls(
    rs: Ragstrata,
) -> None:
    """«compile!» keeps its `!` when the sentence goes on; of two definitions named so, the one
    the code calls leads the callers answer (not "no callers found")."""
    result = rs.ask("Кто вызывает метод compile! в web?")
    symbols = [a["value"] for a in result.plan["query_plan"]["anchors"] if a["type"] == "SYMBOL"]
    assert "compile!" in symbols
    call = _line_of(rs, "lib/web/base.rb", "def route!") + 1  # route! calls compile!
    first = result.answer.citations[0]
    assert (first.path, first.start_line) == ("lib/web/base.rb", call)
    assert "Web::Base#compile!" in result.answer.lead


JS_FILES = {
    "package.json": '{"name": "relay", "version": "1.0.0", "main": "index.js"}\n',
    "index.js": "module.exports = require('./lib/relay')\n",
    "lib/relay.js": """
        var proto = require('./application')
        var req = require('./request')

        /**
         * Create an application.
         */
        function createApplication() {
          var app = function (req, res, next) {
            app.handle(req, res, next)
          }
          app.request = Object.create(req, { app: { value: app } })
          app.init()
          return app
        }

        module.exports = createApplication
        """,
    "lib/request.js": """
        var proxyaddr = require('proxy-addr')
        var req = Object.create(null)

        /**
         * The address of the client, read through the trusted proxies.
         */
        defineGetter(req, 'ip', function ip() {
          var trust = this.app.get('trust proxy fn')
          return proxyaddr(this, trust)
        })

        function defineGetter(obj, name, getter) {
          Object.defineProperty(obj, name, { configurable: true, enumerable: true, get: getter })
        }

        module.exports = req
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How does relay find the address of the client behind a proxy?",
        "Как relay определяет адрес клиента за прокси?",
    ],
)
def test_a_getter_does_work_and_the_project_s_name_names_no_file(
    tmp_path: Path, question: str
) -> None:
    # `req.ip` is a getter computing the address; `lib/relay.js` is only named like the
    # project, which every question about it names
    with indexed(tmp_path, JS_FILES) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    assert (first.path, first.start_line) == ("lib/request.js", 7), result.answer.lead


RESPONSE_JS = """
    var res = Object.create(null)

    /**
     * Respond with the first acceptable format of ``obj``.
     */
    res.format = function (obj) {
      var keys = Object.keys(obj)
      var key = this.req.accepts(keys)
      if (key) {
        obj[key](this.req, this)
      } else {
        this.req.next(createError(406, { types: keys }))
      }
      return this
    }

    module.exports = res
    """


@pytest.mark.parametrize(
    "question",
    [
        "What happens when none of the formats passed to res.format is acceptable?",
        "Что происходит, если ни один формат, переданный в res.format, не подходит?",
    ],
)
def test_a_detail_question_naming_a_js_object_s_method_quotes_the_answering_lines(
    tmp_path: Path, question: str
) -> None:
    # JavaScript's `res` is the object lib/response.js exports: `res.format` names
    # `lib/response.format`, so the question asks about a detail of it, not for its card
    files = {**JS_FILES, "lib/response.js": RESPONSE_JS}
    with indexed(tmp_path, files) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    assert first.path == "lib/response.js" and 11 <= first.start_line <= 13, result.answer.lead


def test_an_abbreviated_owner_names_the_definition() -> None:
    from ragstrata.core.names import abbreviated_match

    assert abbreviated_match("lib/response.format", "res.format")
    assert abbreviated_match("flask.app.Flask.run", "Flask.run")
    assert not abbreviated_match("lib/request.format", "res.format")
    assert not abbreviated_match("lib/response.format", "res.send")


def test_a_what_happens_question_without_a_topic_asks_how_the_code_behaves() -> None:
    from ragstrata.query.facets import facets_of
    from ragstrata.query.router import Router

    router = Router()
    opening = router.plan("What happens when a directory cannot be read?")
    assert facets_of(opening).how  # nothing named, no conversation: how the code behaves
    named = router.plan("What happens when none of the formats passed to res.format fits?")
    assert not facets_of(named).how  # a detail of the definition it names
    ru = router.plan("Что происходит, если каталог нельзя прочитать?")
    assert facets_of(ru).how


HANDLER_FILES = {
    "web/handler.py": '''
        """Answers requests."""


        def handle(request):
            """Answer one request."""
            request.log()
            return respond(request)


        def respond(request):
            """The response for a request."""
            if request.method == "HEAD":
                return Response(b"", status=200)
            body = render(request.path)
            return Response(body, status=200)


        def render(path):
            return f"<p>{path}</p>"


        class Response:
            def __init__(self, body, status):
                self.body = body
                self.status = status
        ''',
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        ("where is handle defined?", "and what does it return if the method is HEAD?"),
        ("где определена функция handle?", "а что она вернёт, если метод запроса HEAD?"),
    ],
)
def test_a_detail_follow_up_is_answered_in_a_function_the_topic_calls(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path, HANDLER_FILES, first, question)
    cited = answer.citations[0]
    # `handle` only hands the request on; the HEAD branch is in `respond`, which it calls
    assert (cited.path, cited.start_line) == ("web/handler.py", 12), answer.lead


def _fn(symbol: str, text: str) -> Hit:
    return code_hit(symbol, "lib/response.js", text)


def test_a_lead_with_almost_none_of_the_question_s_words_gives_way_to_a_clear_winner() -> None:
    from ragstrata.answer.graphs.worded import clear_winner
    from ragstrata.answer.graphs.words import stem_groups

    # "How does it decide the Content-Type when I send a plain string?"
    concepts = (
        frozenset({"decide"}), frozenset({"content"}), frozenset({"type"}),
        frozenset({"send"}), frozenset({"plain"}), frozenset({"string"}),
    )  # fmt: skip
    check = _fn(
        "lib/request.is",
        "function is(types) {\n  var arr = types\n  if (!arr) return null\n"
        "  return typeis(this, arr)\n}",
    )
    send = _fn(
        "lib/response.send",
        "function send(body) {\n  switch (typeof body) {\n    case 'string':\n"
        "      this.set('Content-Type', 'text/html')\n  }\n}",
    )
    other = _fn(
        "lib/response.json", "function json(obj) {\n  var body = obj\n\n  return this.send(body)\n}"
    )
    groups = stem_groups(concepts)
    assert clear_winner([check, other, send], groups)[0] is send
    # a lead that carries two of the words keeps its place; so does one with no clear winner
    both = _fn(
        "lib/utils.setType", "function setType(type, string) {\n  var t = type\n\n  return t\n}"
    )
    assert clear_winner([both, other, send], groups)[0] is both
    twin = _fn("lib/response.type", "function type(t) {\n  var s = t\n\n  send(string, content)\n}")
    assert clear_winner([check, send, twin], groups)[0] is check


def test_a_rust_unit_test_beside_the_code_is_a_test() -> None:
    def rust(symbol: str) -> Hit:
        text = 'fn x() {\n    let range = LineRange::from("40:50");\n    assert!(range.is_ok());\n}'
        return Hit(
            layer="C1", path="src/line_range.rs", start_line=1, end_line=4, symbol=symbol,
            score=1.0, reasons=(), text=text, kind="function",
        )  # fmt: skip

    assert doing_rank(rust("crate::line_range::test_parse_fail"))[0]
    assert doing_rank(rust("crate::line_range::tests::parses_plus"))[0]
    assert not doing_rank(rust("crate::line_range::LineRange::parse_range"))[0]


PARSER_FILES = {
    "src/ranges.py": '''
        """Line ranges."""


        def parse_range(text):
            """Parse "N:M" into a pair of line numbers."""
            parts = text.split(":")
            if len(parts) > 2:
                raise ValueError("too many colons in a line range")
            return int(parts[0]), int(parts[-1])
        ''',
    "tests/test_ranges.py": """
        import pytest

        from ranges import parse_range


        def test_parse_range_fails_on_too_many_colons():
            # what happens when there are too many colons in a line range: it fails
            with pytest.raises(ValueError):
                parse_range("1:2:3")
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        ("How does it parse a line range?", "and what happens if there are too many colons?"),
        ("Как разбирается диапазон строк?", "а что будет, если двоеточий слишком много?"),
    ],
)
def test_a_detail_follow_up_to_a_how_question_quotes_the_lines_of_the_code(
    tmp_path: Path, first: str, question: str
) -> None:
    # the test beside it writes the same words; the code's own branch answers («двоеточие»,
    # «слишком много» reach it through the glossary)
    answer = follow_up(tmp_path, PARSER_FILES, first, question)
    cited = answer.citations[0]
    assert cited.path == "src/ranges.py" and 7 <= cited.start_line <= 8, answer.lead
