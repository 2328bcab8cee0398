"""Setup questions (install / build / run) route to PROJECT_MISC, not to doc generation, in
Russian and English; explicit documentation requests still route to GENERATE_DOCS_FROM_CODE."""

from __future__ import annotations

import pytest

from ragstrata.query.models import Intent
from ragstrata.query.router import Router


@pytest.fixture(scope="module")
def router() -> Router:
    return Router()


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Как установить gin?", Intent.PROJECT_MISC),
        ("Что нужно сделать для установки по README?", Intent.PROJECT_MISC),
        ("Как установить fd, что пишут в ридми?", Intent.PROJECT_MISC),
        ("Как собрать проект из исходников?", Intent.PROJECT_MISC),
        ("How do I install fd on Ubuntu?", Intent.PROJECT_MISC),
        ("How do I add commons-lang to my Maven project?", Intent.PROJECT_MISC),
        ("What does the README say about installation?", Intent.DOCS_QA),
        ("есть ли в README раздел про установку?", Intent.DOCS_QA),
        ("Сгенерируй документацию по установке", Intent.GENERATE_DOCS_FROM_CODE),
        ("Напиши документацию для класса Engine", Intent.GENERATE_DOCS_FROM_CODE),
        ("Generate documentation for the installation module", Intent.GENERATE_DOCS_FROM_CODE),
        ("как сгенерировать токен в auth модуле?", Intent.CODE_QA),
    ],
)
def test_setup_questions_are_not_doc_generation(
    router: Router, question: str, intent: Intent
) -> None:
    assert router.plan(question).intent is intent


@pytest.mark.parametrize(
    ("question", "name"),
    [("Где определена функция _refine?", "_refine"), ("Who calls _safeParse?", "_safeParse")],
)
def test_a_leading_underscore_name_is_a_symbol(router: Router, question: str, name: str) -> None:
    symbols = [
        a.value for a in router.plan(question).query_plan.anchors if a.type.value == "SYMBOL"
    ]
    assert name in symbols


@pytest.mark.parametrize(
    "question",
    [
        # "what happens if …" asks how the code behaves, in either language (not the README)
        "Что происходит, если в ответе есть заголовок Link?",
        "Что будет, если сервер вернёт 500?",
        "Что случится, если файл удалят во время индексации?",
        "What will happen if the cache folder is read-only?",
    ],
)
def test_what_happens_if_asks_about_the_code(router: Router, question: str) -> None:
    assert router.plan(question).intent is Intent.CODE_QA


@pytest.mark.parametrize(
    "question",
    [
        "What happens if I install it with pip on Windows?",
        "Что будет, если обновить версию Python?",
    ],
)
def test_what_happens_if_about_setup_stays_a_setup_question(router: Router, question: str) -> None:
    assert router.plan(question).intent is Intent.PROJECT_MISC
