"""The twenty-first round: Russian vocabulary and Go generics in the call graph.

- Transliteration drops a stem's silent e before a vowel ending, as English spells it
  (таймер -> timer, тайминг -> timing), reads -айс, -айз, -айп as -ice, -ize, -ipe (слайс ->
  slice) and э before к as the English a (бэкап -> backup, бэкофф -> backoff).
- Go generics: a method's receiver typed `Iterator[T]` is an `Iterator` (its calls on the
  receiver resolve, even when the receiver is named like the package), and a method called on
  a value built in place (`Iterator[T]{}.ForEach(…)`, `Client{}.Do()`) or converted
  (`Iterator[T](m).ForEachIdx(…)`) is that type's, and so is a method of a type defined on
  another with methods of its own (`type Mapper[T, R any] Iterator[T]`).
- A copy of another project kept in a private folder (`_vendor/`, as pip and bleach keep
  html5lib) is vendored code, as `vendor/` is: the project's own function leads.
- A constructor that only stores its options (no loop) follows the code using them in a
  how-answer, unless the question asks how the thing is made; its docstring listing the
  question's steps does not make it the function doing them.
- What a definition calls is its own calls: Go's exported `Cache.Set` and the unexported
  `Cache.set` doing the work are two definitions, not one name in two cases.
- «выдаваемое соединение» (the connection handed out) asks for no output: a word that also
  means "give back" (emit, output, return) leaves a Display `fmt` behind the code doing the
  work.
- A named JavaScript function returned by a factory (`return function corsMiddleware(req,
  res, next) {…}`) or listed in an array (`transformResponse: [function transformResponse(data)
  {…}]`) is a definition: "where is corsMiddleware defined?" finds it.
- A name after an example cue and a mark ("например, user.address.city", "e.g. a.b",
  "for example: X") is an example of the data, as it is right after the cue: no missing
  definition.
- Loanwords and everyday words the transliteration cannot reach have glossary entries:
  «эмодзи» (emoji), «нечёткий поиск» (fuzzy), «градиентный» (gradient), «зависнуть» (hang),
  «часы» (clock), «пункт» (item), «запаниковать» (panic); permissions, «права доступа» are the
  file mode code writes (`chmod`, `mode`, `perm`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import ROUTER, code_hit, how_order, indexed
from ragstrata.core.evidence import Hit
from ragstrata.core.paths import peripheral_path
from ragstrata.core.values import Direction
from ragstrata.query.facets import facets_of
from ragstrata.text.translit import transliterate_candidates
from test_callers_precision import Repo


@pytest.mark.parametrize(
    ("word", "english"),
    [("таймер", "timer"), ("тайминг", "timing"), ("слайс", "slice"), ("девайс", "device"),
     ("сайз", "size"), ("бэкап", "backup"), ("бэкенд", "backend"),
     ("бэкофф", "backoff")],
)  # fmt: skip
def test_loanwords_spelled_as_english_spells_them(word: str, english: str) -> None:
    assert english in transliterate_candidates(word)


def test_the_silent_e_stays_where_english_keeps_it() -> None:
    # "coder" is no "codr": the e before -er belongs to the word, not to a dropped stem
    assert "coder" in transliterate_candidates("кодер")
    assert "parser" in transliterate_candidates("парсер")


def _concepts(question: str) -> set[str]:
    return {w for group in facets_of(ROUTER.plan(question, None, {})).concepts for w in group}


@pytest.mark.parametrize(
    ("question", "english"),
    [
        ("Как библиотека находит эмодзи в тексте?", "emoji"),
        ("Как работает нечёткий поиск по вариантам?", "fuzzy"),
        ("Как вычисляются цвета для градиентной схемы?", "gradient"),
        ("Не зависнет ли поток, если задача упадёт?", "hang"),
        ("Какие часы берутся по умолчанию?", "clock"),
        ("Сколько пунктов показывается на странице?", "item"),
        ("Что будет, если задача запаникует?", "panic"),
        ("Как ставится таймер до следующего запуска?", "timer"),
        ("Выставляются ли права доступа исходного каталога?", "chmod"),
        ("Does the copy keep the permissions of the source folder?", "mode"),
    ],
)
def test_russian_words_of_behaviour_questions_reach_the_code_words(
    question: str, english: str
) -> None:
    assert english in _concepts(question)


GO_GENERIC = {
    "iter/iter.go": (
        "package iter\n"  # 1
        "\n"  # 2
        "type Iterator[T any] struct{ MaxGoroutines int }\n"  # 3
        "\n"  # 4
        "func ForEach[T any](input []T, f func(*T)) { Iterator[T]{}.ForEach(input, f) }\n"  # 5
        "\n"  # 6
        "func (iter Iterator[T]) ForEach(input []T, f func(*T)) {\n"  # 7
        "\titer.ForEachIdx(input, func(_ int, t *T) { f(t) })\n"  # 8
        "}\n"  # 9
        "\n"  # 10
        "func (iter Iterator[T]) ForEachIdx(input []T, f func(int, *T)) {\n"  # 11
        "\tfor i := range input {\n"  # 12
        "\t\tf(i, &input[i])\n"  # 13
        "\t}\n"  # 14
        "}\n"  # 15
        "\n"  # 16
        "type Client struct{}\n"  # 17
        "\n"  # 18
        "func (c Client) Do() {}\n"  # 19
        "\n"  # 20
        "func Run() { Client{}.Do() }\n"  # 21
        "\n"  # 22
        "type Mapper[T, R any] Iterator[T]\n"  # 23
        "\n"  # 24
        "func (m Mapper[T, R]) Map(input []T) { Iterator[T](m).ForEachIdx(input, nil) }\n"  # 25
        "\n"  # 26
        "func Map[T, R any](input []T) { Mapper[T, R]{}.Map(input) }\n"  # 27
    ),
}


def test_go_generic_receivers_and_values_built_in_place_resolve() -> None:
    repo = Repo("go", GO_GENERIC)
    # the receiver `iter` of type Iterator[T], named like its package
    assert repo.call("iter/iter.go", 8, "iter.ForEachIdx").to_symbol == "iter.Iterator.ForEachIdx"
    # a method of a composite literal, generic or not
    assert repo.precise("iter.Iterator.ForEach") == {"iter/iter.go:5"}
    assert repo.precise("iter.Client.Do") == {"iter/iter.go:21"}
    # a type defined on another, with methods of its own; a conversion to a generic type
    assert repo.precise("iter.Mapper.Map") == {"iter/iter.go:27"}
    assert repo.precise("iter.Iterator.ForEachIdx") == {"iter/iter.go:8", "iter/iter.go:25"}


VENDORED = {
    "clean/css.py": """
        def sanitize_css(style, allowed):
            \"\"\"Keep the declarations of a style attribute whose property is allowed.\"\"\"
            kept = []
            for declaration in style.split(";"):
                prop = declaration.split(":")[0].strip().lower()
                if prop in allowed:
                    kept.append(declaration.strip())
            return "; ".join(kept)
        """,
    "clean/_vendor/htmlparse/filters/sanitizer.py": """
        def sanitize_css(style):
            \"\"\"Sanitize the css of a style attribute: drop declarations not allowed.\"\"\"
            clean = []
            for prop, value in parse_declarations(style):
                if prop.lower() in ALLOWED_CSS_PROPERTIES and value:
                    clean.append(prop + ": " + value + ";")
            return " ".join(clean)

        def parse_declarations(style):
            return [tuple(d.split(":", 1)) for d in style.split(";") if ":" in d]
        """,
}


def test_private_vendor_folders_are_vendored_code() -> None:
    assert peripheral_path("bleach/_vendor/html5lib/filters/sanitizer.py")
    assert peripheral_path("src/__fixtures__/page.js")
    assert not peripheral_path("bleach/_internal/sanitizer.py")


@pytest.mark.parametrize(
    "question",
    [
        "How are the declarations of a style attribute sanitized: which are kept?",
        "Как очищается атрибут style: какие CSS-объявления остаются, а какие выбрасываются?",
    ],
)
def test_the_projects_own_code_leads_before_a_vendored_copy(tmp_path: Path, question: str) -> None:
    with indexed(tmp_path, VENDORED) as repo:
        answer = repo.ask(question).answer
    assert answer.citations[0].path == "clean/css.py", answer.text


INIT = '''\
def __init__(self, tags, strip=False, strip_comments=True, filters=None):
    """The allowed tags; strip removes disallowed tags instead of escaping them."""
    self.tags = tags
    self.strip = strip
    self.strip_comments = strip_comments
    self.filters = filters or []
    self.parser = Parser(tags)
    self.serializer = Serializer()'''
CLEAN = """\
def clean(self, text):
    out = []
    for tag, chunk in split_tags(text):
        if tag is None or tag in self.tags:
            out.append(chunk)
        elif not self.strip:
            out.append(escape(chunk))
    return "".join(out)"""
PARSE_INIT = """\
def __init__(self, pattern):
    self.tokens = []
    for ch in pattern:
        self.tokens.append(STAR if ch == "*" else ch)"""


def _how_lead(question: str, hits: list[Hit]) -> str:
    return how_order(question, hits)[0].symbol or ""


@pytest.mark.parametrize(
    "question",
    [
        "With strip on, how are tags outside the allowed list dropped rather than escaped?",
        # the constructor's docstring lists the steps: its code does none of them
        "When tags are not allowed and strip is on, how are they removed instead of escaped?",
        "Как удаляются запрещённые теги вместо экранирования, если включён strip?",
    ],
)
def test_the_code_using_the_options_leads_before_the_constructor(question: str) -> None:
    hits = [
        code_hit("clean.Cleaner.__init__", "clean/cleaner.py", INIT, kind="method"),
        code_hit("clean.Cleaner.clean", "clean/cleaner.py", CLEAN, kind="method"),
    ]
    assert _how_lead(question, hits) == "clean.Cleaner.clean"


def test_a_constructor_doing_the_work_or_asked_about_keeps_the_lead() -> None:
    made = [
        code_hit("clean.Cleaner.__init__", "clean/cleaner.py", INIT, kind="method"),
        code_hit("clean.Cleaner.clean", "clean/cleaner.py", CLEAN, kind="method"),
    ]
    question = "How is a new cleaner created with its allowed tags and strip options?"
    assert _how_lead(question, made) == "clean.Cleaner.__init__"
    parsing = [
        code_hit("glob.Pattern.__init__", "glob/pattern.py", PARSE_INIT, kind="method"),
        code_hit("glob.Pattern.matches", "glob/pattern.py", CLEAN, kind="method"),
    ]
    assert _how_lead("How are the stars of a pattern turned into tokens?", parsing) == (
        "glob.Pattern.__init__"
    )


TWINS = {
    "cache.go": """
        package cache

        type Cache struct{ items map[string]string }

        // Set stores the value under the key.
        func (c *Cache) Set(key, value string) {
            c.set(key, value)
        }

        func (c *Cache) set(key, value string) {
            if len(c.items) > 100 {
                c.evict()
            }
            c.items[key] = value
        }

        func (c *Cache) evict() {
            for k := range c.items {
                delete(c.items, k)
                return
            }
        }
        """,
}


def test_the_calls_of_a_go_method_are_not_those_of_its_lower_case_twin(tmp_path: Path) -> None:
    with indexed(tmp_path, TWINS) as repo:
        upper = repo.reader.relations("cache.Cache.Set", Direction.CALLEES, ("calls",))
        lower = repo.reader.relations("cache.Cache.set", Direction.CALLEES, ("calls",))
    assert {r.row.to_name for r in upper} == {"c.set"}
    assert "c.evict" in {r.row.to_name for r in lower}
    assert "c.set" not in {r.row.to_name for r in lower}


FMT = """\
fn fmt(&self, fmt: &mut fmt::Formatter) -> fmt::Result {
    fmt.write_str("timed out waiting for connection")?;
    if let Some(ref err) = self.0 {
        write!(fmt, ": {}", err)?;
    }
    Ok(())
}"""
TRY_GET = """\
fn take_idle(&self, mut idle: Vec<Idle>) -> Option<Idle> {
    while let Some(mut item) = idle.pop() {
        if self.manager.is_valid(&mut item).is_ok() {
            return Some(item);
        }
        self.discard(item);
    }
    None
}"""


def test_a_word_meaning_give_back_asks_for_no_output() -> None:
    hits = [
        code_hit("crate::Error::fmt", "src/error.rs", FMT, kind="method"),
        code_hit("crate::Pool::take_idle", "src/lib.rs", TRY_GET, kind="method"),
    ]
    question = (
        "Как пул проверяет, что выдаваемое соединение ещё живо, и что он делает с соединением,"
        " которое эту проверку не прошло?"
    )
    assert _how_lead(question, hits) == "crate::Pool::take_idle"
    # asked how an error is shown, the Display implementation answers
    assert _how_lead("Как выводится текст ошибки соединения?", hits) == "crate::Error::fmt"


FACTORY = {
    "lib/index.js": """
        module.exports = function middlewareWrapper(options) {
          return function corsMiddleware(req, res, next) {
            res.setHeader('Access-Control-Allow-Origin', options.origin);
            next();
          };
        };
        """,
    "lib/defaults.js": """
        module.exports = {
          transformResponse: [function transformResponse(data) {
            return typeof data === 'string' ? JSON.parse(data) : data;
          }],
        };
        """,
}


@pytest.mark.parametrize(
    ("question", "path", "line"),
    [
        ("Where is corsMiddleware defined?", "lib/index.js", 2),
        ("Где определена функция corsMiddleware?", "lib/index.js", 2),
        ("Where is the function transformResponse defined?", "lib/defaults.js", 2),
    ],
)
def test_named_functions_returned_or_listed_are_definitions(
    tmp_path: Path, question: str, path: str, line: int
) -> None:
    with indexed(tmp_path, FACTORY) as repo:
        answer = repo.ask(question).answer
    assert answer.status == "answered", answer.text
    assert (answer.citations[0].path, answer.citations[0].start_line) == (path, line)


LOOKUP = {
    "lib/context.js": """
        function lookup(view, name) {
          let value = view;
          const names = name.split('.');
          for (let i = 0; value != null && i < names.length; i++) {
            value = value[names[i]];
          }
          return typeof value === 'function' ? value.call(view) : value;
        }
        module.exports = { lookup };
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "Как библиотека находит значение переменной с точками в имени (например,"
        " user.address.city) и что делает, если ключа нет?",
        "How does it find the value of a dotted name (e.g. user.address.city) in the view?",
        "How does it find the value of a dotted name, for example: user.address.city?",
    ],
)
def test_a_name_after_an_example_cue_and_a_mark_is_data(tmp_path: Path, question: str) -> None:
    anchors = ROUTER.plan(question, None, {}).query_plan.anchors
    assert [a.subtype for a in anchors if a.value == "user.address.city"] == ["example"]
    with indexed(tmp_path, LOOKUP) as repo:
        answer = repo.ask(question).answer
    assert answer.status != "not_found", answer.text
    assert answer.citations[0].path == "lib/context.js", answer.text
