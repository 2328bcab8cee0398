"""Kind words narrow the definition kind: "the Value enum", "interface Responder", «перечисление
Value», «макрос ensure» find a definition of that kind even when many others share the name
(``query/kinds.py``, ``data/router/kinds.toml``; real SQLite, hash embedder, the facade)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from ragstrata.app.facade import Ragstrata
from ragstrata.query.kinds import question_kinds, symbol_kinds, word_kinds
from ragstrata.query.router import Router
from ragstrata.settings import EmbedderSettings, Settings


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where is the Value enum defined?", {"Value": ("enum",)}),
        ("where is enum `Value` declared?", {"Value": ("enum",)}),
        ("Где определено перечисление Value?", {"Value": ("enum",)}),
        ("Что содержит интерфейс Responder?", {"Responder": ("interface", "trait")}),
        ("what does the ensure! macro check?", {"ensure": ("macro",)}),
        ("В структуре Engine какие поля?", {"Engine": ("struct", "class")}),
        ("Where is Value defined?", {}),
        ("how does parse_value work with the enum?", {}),  # not next to the name
    ],
)
def test_kind_word_next_to_a_symbol_names_its_kind(
    question: str, expected: dict[str, tuple[str, ...]]
) -> None:
    assert symbol_kinds(Router().plan(question)) == expected


def test_kind_words_inflect_and_collect() -> None:
    assert word_kinds("перечислении") == ("enum",)
    assert word_kinds("макросы") == ("macro",)
    assert word_kinds("banana") == ()
    assert question_kinds("the Engine struct and its interface") == (
        "struct",
        "class",
        "interface",
        "trait",
    )


ALIASES = {
    f"src/m{i}/value.ts": f"/** A value of module {i}. */\nexport type Value = string | number;\n"
    for i in range(12)
}
FILES = {
    **ALIASES,
    "src/kinds/value.ts": """
        /** The kinds a token can have. */
        export enum Value {
          Number,
          Text,
        }
        """,
    "handlers/func.go": """
        package handlers

        // Responder handles one request.
        type Responder func(path string) error
        """,
    "server/iface.go": """
        package server

        // Responder serves requests.
        type Responder interface {
        \tServe(path string) error
        }
        """,
    "src/check.rs": """
        /// Fails with a message unless the condition holds.
        #[macro_export]
        macro_rules! ensure {
            ($cond:expr, $msg:expr) => {
                if !$cond {
                    return Err($msg.into());
                }
            };
        }

        /// Ensures a directory exists, creating it when missing.
        pub fn ensure(path: &str) -> bool {
            !path.is_empty()
        }
        """,
}


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    root = tmp_path_factory.mktemp("kinds")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    repo = Ragstrata(root, Settings(embedder=EmbedderSettings(provider="hash", dimensions=64)))
    repo.index()
    yield repo
    repo.close()


@pytest.mark.parametrize(
    ("question", "path", "kind"),
    [
        ("Where is the Value enum defined?", "src/kinds/value.ts", "enum"),
        ("Где определено перечисление Value?", "src/kinds/value.ts", "enum"),
        ("где объявлен интерфейс Responder?", "server/iface.go", "interface"),
        ("Where is the Responder interface?", "server/iface.go", "interface"),
        ("Где определён макрос ensure?", "src/check.rs", "macro"),
        ("what does the ensure macro do?", "src/check.rs", "macro"),
        ("where is the ensure function defined?", "src/check.rs", "function"),
        ("Где определён макрос ensure! из этого кода?", "src/check.rs", "macro"),
    ],
)
def test_kind_word_narrows_the_definition_found(
    rs: Ragstrata, question: str, path: str, kind: str
) -> None:
    result = rs.ask(question)
    assert result.answer.status != "not_found"
    required = result.evidence.requirements["require_def"].hits
    assert required and all(h.kind == kind for h in required), [(h.kind, h.path) for h in required]
    assert required[0].path == path
    assert result.answer.citations[0].path == path


def test_without_a_kind_word_every_kind_stays(rs: Ragstrata) -> None:
    required = rs.ask("Where is Value defined?").evidence.requirements["require_def"].hits
    assert {h.kind for h in required} == {"type_alias"}  # the many aliases rank first


def test_a_kind_the_name_does_not_have_narrows_nothing(rs: Ragstrata) -> None:
    # a "class" Responder does not exist: the question still finds the Responder definitions
    result = rs.ask("Where is the Responder class defined?")
    assert result.answer.status != "not_found"
    assert result.evidence.requirements["require_def"].hits
