"""Which definition a how-answer leads with, when retrieval ranked another first.

Unit checks of :mod:`ragstrata.answer.graphs.ranking` on definitions as retrieval hands them
over: a definition whose own name says what the question asks, and whose body carries more of
its words, takes the lead from a function of the same kind that merely ranked higher.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, indexed
from ragstrata.answer.graphs.ranking import definition_hits
from ragstrata.answer.graphs.worded import named_worker
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.query.facets import concepts_of, facets_of
from ragstrata.query.router import default_router


def _lead(root: Path, files: dict[str, str], question: str) -> tuple[str, int]:
    """Where the answer to ``question`` over ``files`` leads: (path, first line)."""
    with indexed(root, files) as repo:
        cited = repo.ask(question).answer.citations[0]
    return cited.path, cited.start_line


def _fn(symbol: str, path: str, text: str) -> Hit:
    return code_hit(symbol, path, text)


ARGS = _fn(
    "crate::config::get_args_from_str",
    "src/config.rs",
    "fn get_args_from_str(content: &str) -> Vec<String> {\n"
    "    let args = shell_words::split(content);\n"
    "    args.into_iter().map(|a| a.trim().to_string()).collect()\n}",
)
PARSE_RANGE = _fn(
    "crate::line_range::LineRange::parse_range",
    "src/line_range.rs",
    "fn parse_range(raw: &str) -> Result<LineRange> {\n"
    "    let parts: Vec<&str> = raw.split(':').collect();\n"
    "    let lower = parts[0].parse()?;\n"
    "    let upper = parts[1].parse()?;\n"
    "    Ok(LineRange { lower, upper })\n}",
)
HELPER = _fn(
    "crate::output::print_line",
    "src/output.rs",
    "fn print_line(out: &mut Output, text: &str) {\n    out.write(text);\n    out.flush();\n}",
)


def test_a_definition_named_by_the_question_s_words_takes_the_lead() -> None:
    for question in (
        "How does it parse a line range like 10:20?",
        "Как разбирается диапазон строк вроде 10:20?",
    ):
        groups = stem_groups(concepts_of(question, ("parse", "range", "line")))
        head = [ARGS, HELPER, PARSE_RANGE]
        assert named_worker(head, groups)[0] is PARSE_RANGE, question


def test_a_name_alone_or_a_tie_keeps_the_lead() -> None:
    groups = stem_groups(concepts_of("How does it parse a line range like 10:20?"))
    # named by the question, but its body carries no more of the words than the lead's
    thin = _fn("crate::line_range::parse_range", "src/line_range.rs", "fn parse_range() {}")
    assert named_worker([PARSE_RANGE, thin], groups)[0] is PARSE_RANGE
    assert named_worker([ARGS, HELPER, thin], groups)[0] is ARGS
    # two candidates alike: retrieval's order stands
    twin = _fn("crate::ranges::parse_range", "src/ranges.rs", PARSE_RANGE.text)
    assert named_worker([ARGS, PARSE_RANGE, twin], groups)[0] is ARGS
    # nothing to reorder
    assert named_worker([], groups) == []


JSONP_FILES = {
    "package.json": '{"name": "weblet", "version": "1.0.0", "main": "lib/weblet.js"}\n',
    "lib/application.js": """
        var app = exports = module.exports = {}

        /**
         * Handle a request: hand it to the router, each handler called with the callback.
         */
        app.handle = function handle(req, res, callback) {
          var done = callback || finalhandler(req, res)
          var router = this.router
          if (!router) {
            done()
            return
          }
          router.handle(req, res, done)
        }
        """,
    "lib/request.js": """
        var req = module.exports = {}

        /**
         * The parsed query string of the request.
         */
        defineGetter(req, 'query', function query() {
          var parser = this.app.get('query parser fn')
          if (!parser) {
            return {}
          }
          return parser(this.url)
        })
        """,
    "lib/response.js": """
        var res = module.exports = {}

        /**
         * Send JSON with JSONP support: the body wrapped in the callback the query names.
         */
        res.jsonp = function jsonp(obj) {
          var body = JSON.stringify(obj)
          var callback = this.req.query[this.app.get('jsonp callback name')]
          if (typeof callback === 'string' && callback.length !== 0) {
            this.set('Content-Type', 'text/javascript')
            callback = callback.replace(/[^\\[\\]\\w$.]/g, '')
            body = '/**/ typeof ' + callback + ' === "function" && ' + callback + '(' + body + ');'
          }
          return this.send(body)
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "Как weblet обрабатывает JSONP-запросы с callback?",
        "Как weblet отвечает на JSONP-запрос?",
    ],
)
def test_the_latin_half_of_a_russian_compound_names_the_definition(
    tmp_path: Path, question: str
) -> None:
    # «JSONP-запросы»: `jsonp` is the name written in code's alphabet, not `handle`
    assert _lead(tmp_path, JSONP_FILES, question) == ("lib/response.js", 6)


EXIT_FILES = {
    "pyproject.toml": '[project]\nname = "loglet"\nversion = "1.0"\n',
    "loglet/exits.py": '''
        """Exit handlers run before the program stops."""

        import sys

        HANDLERS = []


        def fatal(message):
            """Log ``message`` and stop the program."""
            log(message)
            stop(1)


        def stop(code):
            """Run the exit handlers, flush the streams, then exit with ``code``."""
            run_handlers()
            sys.stdout.flush()
            sys.stderr.flush()
            sys.exit(code)


        def run_handlers():
            for handler in HANDLERS:
                handler()


        def log(message):
            print(message, file=sys.stderr)
        ''',
}


@pytest.mark.parametrize(
    "question",
    [
        "How are the exit handlers run when fatal is called?",
        "Как выполняются обработчики при завершении программы через fatal?",
    ],
)
def test_a_wrapper_hands_the_lead_to_a_short_callee_with_a_loop(
    tmp_path: Path, question: str
) -> None:
    # fatal -> stop -> run_handlers: the loop over the handlers does the work, though shorter
    assert _lead(tmp_path, EXIT_FILES, question) == ("loglet/exits.py", 22)


def test_a_javascript_setter_is_named_by_its_set_keyword() -> None:
    groups = stem_groups(
        concepts_of("How does it decide the Content-Type when I set the body to a string?")
    )
    respond = _fn(
        "lib/application.respond",
        "lib/application.js",
        "function respond (ctx) {\n  let body = ctx.body\n  if (typeof body === 'string')"
        " return res.end(body)\n  res.end(JSON.stringify(body))\n}",
    )
    setter = _fn(
        "lib/response.body",
        "lib/response.js",
        "set body (val) {\n  this._body = val\n  if (typeof val === 'string') {\n"
        "    this.type = /^\\s*</.test(val) ? 'html' : 'text'\n    return\n  }\n"
        "  this.type = 'json'\n}",
    )
    getter = replace(setter, text=setter.text.replace("set body (val)", "body (val)", 1))
    # "set the body": the setter's own name is "set body", two of the question's words
    assert named_worker([respond, setter], groups)[0] is setter
    assert named_worker([respond, getter], groups)[0] is respond


def test_a_hyphenated_word_names_a_file_written_with_an_underscore() -> None:
    from ragstrata.answer.graphs.ranking import _in_named_part

    assert _in_named_part("src/itsdangerous/url_safe.py", ("url-safe", "serializer"))
    assert _in_named_part("src/itsdangerous/serializer.py", ("url-safe", "serializer"))
    assert not _in_named_part("src/itsdangerous/signer.py", ("url-safe", "serializer"))


def test_a_loop_is_read_in_the_code_not_in_its_docstring_or_comments() -> None:
    from ragstrata.answer.graphs.doing import loops as _loops

    wrapper = 'def sign(value):\n    """Returns the signature for the given value."""\n'
    assert not _loops(wrapper + "    return derive(value)\n")
    assert not _loops("func Sign(v []byte) []byte {\n\t// for each key\n\treturn derive(v)\n}")
    assert _loops(wrapper + "    for key in KEYS:\n        check(key, value)\n")
    assert _loops("func Run() {\n\tfor _, h := range handlers {\n\t\th()\n\t}\n}")


def test_an_accessor_with_a_docstring_is_still_an_accessor() -> None:
    from ragstrata.answer.graphs.ranking import doing_rank

    prop = _fn(
        "itsdangerous.signer.Signer.secret_key",
        "src/itsdangerous/signer.py",
        '@property\ndef secret_key(self) -> bytes:\n    """The newest (last) entry in the'
        ' secret_keys list."""\n    return self.secret_keys[-1]',
    )
    worker = _fn(
        "itsdangerous.signer.Signer.sign",
        "src/itsdangerous/signer.py",
        'def sign(self, value):\n    """Signs the given string."""\n    value = want_bytes(value)'
        "\n    return value + self.sep + self.get_signature(value)",
    )
    assert doing_rank(prop) == (False, 1)  # reads a field: no work
    assert doing_rank(worker) == (False, 0)


def test_a_short_public_face_of_its_implementation_is_no_accessor() -> None:
    from ragstrata.answer.graphs.ranking import doing_rank

    def go(symbol: str, text: str) -> Hit:
        return replace(_fn(symbol, "level.go", text), kind="function")

    face = go(
        "loglet.ParseLevel",
        "func ParseLevel(lvl string) (Level, error) {\n\treturn parseLevel([]byte(lvl))\n}",
    )
    getter = go("loglet.GetLevel", "func GetLevel() Level {\n\treturn std.Level()\n}")
    # "How does loglet parse a level name?": ParseLevel hands the work to parseLevel
    assert doing_rank(face) == (False, 0)
    assert doing_rank(getter) == (False, 1)
    # `insert` hands its work to `insert_full`, a name extending its own by a word; `get`
    # calling `getattr` reads an attribute
    insert = go(
        "ordmap.OrderedMap.insert", "func insert(k K, v V) V {\n\treturn insert_full(k, v)\n}"
    )
    attr = go("ordmap.Box.get", "func get(name string) V {\n\treturn getattr(name)\n}")
    assert doing_rank(insert) == (False, 0)
    assert doing_rank(attr) == (False, 1)


def test_a_macro_with_a_body_does_work() -> None:
    from ragstrata.answer.graphs.ranking import doing_rank

    text = (
        "macro_rules! __log {\n    (target: $target:expr, $lvl:expr, $($arg:tt)+) => ({\n"
        "        let lvl = $lvl;\n        if lvl <= $crate::max_level() {\n"
        "            $crate::__private_api::log(format_args!($($arg)+), lvl, $target);\n"
        "        }\n    });\n}"
    )
    macro = replace(_fn("crate::macros::__log", "src/macros.rs", text), kind="macro")
    # "How do the logging macros skip a message below the maximum level?"
    assert doing_rank(macro) == (False, 0)


@pytest.mark.parametrize(
    "question",
    [
        "How does it decide whether to print colored output?",
        "Как он решает, печатать ли цветной вывод?",
    ],
)
def test_a_whether_question_is_answered_by_the_predicate_it_names(question: str) -> None:
    from ragstrata.answer.graphs.ranking import _predicate_first

    groups = stem_groups(concepts_of(question, ("print", "color", "colored", "output")))
    printer = _fn(
        "logrus.TextFormatter.printColored",
        "text_formatter.go",
        "func (f *TextFormatter) printColored(b *bytes.Buffer, entry *Entry) {\n"
        "\tlevelColor := colorize(entry.Level)\n\tfmt.Fprintf(b, levelColor)\n"
        "\tfor _, k := range keys {\n\t\tf.appendKeyValue(b, k)\n\t}\n}",
    )
    predicate = _fn(
        "logrus.TextFormatter.isColored",
        "text_formatter.go",
        "func (f *TextFormatter) isColored(isTerminal bool) bool {\n\tif f.DisableColors {\n"
        "\t\treturn false\n\t}\n\treturn f.ForceColors || isTerminal\n}",
    )
    assert _predicate_first([printer, predicate], groups)[0] is predicate
    # a predicate naming none of the question's words does not lead
    other = replace(predicate, symbol="logrus.TextFormatter.isTerminal")
    assert _predicate_first([printer, other], groups)[0] is printer


def test_a_name_made_only_of_the_question_s_words_beats_one_with_more() -> None:
    from ragstrata.answer.graphs.worded import purer_name

    groups = stem_groups(concepts_of("How is a flag marked as deprecated?"))
    shorthand = _fn(
        "pflag.FlagSet.MarkShorthandDeprecated",
        "flag.go",
        "func (f *FlagSet) MarkShorthandDeprecated(name string, usageMessage string) error {\n"
        "\tflag := f.Lookup(name)\n\tflag.ShorthandDeprecated = usageMessage\n\treturn nil\n}",
    )
    plain = _fn(
        "pflag.FlagSet.MarkDeprecated",
        "flag.go",
        "func (f *FlagSet) MarkDeprecated(name string, usageMessage string) error {\n"
        "\tflag := f.Lookup(name)\n\tflag.Deprecated = usageMessage\n\tflag.Hidden = true\n"
        "\treturn nil\n}",
    )
    assert purer_name([shorthand, plain], groups)[0] is plain
    assert purer_name([plain, shorthand], groups)[0] is plain  # the lead already is


TOKEN_FILES = {
    "pyproject.toml": '[project]\nname = "tokenlet"\nversion = "1.0"\n',
    "tokenlet/exceptions.py": '''
        class ExpiredSignatureError(Exception):
            """Raised when a token's expiration time is in the past."""
        ''',
    "tokenlet/cache.py": '''
        import time


        class KeyCache:
            """Keys fetched from the server, kept for a while."""

            def __init__(self, lifespan):
                self.lifespan = lifespan
                self.fetched = time.time()

            def is_expired(self):
                """True when the cached keys have expired."""
                if self.lifespan < 0:
                    return False
                return time.time() > self.fetched + self.lifespan
        ''',
    "tokenlet/api.py": """
        from tokenlet.exceptions import ExpiredSignatureError


        def validate_exp(payload, now, leeway):
            try:
                exp = int(payload["exp"])
            except ValueError:
                raise ValueError("exp must be an integer") from None
            if exp <= now - leeway:
                raise ExpiredSignatureError("Signature has expired")
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it check that a token has not expired?",
        "Как он проверяет, что срок действия токена не истёк?",
    ],
)
def test_the_function_raising_the_error_retrieval_found_leads(
    tmp_path: Path, question: str
) -> None:
    # the error type matches the question best; the check raising it answers, not `is_expired`
    assert _lead(tmp_path, TOKEN_FILES, question) == ("tokenlet/api.py", 4)


@pytest.mark.parametrize(
    "path",
    [
        "source/vendor/ansi-styles/index.js",
        "vendor/github.com/pkg/errors/errors.go",
        "third_party/zlib/inflate.c",
        "web/node_modules/left-pad/index.js",
    ],
)
def test_a_vendored_copy_of_another_project_does_not_lead_a_how_answer(path: str) -> None:
    from ragstrata.answer.graphs.ranking import doing_rank

    vendored = _fn("styles.assembleStyles", path, "function assembleStyles() {\n  return 1\n}")
    assert doing_rank(vendored)[0]  # beside the project's own code, as examples are
    own = replace(vendored, path="source/index.js")
    assert not doing_rank(own)[0]


def test_type_declarations_take_no_place_of_the_code_in_the_how_window() -> None:
    from answer_fixture import plan
    from ragstrata.answer.graphs.ranking import definition_hits, doing_rank
    from ragstrata.core.evidence import Evidence, Requirement
    from ragstrata.query.facets import facets_of

    question = "How does chalk handle nested styles so an inner color is not cut off?"
    aliases = [
        replace(
            _fn(f"source/index.Color{n}", "source/index.d.ts", f"export type Color{n} = string;"),
            kind="type_alias",
        )
        for n in range(14)
    ]
    worker = _fn(
        "source/index.applyStyle",
        "source/index.js",
        "const applyStyle = (self, string) => {\n  let styler = self[STYLER];\n"
        "  while (styler !== undefined) {\n"
        "    string = stringReplaceAll(string, styler.close, styler.open);\n"
        "    styler = styler.parent;\n  }\n  return styler.openAll + string + styler.closeAll;\n};",
    )
    assert doing_rank(aliases[0])[0]  # a `.d.ts` file declares, no code of it runs
    found = [*aliases, worker]
    evidence = Evidence(
        hits=tuple(found),
        requirements={
            "require_def": Requirement(
                name="require_def", required=True, satisfied=True, hits=(aliases[0],)
            )
        },
    )
    routed = plan(question)
    focus = facets_of(routed)
    defs = definition_hits(routed, evidence, focus, how=True)
    assert defs[0] is worker


def test_a_contraction_s_first_half_is_no_word_of_the_question() -> None:
    groups = stem_groups(concepts_of("Why doesn't an inner color cut off the outer one?"))
    assert not any("does" in g for g in groups)
    assert any("colo" in g for g in groups)


ENV_FILES = {
    "pyproject.toml": '[project]\nname = "envfile"\nversion = "1.0"\n',
    "envfile/main.py": '''
        import os


        def load_env(path=None, override=False):
            """Load the variables of a .env file into the environment.

            A variable already set in the environment is kept unless override is true; when
            no path is given, the file is looked up from the current folder upwards.
            """
            if path is None:
                path = find_env_file()
            values = read_values(path)
            return set_environment_variables(values, override)


        def set_environment_variables(values, override):
            changed = False
            for key, value in values.items():
                if key in os.environ and not override:
                    continue
                os.environ[key] = value
                changed = True
            return changed


        def find_env_file(name=".env"):
            folder = os.getcwd()
            while True:
                candidate = os.path.join(folder, name)
                if os.path.isfile(candidate):
                    return candidate
                parent = os.path.dirname(folder)
                if parent == folder:
                    return ""
                folder = parent


        def read_values(path):
            with open(path) as stream:
                return dict(line.strip().split("=", 1) for line in stream if "=" in line)
        ''',
}


@pytest.mark.parametrize(
    "question",
    [
        "What happens to a variable that is already set in the environment when the file "
        "is loaded?",
        "Что происходит с переменной, которая уже задана в окружении, при загрузке файла?",
    ],
)
def test_a_documented_entry_point_hands_the_lead_to_the_callee_named_by_the_question(
    tmp_path: Path, question: str
) -> None:
    # `load_env`'s docstring tells the whole story; the function it calls named "set
    # environment variables" does the work the question asks about
    assert _lead(tmp_path, ENV_FILES, question) == ("envfile/main.py", 16)


def test_a_short_class_whose_instances_are_called_does_work() -> None:
    """``stop_after_delay(10)`` is a function in the shape of a class: "how does stopping after a
    time limit work?" is answered by it, not by a helper that merely converts seconds."""
    from ragstrata.answer.graphs.ranking import doing_rank

    text = (
        "class stop_after_delay(stop_base):\n"
        '    """Stop when the time from the first attempt >= limit."""\n\n'
        "    def __init__(self, max_delay):\n        self.max_delay = to_seconds(max_delay)\n\n"
        "    def __call__(self, retry_state):\n"
        "        return retry_state.seconds_since_start >= self.max_delay\n"
    )
    strategy = replace(
        _fn("retrying.stop.stop_after_delay", "retrying/stop.py", text), kind="class"
    )
    assert doing_rank(strategy) == (False, 0)
    plain = replace(strategy, text=text.replace("__call__", "describe"))
    assert doing_rank(plain) == (False, 2)  # a class like any other: its methods do the work
    long = replace(strategy, end_line=strategy.start_line + 200)
    assert doing_rank(long) == (False, 2)  # a framework class that also has a __call__


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("config.go", "Decode(value string) error"),
        ("src/ops.rs", "fn mul(self, other: Self) -> Result<Self, Error>;"),
        ("src/api.ts", "parse(text: string): Options;"),
    ],
)
def test_a_method_declared_without_a_body_does_no_work(path: str, text: str) -> None:
    """An interface's or a trait's method states the behaviour; the code implementing it does
    the work ("In which order does it try the custom decoders?" is no question for `Decode`)."""
    from ragstrata.answer.graphs.ranking import doing_rank

    declared = replace(_fn("pkg.Decoder.Decode", path, text), kind="method")
    assert doing_rank(declared) == (False, 3)
    arrow = replace(_fn("src/api.double", "src/api.ts", "const double = (x) => x * 2"))
    assert doing_rank(arrow)[1] < 3  # a body without braces


PREFIX_FILES = {
    "envlet/__init__.py": "",
    "envlet/config.py": '''
        import os


        class ParseError(Exception):
            """A value of the environment could not be read into its field: the variable,
            the field and the text."""


        def fields(spec):
            return [name for name in vars(spec) if not name.startswith("_")]


        def process(prefix, spec):
            """Fill the spec's fields from the environment variables with the prefix."""
            for field in fields(spec):
                value = os.environ.get(f"{prefix}_{field}".upper())
                if value is not None:
                    try:
                        setattr(spec, field, int(value))
                    except ValueError:
                        raise ParseError(field) from None


        def check_disallowed(prefix, spec):
            """Reject variables with the prefix that the spec does not know."""
            known = {f"{prefix}_{field}".upper() for field in fields(spec)}
            for key in os.environ:
                if key.startswith(prefix.upper()) and key not in known:
                    raise ValueError(f"unknown environment variable {key}")
        ''',
}


def test_an_error_type_that_names_nothing_asked_points_at_no_raiser(tmp_path: Path) -> None:
    """`ParseError` ranks high for any question about the environment; "a variable the spec
    doesn't know" is no question about parsing: the function raising it takes no lead. Asked
    about a value that cannot be parsed, it does."""
    from ragstrata.answer.graphs.base import hit_from_scored
    from ragstrata.answer.graphs.ranking import _raiser_first
    from ragstrata.core.values import scored_row

    with indexed(tmp_path, PREFIX_FILES) as repo:
        reader = repo.reader

        def hit(symbol: str) -> Hit:
            row = reader.resolver.resolve(symbol).best
            assert row is not None, symbol
            return hit_from_scored(scored_row(row, 0.0), "test")

        seeds = [hit("envlet.config.ParseError")]
        head = [hit("envlet.config.check_disallowed"), hit("envlet.config.process")]
        unknown = "How does it handle a variable with the prefix the spec doesn't know?"
        groups = stem_groups(concepts_of(unknown))
        assert _raiser_first(head, seeds, reader, groups)[0].symbol.endswith("check_disallowed")
        parsing = stem_groups(concepts_of("What happens when a value cannot be parsed?"))
        assert _raiser_first(head, seeds, reader, parsing)[0].symbol.endswith(".process")


READ = _fn(
    "lib/read.read",
    "lib/read.js",
    "function read (req, res, next, parse, options) {\n"
    "  // read the request the client sent into a buffer and parse it\n"
    "  const stream = contentstream(req, options)\n"
    "  getBody(stream, options, function (error, body) {\n"
    "    req.body = parse(body)\n"
    "    next()\n"
    "  })\n}",
)
DECOMPRESS = _fn(
    "lib/read.createDecompressionStream",
    "lib/read.js",
    "function createDecompressionStream (encoding) {\n"
    "  switch (encoding) {\n"
    "    case 'deflate':\n      return zlib.createInflate()\n"
    "    case 'gzip':\n      return zlib.createGunzip()\n"
    "  }\n"
    "  throw new Error('unsupported content encoding')\n}",
)


@pytest.mark.parametrize(
    "question",
    [
        "How does body-parser deal with a request body the client compressed?",
        "Как body-parser обрабатывает тело запроса, которое клиент сжал?",
    ],
)
def test_a_part_of_the_project_s_name_is_no_word_of_the_question(question: str) -> None:
    # "parser" of `body-parser` gave `read` (which parses the request of the client) one more
    # of the question's words, and it took the lead from the function retrieval ranked first
    plan = default_router().plan(question, None, {"project_names": ["body-parser"]})
    evidence = Evidence(
        hits=(DECOMPRESS, replace(READ, start_line=20, end_line=27)), requirements={}
    )
    facets = facets_of(plan)
    hits = definition_hits(plan, evidence, facets, how=True)
    assert hits[0].symbol == "lib/read.createDecompressionStream", [h.symbol for h in hits]


GETCOOKIE = _fn(
    "index.getcookie",
    "index.js",
    "function getcookie (req, name, secrets) {\n"
    "  // read the session id from the signed cookie of the request\n"
    "  var raw = cookie.parse(req.headers.cookie)[name]\n"
    "  var val = unsigncookie(raw.slice(2), secrets)\n"
    "  if (val === false) {\n    debug('cookie signature invalid')\n  }\n"
    "  return val\n}",
)
GET_SESSION = _fn(
    "session/memory.getSession",
    "session/memory.js",
    "function getSession (sessionId) {\n"
    "  var sess = this.sessions[sessionId]\n"
    "  if (!sess) {\n    return\n  }\n"
    "  return JSON.parse(sess)\n}",
)


@pytest.mark.parametrize(
    "question",
    [
        "How does express-session get the session id out of the cookie and check its signature?",
        "Как express-session достаёт идентификатор сессии из cookie и проверяет подпись?",
    ],
)
def test_a_part_of_the_project_s_name_names_no_folder(question: str) -> None:
    # "session" of `express-session` named the folder session/, whose store method took the
    # lead from the function retrieval ranked first
    plan = default_router().plan(question, None, {"project_names": ["express-session"]})
    evidence = Evidence(hits=(GETCOOKIE, replace(GET_SESSION, score=0.9)), requirements={})
    facets = facets_of(plan)
    hits = definition_hits(plan, evidence, facets, how=True)
    assert hits[0].symbol == "index.getcookie", [h.symbol for h in hits]


ORDERED_MAP_FILES = {
    "Cargo.toml": '[package]\nname = "ordmap"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod core;\npub mod map;\n",
    "src/map.rs": """
        use crate::core::Core;

        pub struct OrderedMap {
            core: Core,
        }

        impl OrderedMap {
            /// Remove the entry of `key` by swapping it with the last entry and popping it:
            /// the order of the remaining entries is not kept.
            pub fn swap_remove(&mut self, key: u64) -> Option<u64> {
                match self.core.len() {
                    0 => None,
                    1 => self.core.pop(),
                    _ => {
                        let hash = key.wrapping_mul(31);
                        self.core.swap_remove(hash)
                    }
                }
            }
        }
        """,
    "src/core.rs": """
        pub struct Core {
            entries: Vec<u64>,
            indices: Vec<usize>,
        }

        impl Core {
            pub fn len(&self) -> usize {
                self.entries.len()
            }

            pub fn pop(&mut self) -> Option<u64> {
                self.entries.pop()
            }

            pub fn swap_remove(&mut self, hash: u64) -> Option<u64> {
                let index = self.indices.iter().position(|&i| i as u64 == hash)?;
                let entry = self.entries.swap_remove(index);
                if let Some(moved) = self.entries.get(index) {
                    self.indices[index] = *moved as usize;
                }
                Some(entry)
            }
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How is an entry removed quickly when the order of the others does not matter?",
        "Как удаляется элемент быстро, если порядок остальных не важен?",
    ],
)
def test_a_method_handing_its_call_to_the_same_named_method_of_its_core_gives_it_the_lead(
    tmp_path: Path, question: str
) -> None:
    # `OrderedMap::swap_remove` documents the behaviour; `Core::swap_remove` does the work
    assert _lead(tmp_path, ORDERED_MAP_FILES, question) == ("src/core.rs", 15)


OVERRIDE_FILES = {
    "signer/base.py": '''
        class Signer:
            def unsign(self, value):
                """Split the signature off the value and check it."""
                value, sig = value.rsplit(".", 1)
                if sig != self.sign(value):
                    raise ValueError("bad signature")
                return value
        ''',
    "signer/timed.py": '''
        import time

        from signer.base import Signer


        class TimedSigner(Signer):
            def unsign(self, value, max_age=None):
                """Check the signature, then the age of the timestamp signed with the value."""
                result = super().unsign(value)
                value, stamp = result.rsplit(".", 1)
                age = time.time() - int(stamp)
                if max_age is not None and age > max_age:
                    raise ValueError(f"signature age {age} > {max_age} seconds")
                return value
        ''',
}


def test_an_override_calling_its_parent_keeps_the_lead(tmp_path: Path) -> None:
    # `super().unsign(...)` is no hand-off: the override checks the age itself
    question = "How does the timed signer reject a signature older than the maximum age?"
    assert _lead(tmp_path, OVERRIDE_FILES, question) == ("signer/timed.py", 7)


def test_a_lead_saying_none_of_the_question_s_words_gives_way_to_one_saying_two() -> None:
    from ragstrata.answer.graphs.worded import clear_winner

    load = _fn(
        "cache.cache.Load",
        "cache.go",
        "func (c *cache) Load(r io.Reader) error {\n\tdec := gob.NewDecoder(r)\n"
        "\treturn dec.Decode(&c.items)\n}",
    )
    add = _fn(
        "cache.cache.Add",
        "cache.go",
        "func (c *cache) Add(k string, x interface{}) error {\n\t_, found := c.get(k)\n"
        '\tif found {\n\t\treturn fmt.Errorf("Item %s already exists", k)\n\t}\n'
        "\tc.set(k, x)\n\treturn nil\n}",
    )
    groups = [{"add", "inse", "appe"}, {"key"}, {"exis", "alre"}]
    # «Как не даёт добавить ключ, который уже есть?»: Load says nothing of it, Add two words
    assert clear_winner([load, add], groups)[0] is add
    # one word in the lead: two are not enough
    said = replace(load, text=load.text.replace("Load(r", "Load(key"))
    assert clear_winner([said, add], groups)[0] is said


BREAKER_FILES = {
    "go.mod": "module example.com/breaker\n\ngo 1.21\n",
    "breaker.go": """
        package breaker

        type Counts struct {
            Requests            uint32
            ConsecutiveFailures uint32
        }

        func (c *Counts) onFailure() {
            c.Requests++
            c.ConsecutiveFailures++
        }

        type CircuitBreaker struct {
            counts Counts
            state  int
        }

        // onFailure records a failed request; too many failures in a row trip the circuit open.
        func (cb *CircuitBreaker) onFailure() {
            cb.counts.onFailure()
            if cb.counts.ConsecutiveFailures > 5 {
                cb.setState(1)
            }
        }

        func (cb *CircuitBreaker) setState(state int) {
            cb.state = state
            cb.counts = Counts{}
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How does the breaker decide there have been enough failures to open the circuit?",
        "Как автомат решает, что неудач было достаточно, чтобы разомкнуть цепь?",
    ],
)
def test_a_method_calling_its_namesake_as_one_step_keeps_the_lead(
    tmp_path: Path, question: str
) -> None:
    # `cb.counts.onFailure()` only counts; the `onFailure` around it decides to open: a call
    # whose result is not what the method returns hands nothing on
    path, line = _lead(tmp_path, BREAKER_FILES, question)
    assert path == "breaker.go" and 19 <= line <= 20, (path, line)  # its comment, or its line


RELTIME_FILES = {
    "go.mod": "module example.com/human\n\ngo 1.21\n",
    "times.go": """
        package human

        import (
            "fmt"
            "time"
        )

        // Ago writes how long ago a moment was, as "3 weeks ago" or "2 days ago".
        func Ago(then time.Time) string {
            return Between(then, time.Now(), "ago", "from now")
        }

        // Between says how far apart two moments are, with the label of the earlier one.
        func Between(a, b time.Time, albl, blbl string) string {
            return Spelled(a, b, albl, blbl, 0)
        }

        // Spelled picks the unit for the distance between two moments.
        func Spelled(a, b time.Time, albl, blbl string, round int) string {
            label := albl
            diff := b.Sub(a)
            if a.After(b) {
                label = blbl
                diff = a.Sub(b)
            }
            switch {
            case diff < time.Minute:
                return fmt.Sprintf("%d seconds %s", int(diff.Seconds()), label)
            case diff < time.Hour:
                return fmt.Sprintf("%d minutes %s", int(diff.Minutes()), label)
            case diff < 7*24*time.Hour:
                return fmt.Sprintf("%d days %s", int(diff.Hours()/24), label)
            default:
                return fmt.Sprintf("%d weeks %s", int(diff.Hours()/24/7), label)
            }
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it decide whether to write 3 weeks ago or 2 days ago?",
        "Как решается, написать «3 weeks ago» или «2 days ago»?",
    ],
)
def test_a_wrapper_of_a_wrapper_hands_the_lead_to_the_worker(tmp_path: Path, question: str) -> None:
    """`Ago` -> `Between` -> `Spelled`: the two short faces are as long as each other; the one
    they reach picks the words, and leads when retrieval ranked the first face first."""
    from ragstrata.answer.graphs.base import hit_from_scored
    from ragstrata.answer.graphs.worker import worker_first
    from ragstrata.core.values import scored_row

    with indexed(tmp_path, RELTIME_FILES) as repo:
        reader = repo.reader
        rows = [reader.resolver.resolve(f"human.{n}").best for n in ("Ago", "Between")]
        head = [hit_from_scored(scored_row(row, 0.0), "test") for row in rows if row]
        led = worker_first(head, reader, stem_groups(concepts_of(question)))
    assert [h.symbol for h in led[:2]] == ["human.Spelled", "human.Ago"]


@pytest.mark.parametrize(
    ("path", "terms", "named"),
    [
        ("src/walk.rs", ("walking",), True),  # the same word but for its ending
        ("src/indexer/mod.rs", ("indexing",), True),
        ("middleware/client_ip.go", ("client", "ip"), True),
        ("lib/parse.js", ("parse",), True),
        ("src/sortedcontainers/sortedlist.py", ("sorted", "list"), True),  # two words asked
        ("lib/stringify.js", ("query", "string"), False),  # a word made of it: no string
        ("src/sortedcontainers/sortedset.py", ("sorted", "list"), False),
        ("lib/auth.js", ("authorization",), False),
        ("src/click/types.py", ("typed",), False),
    ],
)
def test_a_question_word_names_a_file_only_as_itself_or_with_an_ending(
    path: str, terms: tuple[str, ...], named: bool
) -> None:
    from ragstrata.answer.graphs.ranking import _in_named_part

    assert _in_named_part(path, terms) is named
