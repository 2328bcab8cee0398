"""Round twenty-two (issue 23): a how-question in a conversation whose answer would lead with
the definition the previous answer led with is answered by the lines of it that say the
question's words, not by the same card again.

Двадцать второй раунд: вопрос «как…» в продолжение разговора, ответ на который снова начался
бы с той же функции, получает строки этой функции, а не её карточку ещё раз."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import follow_up, method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.query.facets import facets_of, read_facets

FILES = {
    "dirs/unix.py": '''
        import os
        from configparser import ConfigParser
        from pathlib import Path


        def user_folder(key):
            """Read the folder the user set for ``key`` in the desktop's folders file."""
            home = os.environ.get("XDG_CONFIG_HOME", "") or os.path.expanduser("~/.config")
            folders = Path(home) / "user-dirs.dirs"
            if not folders.exists():
                return None
            parser = ConfigParser()
            with folders.open() as stream:
                parser.read_string(f"[top]\\n{stream.read()}")
            if key not in parser["top"]:
                return None
            path = parser["top"][key].strip('"')
            return path.replace("$HOME", os.path.expanduser("~"))


        def music_dir():
            """The user's music folder."""
            return user_folder("XDG_MUSIC_DIR") or os.path.expanduser("~/Music")
    ''',
}
FIRST = {
    "en": "How does it find where the user's Documents or Music folders are on Linux?",
    "ru": "Как на Linux определяется, где лежат папки «Документы» или «Музыка» пользователя?",
}
QUESTIONS = {
    "en": "And how is a folder read from that file handled: are the quotes around it stripped?",
    "ru": "А как обрабатываются кавычки вокруг папки из этого файла?",
}


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_how_follow_up_on_the_same_function_cites_its_answering_lines(
    tmp_path: Path, lang: str
) -> None:
    answer = follow_up(tmp_path, FILES, FIRST[lang], QUESTIONS[lang])
    lead = answer.citations[0]
    assert lead.path == "dirs/unix.py"
    # the line stripping the quotes (17), not the card (6-18)
    assert (lead.start_line, lead.end_line) == (17, 17), answer.text[:400]


def test_a_new_how_question_still_gets_the_function_card(tmp_path: Path) -> None:
    answer = follow_up(tmp_path, FILES, FIRST["en"], FIRST["en"].replace("Music", "Videos"))
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("dirs/unix.py", 6), answer.text[:400]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        # an indirect question after a comma: how it is found out, not where the thing is
        ("Как на Linux определяется, где лежат папки «Документы» пользователя?", {"how"}),
        ("How is it decided, where the cache file lives?", {"how"}),
        # "how to find out where X is defined" asks where it is
        ("Как узнать, где определена функция parse?", {"where"}),
        ("Где определён класс UserService?", {"where"}),
    ],
)
def test_a_where_clause_after_a_comma_leaves_a_how_question_a_how_question(
    question: str, asks: set[str]
) -> None:
    assert read_facets(question).asks == asks


def test_a_value_written_with_its_sigil_is_read_with_it() -> None:
    # `"$HOME"` in the code answers "what happens to $HOME", `XDG_CONFIG_HOME` does not
    assert "$home" in read_facets("What happens to $HOME in that path?").values
    assert "home" not in read_facets("What happens to $HOME in that path?").values
    assert "head" in read_facets("What does it do for HEAD requests?").values


def test_a_docstring_is_no_comment_above_the_first_statement() -> None:
    text = (
        "def load(path):\n"
        '    """Read the folder list from the file."""\n'
        "    base = os.environ.get('BASE', '')\n"
        "    return [line.strip('\"') for line in open(path)]\n"
    )
    row = method_row("cfg.load", "cfg.py", "python", text)
    asked = facets_of(plan("And what happens to the quotes around each folder read?"))
    facets = replace(asked, details=frozenset({"unmarked"}))
    span = answering_lines(row, facets)
    assert span is not None and (span.start_line, span.end_line) == (4, 4)


@pytest.mark.parametrize(
    "question",
    [
        "How can my callback tell it to skip the whole struct?",
        "Does the outer function catch it, or the same function again?",
    ],
)
def test_a_word_describing_a_code_unit_names_no_definition(question: str) -> None:
    # "the whole struct" is any struct as a whole; "the parse function" names `parse`
    assert not [a for a in plan(question).query_plan.anchors if a.type.value == "SYMBOL"]
    named = plan("Where is the parse function defined?").query_plan.anchors
    assert [a.value for a in named if a.type.value == "SYMBOL"] == ["parse"]


@pytest.mark.parametrize(
    "question",
    [
        # a path the question gives as the code's input ("../" before its first word)
        "Как загрузчик шаблонов не даёт имени вроде «../secret.txt» выйти за пределы каталога?",
        'How does the loader stop a name like "../secret.txt" from escaping the folder?',
        "How does it load a file like config.yaml?",
    ],
)
def test_a_file_name_given_as_an_example_is_data_not_a_place_to_look(question: str) -> None:
    asked = plan(question)
    assert asked.intent.value == "CODE_QA"
    assert not [a for a in asked.query_plan.anchors if a.type.value in ("FILE_PATH", "DOC_REF")]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Where is config.yaml loaded?", "config.yaml"),
        ("What is in docs/guide.md?", "docs/guide.md"),
    ],
)
def test_a_file_the_question_names_is_still_a_place(question: str, path: str) -> None:
    anchors = plan(question).query_plan.anchors
    assert [a.value for a in anchors if a.type.value == "FILE_PATH"] == [path]
