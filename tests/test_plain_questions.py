"""Questions in plain words (issue 23): a how-question asks about behaviour, a follow-up about
one detail is answered by the lines that hold it, an overview names the parts the rest of the
code uses — in Russian and in English."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragstrata import Ragstrata, load_settings, route
from ragstrata.core.values import SymbolMode

ROUTES = '''"""Routes: find the handler for a path."""
from shop.registry import Registry


class Route:
    """One route: a path pattern and its handler."""

    def __init__(self, pattern, handler):
        self.pattern = pattern
        self.handler = handler


def find_handler(table, key, default=None):
    """The handler registered for ``key``."""
    if key is None:
        return default
    found = table.get(key)
    if found is None:
        raise KeyError(f"no handler for {key}")
    return found


def dispatch(registry: Registry, path):
    """Call the handler whose pattern matches the request path."""
    for route in registry.routes:
        if route.pattern == path:
            return route.handler()
    return find_handler(registry.fallbacks, path)
'''

REGISTRY = '''"""The registry of routes."""
import os

def shopMode():
    return os.environ.get("SHOP_MODE", "debug")


class Registry:
    """Holds every route of the application."""

    def __init__(self):
        self.routes = []
        self.fallbacks = {}

    def add(self, route):
        self.routes.append(route)
'''

USERS = """from shop.registry import Registry
from shop.routes import Route


def build():
    registry = Registry()
    registry.add(Route("/users", list))
    return registry
"""

ORDERS = """from shop.registry import Registry
from shop.routes import Route


def build():
    registry = Registry()
    registry.add(Route("/orders", list))
    return registry
"""

EXAMPLE = '''from shop.registry import Registry


class Demo:
    """An example application."""


def one():
    return Demo(), Registry()


def two():
    return Demo()
'''


RUBY = """module Shop
  class Base
    def etag_matches?(list)
      list.include?(@etag)
    end

    def static!(options = {})
      return unless etag_matches?([1])
      halt 304
    end
  end
end
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    repo = tmp_path_factory.mktemp("plain") / "shop"
    files = {
        "shop/__init__.py": '"""A tiny web shop."""\n',
        "shop/routes.py": ROUTES,
        "shop/registry.py": REGISTRY,
        "shop/users.py": USERS,
        "shop/orders.py": ORDERS,
        "examples/a.py": EXAMPLE,
        "examples/b.py": EXAMPLE.replace("Demo", "Demo2"),
        "README.md": "# shop\n\nA tiny web shop.\n",
        "lib/base.rb": RUBY,
        "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\n',
    }
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    settings = load_settings(repo, env={}, overrides={"embedder": {"provider": "hash"}})
    rs = Ragstrata(repo, settings)
    rs.index()
    yield rs
    rs.close()


def _lead(rs: Ragstrata, question: str, session: str | None = None) -> tuple[str, int, int]:
    answer = rs.ask(question, session=session).answer
    assert answer.status != "not_found", answer.text
    first = answer.citations[0]
    return first.path, first.start_line, first.end_line


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Как gin выбирает, каким способом разбирать тело запроса?", "CODE_QA"),
        ("Какие строки библиотека считает истиной?", "CODE_QA"),
        ("How does it decide which route matches?", "CODE_QA"),
        ("Как установить gin?", "PROJECT_MISC"),
        ("How do I install it?", "PROJECT_MISC"),
    ],
)
def test_a_question_about_behaviour_goes_to_the_code(question: str, intent: str) -> None:
    assert route(question)["intent"] == intent


@pytest.mark.parametrize(
    ("first", "follow_up", "lines"),
    [
        ("where is find_handler defined?", "and what does it return if the key is None?", (15, 16)),
        (
            "где определена функция find_handler?",
            "а что она вернёт, если key равен None?",
            (15, 16),
        ),
        ("where is find_handler defined?", "and what happens if no handler is found?", (18, 19)),
    ],
)
def test_a_detail_follow_up_cites_the_lines_that_answer_it(
    shop: Ragstrata, first: str, follow_up: str, lines: tuple[int, int]
) -> None:
    session = f"detail-{abs(hash((first, follow_up)))}"
    assert _lead(shop, first, session)[:2] == ("shop/routes.py", 13)  # the definition card
    path, start, end = _lead(shop, follow_up, session)
    assert path == "shop/routes.py"
    assert lines[0] - 1 <= start and end <= lines[1] + 2, (start, end)


@pytest.mark.parametrize(
    "question", ["What are the main parts of shop?", "Из каких основных частей состоит shop?"]
)
def test_an_overview_leads_with_the_parts_the_code_uses(shop: Ragstrata, question: str) -> None:
    answer = shop.ask(question).answer
    cited = [c.path for c in answer.citations[:3]]
    # the README's own description first, then the types the rest of the code uses most
    assert cited[0] == "README.md", answer.text
    assert cited[1] in ("shop/registry.py", "shop/routes.py"), answer.text
    assert not any(p.startswith("examples/") for p in cited)


def test_a_how_question_leads_with_the_function_that_does_the_work(shop: Ragstrata) -> None:
    path, start, _ = _lead(shop, "How does it call the handler whose pattern matches a path?")
    assert (path, start) == ("shop/routes.py", 23)


@pytest.mark.parametrize(
    ("question", "line"),
    [("Where is etag_matches? defined?", 3), ("Где определён метод static!?", 7)],
)
def test_a_ruby_name_keeps_its_mark(shop: Ragstrata, question: str, line: int) -> None:
    assert _lead(shop, question)[:2] == ("lib/base.rb", line)


@pytest.mark.parametrize(
    ("asked", "defined"), [("etag_matches", "etag_matches?"), ("static", "static!")]
)
def test_an_exact_lookup_finds_the_name_without_its_mark(
    shop: Ragstrata, asked: str, defined: str
) -> None:
    match = shop.reader.resolver.resolve(asked, modes=(SymbolMode.EXACT,))
    assert match.best is not None and match.best.name == defined


def test_an_environment_variable_is_no_variable_of_the_same_letters(shop: Ragstrata) -> None:
    """``SHOP_MODE`` is read from the environment; ``shopMode`` is a function: no fuzzy match
    of one for the other."""
    assert not shop.reader.resolver.resolve("SHOP_MODE").found
    assert shop.reader.resolver.resolve("shopMode").found


@pytest.mark.parametrize(
    "question",
    [
        "How does it find the handler for a key like OrderHandler?",
        "Как найти обработчик для ключа вроде OrderHandler?",
        "How does it find the handler for a key such as OrderHandler?",
        "How does it find the handler for a key like ${OrderHandler}?",
        "Как найти обработчик для ключа вроде «OrderHandler»?",
    ],
)
def test_a_name_given_as_an_example_is_no_missing_definition(
    shop: Ragstrata, question: str
) -> None:
    """The user made ``OrderHandler`` up to show what a key looks like: nothing defines it,
    and the answer is about finding handlers, not "not found"."""
    anchors = {a["value"]: a["subtype"] for a in route(question)["query_plan"]["anchors"]}
    assert anchors["OrderHandler"] == "example"
    assert _lead(shop, question)[0] == "shop/routes.py"
    # asked for by name, it is still missing
    assert shop.ask("Where is OrderHandler defined?").answer.status == "not_found"


@pytest.mark.parametrize(
    "question",
    [
        "In which order does it try the handlers for a key?",
        "В каком порядке он перебирает обработчики для ключа?",
    ],
)
def test_a_question_about_order_asks_how_the_code_behaves(question: str) -> None:
    from ragstrata.query.facets import read_facets

    assert "how" in read_facets(question, False).asks


@pytest.mark.parametrize(
    ("first", "follow_up"),
    [
        ("where is find_handler defined?", "and how is a key of None treated?"),
        ("где определена функция find_handler?", "а как ищется обработчик, если key равен None?"),
    ],
)
def test_a_follow_up_asking_how_cites_the_topic_s_lines_not_its_card(
    shop: Ragstrata, first: str, follow_up: str
) -> None:
    """«а как …» opens a how-question about the topic of the conversation: the lines that
    answer it lead (the card was the first answer)."""
    from ragstrata.query.facets import read_facets

    assert "how" in read_facets(follow_up, False).asks
    session = f"how-{abs(hash((first, follow_up)))}"
    assert _lead(shop, first, session)[:2] == ("shop/routes.py", 13)
    path, start, end = _lead(shop, follow_up, session)
    assert (path, start) == ("shop/routes.py", 15), (path, start, end)


@pytest.mark.parametrize(
    ("question", "expansion"),
    [
        ("Как semver раскрывает диапазон с тильдой вроде ~1.2?", "tilde"),
        ("а что если в шаблоне после звёздочки есть ещё текст?", "star"),
        ("Как кэш удаляет устаревшие записи в фоне?", "background"),
        ("Как кэш удаляет устаревшие записи в фоне?", "expired"),
    ],
)
def test_russian_words_for_symbols_and_stale_entries_reach_the_code(
    question: str, expansion: str
) -> None:
    assert expansion in route(question)["query_plan"]["expansions"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("When does the text formatter put quotes around a value?", "CODE_QA"),
        ("When does a version with a prerelease tag satisfy a requirement?", "CODE_QA"),
        ("When was version 2 released?", "PROJECT_MISC"),
        ("How can a job be skipped when its previous run has not finished?", "CODE_QA"),
        ("How can I install it?", "PROJECT_MISC"),
    ],
)
def test_a_when_question_about_behaviour_goes_to_the_code(question: str, intent: str) -> None:
    """ "When does X …?" asks when the code does something; "When was it released?" asks
    about the project's history. "How can a job be skipped …" asks how the code behaves;
    "How can I …" how the user does something."""
    assert route(question)["intent"] == intent
