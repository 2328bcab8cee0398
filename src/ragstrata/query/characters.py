"""The characters a question names in words: "a value with a comment after it" is no
character, but "does it end with a newline?", «экранирована обратным слешем», "three stars in
a row" each name one the code writes as a literal (`"\\n"`, `'\\\\'`, `'*'`).

The names are the data of ``questions.toml``'s ``[values.characters]``: each entry's key is
the characters one name may mean ("скобка": any bracket), its values the names as word
sequences, Russian words in their dictionary forms. A question's words are read as lemmas
(English plurals too: "stars"), the longest name first; a name under the empty key ("entry
point", «точка входа») is something else and names no character.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ragstrata.query.lexicon import QTok, question_data
from ragstrata.text.morph import lemmatize

__all__ = ["named_characters"]


def named_characters(toks: Sequence[QTok]) -> frozenset[str]:
    """The characters the question of ``toks`` names: one string per name, its characters the
    alternatives a literal of the code may write ("bracket": ``[]``)."""
    lemmas = [lemmatize(t.text.lower()) for t in toks]
    names = _names()
    found: set[str] = set()
    k = 0
    while k < len(lemmas):
        for words, chars in names:
            if _reads(lemmas, k, words):
                if chars:
                    found.add(chars)
                k += len(words)
                break
        else:
            k += 1
    return frozenset(found)


def _reads(lemmas: list[str], k: int, words: tuple[str, ...]) -> bool:
    """True when the lemmas from ``k`` on are ``words`` (an English word plural too)."""
    if k + len(words) > len(lemmas):
        return False
    return all(
        have == want or (have.isascii() and have in (want + "s", want + "es"))
        for have, want in zip(lemmas[k : k + len(words)], words, strict=True)
    )


@lru_cache(maxsize=1)
def _names() -> tuple[tuple[tuple[str, ...], str], ...]:
    """Every name as its lemmas with the characters it means, the longest names first."""
    table: dict[str, list[str]] = question_data()["values"]["characters"]
    names = {
        tuple(lemmatize(w) for w in name.lower().split()): chars
        for chars, listed in table.items()
        for name in listed
    }
    return tuple(sorted(names.items(), key=lambda item: -len(item[0])))
