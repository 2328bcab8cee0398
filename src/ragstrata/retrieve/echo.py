"""Code that quotes the question is not evidence for it.

A repository may hold the very question being asked as a string: a list of demo or example
questions, an eval set, a test of the router. Lexically (and often densely) such a constant is
the best match there is, and it answers nothing. A code hit (C1 definition, C3 chunk) whose text
holds the whole question inside a string literal is moved behind every other hit, in its order;
documentation hits are left alone (a FAQ that repeats the question is a fine answer), and so is
a question that only shares part of its words with a literal (an error message quoted in a
longer question is what the user is looking for).

Code that writes Russian only inside its strings (a locale's month names, messages translated
for the user) matches a Russian question's words by what the code prints, not by what it
does: for a question about how the code works such a hit is moved behind the others
(:func:`demote_translations`), unless the question quotes a string itself. Russian comments
and docstrings are prose about the code and keep their place.

Code beside the project's own (an example, a benchmark keeping an old copy of the library, the
docs site's bundled build, a vendored copy) shares the library's names and words: for a
how-question it can fill the whole evidence list, and the project's own code never reaches the
answer. Such code hits follow the project's own (:func:`own_code_first`), unless the question
asks about them («в примере», "the benchmark").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragstrata.core.evidence import Hit
from ragstrata.core.paths import peripheral_path

__all__ = [
    "ASIDE_REASON",
    "ECHO_REASON",
    "TRANSLATION_REASON",
    "demote_echoes",
    "demote_translations",
    "own_code_first",
    "quotes_question",
]

ECHO_REASON = "echo: quotes the question"
TRANSLATION_REASON = "translation: the question's language only in its strings"
ASIDE_REASON = "aside: code beside the project's own"
_CODE_LAYERS = frozenset({"C1", "C3"})
_QUOTES = frozenset("'\"`«“")
_MIN_WORDS = 4
_SPACE = re.compile(r"\s+")


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip()


def _question_key(question: str) -> str | None:
    """The folded question without closing punctuation, or None when it is too short to be
    told from an ordinary phrase."""
    key = _normal(question).rstrip(" ?!.…")
    return key if len(key.split()) >= _MIN_WORDS else None


def quotes_question(text: str, question: str) -> bool:
    """True when ``text`` holds the whole ``question`` right after a quote character."""
    key = _question_key(question)
    if key is None:
        return False
    body = _normal(text)
    start = body.find(key)
    while start != -1:
        if start > 0 and body[start - 1] in _QUOTES:
            return True
        start = body.find(key, start + 1)
    return False


def demote_echoes(hits: Sequence[Hit], question: str) -> list[Hit]:
    """``hits`` with the code hits that quote ``question`` moved last (see the module)."""
    if _question_key(question) is None:
        return list(hits)
    kept: list[Hit] = []
    echoes: list[Hit] = []
    for hit in hits:
        if hit.layer in _CODE_LAYERS and hit.text and quotes_question(hit.text, question):
            echoes.append(replace(hit, reasons=(*hit.reasons, ECHO_REASON)))
        else:
            kept.append(hit)
    return kept + echoes


_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_DOC_QUOTES = re.compile(r"\"\"\"|\'\'\'")  # a docstring's text is prose, not a literal
_LITERAL = re.compile(r""""[^"\n]*"|'[^'\n]*'|`[^`\n]*`""")
_QUOTED = re.compile(r"""["'«“`][^"'»”`]+["'»”`]""")


def writes_only_in_strings(text: str) -> bool:
    """True when ``text`` (code) writes Cyrillic, and only inside string literals."""
    if not _CYRILLIC.search(text):
        return False
    return not _CYRILLIC.search(_LITERAL.sub(" ", _DOC_QUOTES.sub(" ", text)))


def demote_translations(hits: Sequence[Hit], question: str) -> list[Hit]:
    """``hits`` with the code hits that write Russian only in strings moved last, for a
    Russian question quoting no string (see the module)."""
    if not _CYRILLIC.search(_QUOTED.sub(" ", question)) or _QUOTED.search(question):
        return list(hits)
    kept: list[Hit] = []
    moved: list[Hit] = []
    for hit in hits:
        if hit.layer in _CODE_LAYERS and hit.text and writes_only_in_strings(hit.text):
            moved.append(replace(hit, reasons=(*hit.reasons, TRANSLATION_REASON)))
        else:
            kept.append(hit)
    return kept + moved


def own_code_first(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` with the code hits beside the project's own (examples, benchmarks, docs
    sites, vendored copies: :func:`~ragstrata.core.paths.peripheral_path`) moved after the
    others, in their order (see the module)."""
    kept: list[Hit] = []
    moved: list[Hit] = []
    for hit in hits:
        if hit.layer.startswith("C") and peripheral_path(hit.path):
            moved.append(replace(hit, reasons=(*hit.reasons, ASIDE_REASON)))
        else:
            kept.append(hit)
    return kept + moved
