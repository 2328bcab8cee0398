"""Plain English -> the words code writes: "tried again" is ``retry``, "time is up" is
``expire``, "turn a string into a Level" is ``parse`` / ``from``.

A Russian question reaches English code through the RU->EN glossary (``query.terms``); an
English one in plain words shared nothing with the code it asks about. The paraphrase table
(``ragstrata/data/glossary/en_code.tsv``, its header documents the format) closes that gap
for the phrases developers ask in: each match adds its code words to the question's search
terms (``TermHit.expansions``, ``source="paraphrase"``, never a key term) and to the group of
the phrase's first content word (``query.facets.concepts_of``).

A question's words match a phrase in any inflected form (``tried`` / ``tries`` -> try,
``is`` / ``was`` -> be, ``entries`` -> entry, ``doesn't`` -> does not); ``...`` in a phrase
skips up to four words ("turn a string like "info" into"). Longest phrase first; matches do
not overlap. A hyphenated word also stands for its parts joined (``re-raise``: ``reraise``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ragstrata.errors import ConfigError
from ragstrata.query.terms import TermHit
from ragstrata.text.plurals import singular_forms
from ragstrata.text.tokens import Token, cyrillic_dominant, tokenize

__all__ = ["Paraphrase", "paraphrase_hits", "paraphrases", "parse_paraphrases"]

_GAP = "..."
_GAP_WORDS = 4  # how many question words a "..." may skip
_IRREGULAR = {
    "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be", "am": "be",
    "ran": "run", "got": "get", "gotten": "get", "gave": "give", "given": "give", "went": "go",
    "gone": "go", "left": "leave", "found": "find", "sent": "send", "made": "make",
    "took": "take", "taken": "take", "did": "do", "done": "do", "does": "do", "wrote": "write",
    "written": "write", "told": "tell", "kept": "keep",
    "came": "come", "won": "win", "broke": "break",
    "threw": "throw", "thrown": "throw", "held": "hold",
    "doesn": "do", "don": "do", "didn": "do", "isn": "be", "aren": "be", "wasn": "be",
    "weren": "be", "couldn": "can", "t": "not",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Paraphrase:
    """A phrase of the table matched in a question: its tokens ``first``..``last``."""

    first: int
    last: int
    phrase: str
    expansions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Entry:
    words: tuple[str, ...]  # base forms; _GAP skips words
    phrase: str
    expansions: tuple[str, ...]


def parse_paraphrases(text: str, origin: str = "<paraphrases>") -> list[_Entry]:
    """The entries of a paraphrase table (``phrase<TAB>expansions``); raises ``ConfigError``
    naming ``origin:line`` for a malformed line."""
    out: list[_Entry] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cols = raw.split("\t")
        expansions = tuple(e.strip() for e in cols[-1].split(",") if e.strip())
        words = tuple(_GAP if w == _GAP else _base_forms(w)[0] for w in _words(cols[0]) if w)
        if len(cols) != 2 or not words or not expansions or words[0] == _GAP:
            raise ConfigError(f"{origin}:{lineno}: expected 'phrase<TAB>expansions', got {raw!r}")
        out.append(_Entry(words, cols[0].strip(), expansions))
    return out


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[_Entry, ...]]:
    ref = resources.files("ragstrata").joinpath("data", "glossary", "en_code.tsv")
    by_first: dict[str, list[_Entry]] = {}
    for entry in parse_paraphrases(ref.read_text(encoding="utf-8"), "en_code.tsv"):
        by_first.setdefault(entry.words[0], []).append(entry)
    # longest phrase first
    return {k: tuple(sorted(v, key=lambda e: -len(e.words))) for k, v in by_first.items()}


def _words(text: str) -> list[str]:
    """The lower-case words of a phrase, ``...`` kept as a word."""
    out: list[str] = []
    for part in text.lower().split():
        out += [_GAP] if part == _GAP else [t.text for t in tokenize(part)]
    return out


@lru_cache(maxsize=8192)
def _base_forms(word: str) -> tuple[str, ...]:
    """``word`` (lower case) and the base forms it may be an inflection of, likeliest first:
    tried -> try; stopped -> stop; used -> use; trying -> try; entries -> entry; was -> be."""
    if word in _IRREGULAR:
        return (_IRREGULAR[word], word)
    forms = [word]
    if len(word) > 3 and word.endswith(("ied", "ies")):
        forms.append(word[:-3] + "y")  # tried, tries -> try
    elif len(word) > 3 and word.endswith("ed"):
        stem = word[:-2]
        forms += [stem, word[:-1]]
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.append(stem[:-1])  # stopped -> stop
    elif len(word) > 5 and word.endswith("ing"):
        stem = word[:-3]
        forms += [stem, stem + "e"]
        if stem[-1] == stem[-2]:
            forms.append(stem[:-1])  # running -> run
    forms += singular_forms(word)
    return tuple(dict.fromkeys(forms))


def paraphrases(tokens: Sequence[Token]) -> list[Paraphrase]:
    """The table's phrases in ``tokens`` (a question's), in order, longest first at each
    word, not overlapping."""
    table = _table()
    bases = [_base_forms(t.text.lower()) for t in tokens]
    found: list[Paraphrase] = []
    i = 0
    while i < len(tokens):
        match = None
        for form in bases[i]:
            for entry in table.get(form, ()):
                last = _fits(entry.words, bases, i)
                if last is not None and (match is None or len(entry.words) > len(match[0].words)):
                    match = (entry, last)
        if match is None:
            i += 1
            continue
        entry, last = match
        found.append(Paraphrase(i, last, entry.phrase, entry.expansions))
        i = last + 1
    return found


def _fits(words: tuple[str, ...], bases: list[tuple[str, ...]], i: int) -> int | None:
    """The index of the last question word when ``words`` match from word ``i``, else None."""
    if not words:
        return i - 1
    head, rest = words[0], words[1:]
    if head == _GAP:
        for skip in range(_GAP_WORDS + 1):
            last = _fits(rest, bases, i + skip)
            if last is not None:
                return last
        return None
    if i >= len(bases) or head not in bases[i]:
        return None
    return _fits(rest, bases, i + 1)


def paraphrase_hits(text: str, tokens: Sequence[Token] | None = None) -> list[TermHit]:
    """The paraphrases of an English question as term hits (spans in ``text``); none for a
    mostly Russian one (the RU->EN glossary reads it)."""
    toks = list(tokens) if tokens is not None else tokenize(text)
    operators = _operators(text)
    if not toks or cyrillic_dominant(toks):
        return operators
    out = operators
    for p in paraphrases(toks):
        start, end = toks[p.first].start, toks[p.last].end
        surface = text[start:end]
        out.append(TermHit(start, end, surface, p.phrase, p.expansions, False, None, "paraphrase"))
    covered = {h.start for h in out}  # "not set" in the table says more than `unset`
    out += [h for h in _negated(text, toks) if h.start not in covered]
    for tok in toks:  # "re-raise" is written `reraise` (or `re_raise`, which splits alike)
        parts = tok.text.split("-")
        if len(parts) > 1 and all(p.isascii() and p.isalpha() for p in parts):
            joined = "".join(parts).lower()
            out.append(
                TermHit(tok.start, tok.end, tok.text, joined, (joined,), False, None, "paraphrase")
            )
    return sorted(out, key=lambda h: h.start)


# an operator the question writes ("compared with ==", «оператор !=») is the method defining it
_OPERATOR = re.compile(r"(?<![=!<>])(?:===?|!==?)(?![=<>])")
_OPERATOR_WORDS = ("eq", "equal", "equals", "__eq__", "partialeq")


def _operators(text: str) -> list[TermHit]:
    return [
        TermHit(m.start(), m.end(), m[0], m[0], _OPERATOR_WORDS, False, None, "paraphrase")
        for m in _OPERATOR.finditer(text)
    ]


_NEGATION = frozenset({"not", "never", "cannot"})
_AUXILIARY = frozenset({"be", "do", "have", "get", "can", "will", "yet", "even", "really"})
_NEGATED_REACH = 2  # the negated word follows the negation within this many words


def _negated(text: str, toks: Sequence[Token]) -> list[TermHit]:
    """A negated word as code writes it: "does not support" -> `unsupported`, "not set" ->
    `unset`, "isn't defined" -> `undefined` (the word with `un`, and its participle)."""
    out = []
    for i, tok in enumerate(toks):
        if _base_forms(tok.text.lower())[0] not in _NEGATION:
            continue
        for nxt in toks[i + 1 : i + 1 + _NEGATED_REACH]:
            word = nxt.text.lower()
            if _base_forms(word)[0] in _AUXILIARY:
                continue
            if not (word.isascii() and word.isalpha()) or len(word) < 3:
                break
            forms = [f"un{word}"]
            if not word.endswith(("ed", "en", "wn")):
                forms.append(f"un{word}d" if word.endswith("e") else f"un{word}ed")
            phrase = text[tok.start : nxt.end]
            out.append(
                TermHit(tok.start, nxt.end, phrase, phrase, tuple(forms), False, None, "paraphrase")
            )
            break
    return out
