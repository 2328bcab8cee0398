"""The question's words in a line of code: stems, short names, punctuation, values.

Code writes a question's words shortened (``str`` for "string", ``padLen``), split
(``HandleMethodNotAllowed``), as punctuation literals (``':'`` for "colon") and as values
(``12``, ``"AM"``). These helpers compare them by stem (:func:`stem`), word group by word group
(:class:`Asked`): the answer graphs' detail lines, how-ranking and section matching read a
question's words through them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import pairwise

from ragstrata.core.question import QuestionFacets

__all__ = [
    "ENDINGS",
    "STEM",
    "Asked",
    "joined_name",
    "line_stems",
    "names_project",
    "phrases_in",
    "stem",
    "stem_groups",
    "values_in",
    "word_stems",
    "words_in",
]

STEM = 4  # words compared by their first letters: "closing" ~ "close", "methods" ~ "method"
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")


def word_stems(text: str) -> set[str]:
    """The stems of the words of ``text`` (identifier parts split: ``HandleMethodNotAllowed``
    -> ``hand``, ``meth``, ``not``, ``allo``), words under three letters left out."""
    return {stem(w) for w in _WORD.findall(text) if len(w) >= 3}


def words_in(text: str, groups: Sequence[AbstractSet[str]]) -> int:
    """How many of the question's word groups (:func:`stem_groups`) ``text`` carries, its
    short names (``val``) read as their words."""
    stems = word_stems(text) | _short_names(text)
    return sum(1 for g in groups if g & stems)


def stem(word: str) -> str:
    """The first :data:`STEM` letters of ``word``, lower-case; a four-letter plural of a
    three-letter word is that word ("days" -> ``day``, "keys" -> ``key``; not "less")."""
    low = word.lower()
    if len(low) == STEM and low.endswith("s") and not low.endswith("ss"):
        return low[:3]
    return low[:STEM]


# punctuation a question names in words, and the character literal a line writes it as:
# "more than three colons" is answered by `"too many ':' characters"`
_PUNCTUATION = {
    ":": "colo",
    ";": "semi",
    ",": "comm",
    "/": "slas",
    "\\": "back",
    "\\\\": "back",  # as an escaped literal writes it: `'\\'`
    "$": "doll",
    ".": "dot",
    "-": "hyph",
    "+": "plus",
    "_": "unde",
    " ": "spac",
    "|": "pipe",
    "=": "equa",
    "*": "star",
    "?": "ques",
    "#": "hash",
    "%": "perc",
    "~": "tild",
    "^": "care",
    "&": "ampe",
    '"': "quot",  # `.strip('"')` strips the quotes
    "'": "quot",
    "\\n": "newl",
    "\\t": "tab",
}
_LITERAL = re.compile(r"""(['"]) ?(\\?.) ?\1""")  # `", "` writes a comma as `","` does


# the short names code writes for a word a question spells out, as a whole name (`type(s) is
# str` answers "a plain string", `len(x)` "the length"; `padLen` is no length): stems, so a
# question's `len` is the same word
_IDENTIFIER = re.compile(r"(?<![\w$])[a-z_]\w*")
_ABBREVIATED = {
    "str": "stri",
    "int": "inte",
    "num": "numb",
    "len": "leng",
    "arg": "argu",
    "args": "argu",
    "msg": "mess",
    "val": "valu",
    "buf": "buff",
    "dir": "dire",
    "ctx": "cont",
    "idx": "inde",
    "obj": "obje",
    "cfg": "conf",
}


# the same inside a name: `MaxInterval` says "the maximum interval"
_PART_ABBREVIATED = {"max": "maxi", "min": "mini"}


def _short_names(text: str) -> set[str]:
    """The stems of the words ``text``'s whole short names stand for (``str`` -> ``stri``)."""
    return {_ABBREVIATED[w] for w in _IDENTIFIER.findall(text.lower()) if w in _ABBREVIATED}


def line_stems(line: str) -> set[str]:
    """:func:`word_stems` of a line of code, with the words its short names stand for
    (``str`` -> ``stri``) and the names of the punctuation characters it writes as literals
    (``b':'`` -> ``colo``)."""
    stems = word_stems(line) | _short_names(line)
    stems |= {_PART_ABBREVIATED[s] for s in stems if s in _PART_ABBREVIATED}
    for _, char in _LITERAL.findall(line):
        name = _PUNCTUATION.get(char)
        if name:
            stems.add(name)
    return stems


# two words are one when they differ by an ending at most ("walking" and walk.rs; "auth" is no
# "authorization")
ENDINGS = frozenset(
    {"", "s", "es", "e", "r", "rs", "d", "er", "ers", "or", "ors", "ing", "ings", "ed", "ion",
     "ions", "y", "ies"}
)  # fmt: skip


def joined_name(name: str) -> str:
    """``name`` in lower case without ``-`` and ``_``."""
    return name.lower().replace("-", "").replace("_", "")


def names_project(word: str, own: AbstractSet[str]) -> bool:
    """True when ``word`` is one of the project's names ``own`` (lower-case), inflected or
    hyphenated ("multi-errors" of go-multierror; not "route" of `router`)."""
    low = word.lower()
    joined = joined_name(low)
    return low in own or any(
        joined.startswith(n) and joined[len(n) :] in ENDINGS
        for n in map(joined_name, own)
        if len(n) >= STEM
    )


def stem_groups(concepts: Sequence[AbstractSet[str]], ignore: Iterable[str] = ()) -> list[set[str]]:
    """The question's word groups (:attr:`QuestionFacets.concepts`) as stems, without the
    stems of ``ignore`` (the project's names); empty groups and repeated ones left out."""
    ignored = {stem(w) for w in ignore}
    groups = ({stem(w) for w in c if len(w) >= 3} - ignored for c in concepts)
    # a word asked twice («обрабатывается …, обработчик»: handle, process) is one word
    unique = {frozenset(g): g for g in groups if g}
    return list(unique.values())


def phrases_in(text: str, phrases: frozenset[tuple[str, str]]) -> int:
    """How many of the question's two-word phrases ``text`` writes as adjacent parts of its
    words (``INDEX_NOT_FOUND`` for "not found")."""
    if not phrases:
        return 0
    words = [w.lower() for w in _WORD.findall(text)]
    return len(phrases & set(pairwise(words)))


@dataclass(frozen=True, slots=True)
class Asked:
    """The question's content words as stems (:attr:`stems`), grouped by the word of the
    question each came from (:attr:`groups`): a Russian word with its English terms
    («сжатие» -> compression, gzip, deflate) is one word asked, however many of its terms a
    line writes."""

    stems: frozenset[str]
    groups: tuple[frozenset[str], ...]

    @classmethod
    def of(cls, facets: QuestionFacets, own: AbstractSet[str] = frozenset()) -> Asked:
        """The words ``facets`` ask about, without ``own`` (the stems of a definition's own
        name: it says nothing about a detail of it)."""
        stems = frozenset(_term_stem(t) for t in facets.terms if len(t) >= 3) - own
        groups = [
            frozenset(_term_stem(w) for w in c if len(w) >= 3) & stems for c in facets.concepts
        ]
        grouped = frozenset().union(*groups)
        groups += [frozenset({s}) for s in sorted(stems - grouped)]  # a term of no group
        return cls(stems, tuple(g for g in groups if g))

    def said(self, found: AbstractSet[str]) -> int:
        """How many of the asked words ``found`` (a line's stems) says: a group counts once."""
        return sum(1 for g in self.groups if g & found)


def _term_stem(term: str) -> str:
    """A question term's stem as code abbreviates it (``string`` -> ``stri``, as ``str``)."""
    return _ABBREVIATED.get(stem(term), stem(term))


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_STRING = re.compile(r"""(['"`])([^'"`\\]{1,40})\1""")
_HEX = re.compile(r"(?<![\w.])0[xX]([0-9a-fA-F]+)(?![\w.])")


def values_in(
    line: str, values: frozenset[str], characters: frozenset[str] = frozenset()
) -> set[str]:
    """The question's ``values`` ``line`` writes as a literal: a whole string (``"AM"``) or a
    number (``12``; "codes 128 to 159" in ``0x80 <= n <= 0x9F`` too); and the ``characters``
    it names in words (each name as the characters it may mean) the line writes as a short
    literal (`'\\\\'`, `"\\n"`, `"**"`)."""
    found: set[str] = set()
    if values:
        found = {m.group(2).lower() for m in _STRING.finditer(line)}
        found |= set(_NUMBER.findall(line))
        found |= {str(int(m.group(1), 16)) for m in _HEX.finditer(line)}
        found &= values
    if characters:
        written = {c for m in _SHORT_LITERAL.finditer(line) for c in _unescaped(m.group(2))}
        found |= {name for name in characters if written.intersection(name)}
    return found


# a literal of up to three characters, escapes included (`'\\\\'`, `"\\r\\n"`, `'\\x00'`)
_SHORT_LITERAL = re.compile(
    r"""(['"`])((?:\\(?:x[0-9a-fA-F]{2}|u\{?[0-9a-fA-F]{4}\}?|.)|(?!\1)[^\\\n]){1,3})\1"""
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\x00", "b": "\b", "f": "\f", "v": "\v"}


def _unescaped(text: str) -> str:
    """A literal's characters with its escapes read (``\\n`` a newline, ``\\x00`` a NUL)."""
    out: list[str] = []
    k = 0
    while k < len(text):
        char = text[k]
        if char != "\\" or k + 1 == len(text):
            out.append(char)
            k += 1
            continue
        code = text[k + 1]
        if code in "xu" and (digits := re.match(r"\{?([0-9a-fA-F]{2,4})\}?", text[k + 2 :])):
            out.append(chr(int(digits.group(1), 16)))
            k += 2 + digits.end()
            continue
        out.append(_ESCAPES.get(code, code))
        k += 2
    return "".join(out)
