"""Cue words and phrases matched over question tokens, with no morphology per question.

Russian cue words match every inflected form of their lexeme: at load time each word is
lemmatised and expanded into all its forms with pymorphy3 (``ragstrata.text.morph``), so
matching a question is a set look-up per token. English words match as written, or by prefix
when written ``word*``. A multi-word cue matches its words in order with at most ``max_gap``
tokens between ("to" only right after the word before it, unless the cue writes ``* to``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.text.morph import dictionary_pos, fold
from ragstrata.text.tokens import has_cyrillic, tokenize

__all__ = [
    "Lexicon",
    "QTok",
    "WordSet",
    "cue_forms",
    "first_verb",
    "fold",
    "query_tokens",
    "question_data",
]


@lru_cache(maxsize=1)
def question_data() -> dict[str, Any]:
    """``data/router/questions.toml``: the cues and values a question's facets are read by."""
    ref = resources.files("ragstrata").joinpath("data", "router", "questions.toml")
    return tomllib.loads(ref.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- morphology adapter


@lru_cache(maxsize=16384)
def cue_forms(word: str) -> frozenset[str]:
    """Every folded form that should match the cue word ``word``."""
    w = fold(word)
    if not has_cyrillic(w):
        return frozenset({w})
    try:
        from ragstrata.text.morph import lemmatize, lexeme_forms
    except ImportError:  # pragma: no cover - the morph module ships with the package
        return frozenset({w})
    forms = lexeme_forms(lemmatize(w)) | lexeme_forms(w)
    # a one-letter form of a longer word is another word: the dictionary's archaic «к» of
    # «как» is the preposition «к» («к консоли не подключён» is no «как подключить»)
    return frozenset({w}) | frozenset(f for f in forms if len(f) > 1 or len(w) == 1)


# ---------------------------------------------------------------- tokens and lexicons


@dataclass(frozen=True, slots=True)
class QTok:
    """A question token: folded text and its code-point span in ``raw``."""

    text: str
    start: int
    end: int
    surface: str


BACKTICK_RE = re.compile(r"(?<!`)(`++)(.*?[^`])\1(?!`)", re.DOTALL)
"""A run of N backticks up to the next run of exactly N (possessive: no quadratic
backtracking); group 2 is the code inside."""


def code_spans(raw: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of ``raw``'s backticked code, backticks included."""
    return [(m.start(), m.end()) for m in BACKTICK_RE.finditer(raw)]


# a glob's wildcards and braces: `*.js`, `src/**`, `file{1..3}.txt` (not `*args`, `**kw`)
_GLOB_RE = re.compile(r"(?:^|/)\*\*(?:/|$)|\*\.\w|/\*|\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")


def is_glob(code: str) -> bool:
    """True for a glob pattern (one word with a wildcard or a brace list): a value the
    question shows, no file or name it is about."""
    return bool(_GLOB_RE.search(code)) and not any(c.isspace() for c in code)


def without_globs(raw: str) -> str:
    """``raw`` with each backticked glob blanked (same length, so offsets hold)."""
    out = raw
    for m in BACKTICK_RE.finditer(raw):
        if is_glob(m.group(2).strip()):
            out = out[: m.start()] + " " * (m.end() - m.start()) + out[m.end() :]
    return out


# English negative contractions, read as their two words ("isn't" -> is not): the tokenizer
# splits them at the apostrophe into "isn" and "t"
_CONTRACTED = {"isn": "is", "aren": "are", "wasn": "was", "weren": "were", "doesn": "does",
               "don": "do", "didn": "did", "hasn": "has", "haven": "have", "hadn": "had",
               "can": "can", "couldn": "could", "shouldn": "should", "wouldn": "would",
               "won": "will", "mustn": "must", "needn": "need"}  # fmt: skip
_CONTRACTION_RE = re.compile(r"\b(\w+?n)['’]t\b", re.IGNORECASE)  # can't: ca-n't


def uncontracted(text: str) -> str:
    """``text`` with its English negative contractions written out ("doesn't" -> "does
    not"), as :func:`query_tokens` reads them; for cue phrases written with them."""

    def full(m: re.Match[str]) -> str:
        base = _CONTRACTED.get(m.group(1).lower())
        return m.group(0) if base is None else f"{base} not"  # as query_tokens reads it

    return _CONTRACTION_RE.sub(full, text)


def query_tokens(raw: str, skip: Sequence[tuple[int, int]] = ()) -> list[QTok]:
    """Tokens of ``raw`` for cue matching, leaving out those inside the ``skip`` spans; an
    English negative contraction is its two words ("isn't" -> ``is``, ``not``)."""
    out: list[QTok] = []
    for tok in tokenize(raw):
        if any(s <= tok.start < e for s, e in skip):
            continue
        if tok.text.lower() == "t" and out and raw[tok.start - 1 : tok.start] in ("'", "’"):
            base = _CONTRACTED.get(out[-1].surface.lower())
            if base is not None and out[-1].end == tok.start - 1:
                out[-1] = QTok(base, out[-1].start, out[-1].end, out[-1].surface)
                out.append(QTok("not", tok.start, tok.end, tok.text))
                continue
        out.append(QTok(fold(tok.text), tok.start, tok.end, tok.text))
    return out


@dataclass(frozen=True, slots=True)
class _Word:
    forms: frozenset[str]
    prefix: str | None

    def match(self, tok: str) -> bool:
        if self.prefix is not None:
            return tok.startswith(self.prefix)
        return tok in self.forms


# a full (attributive) participle of a Russian verb: «установленных флагов» are flags that are
# set, not an installation; «пакет установлен» (a short one) still reads as the verb
_FULL_PARTICIPLE = re.compile(
    r"(?:нн|вш|ющ|ущ|ащ|ящ)(?:ый|ий|ая|яя|ое|ее|ые|ие|ого|его|ой|ей|ом|ем|ому|ему|ую|юю|ым|им|ыми|ими|ых|их|ою|ею)$"
)
_INFINITIVE = re.compile(r"(?:ть|ться|ти|тись|чь|чься)$")


def _word(spec: str) -> _Word:
    s = fold(spec.strip())
    if s.endswith("*") and len(s) > 2:
        return _Word(frozenset(), s[:-1])
    forms = cue_forms(s)
    if has_cyrillic(s) and _INFINITIVE.search(s):  # a verb cue: its participles are adjectives
        forms = frozenset(f for f in forms if not _FULL_PARTICIPLE.search(f)) | {s}
    return _Word(forms, None)


class WordSet:
    """Single words (any inflection for Russian, ``word*`` prefixes for English)."""

    def __init__(self, words: Iterable[str]) -> None:
        forms: set[str] = set()
        prefixes: list[str] = []
        for spec in words:
            w = _word(spec)
            if w.prefix is not None:
                prefixes.append(w.prefix)
            else:
                forms |= w.forms
        self._forms = frozenset(forms)
        self._prefixes = tuple(prefixes)

    def __contains__(self, tok: object) -> bool:
        if not isinstance(tok, str):
            return False
        return tok in self._forms or (bool(self._prefixes) and tok.startswith(self._prefixes))


@dataclass(frozen=True, slots=True)
class _Phrase:
    label: int
    words: tuple[_Word, ...]
    text: str
    starred: tuple[bool, ...] = ()  # per word: written after a ``*`` (any words may come between)


def _verb_pos(tok: QTok) -> str | None:
    """``VERB`` for a Russian finite verb, ``INFN`` for an infinitive, else None."""
    pos = dictionary_pos(tok.surface) if has_cyrillic(tok.surface) else None
    return pos if pos in ("VERB", "INFN") else None


def first_verb(toks: Sequence[QTok]) -> str | None:
    """The kind of the first Russian verb of ``toks``: ``VERB`` (finite: «Как log не даёт
    установить …» asks how the code behaves), ``INFN`` («Как установить …»: how to do
    something), or None."""
    return next((pos for tok in toks if (pos := _verb_pos(tok))), None)


def _clause_verb(tok: QTok) -> bool:
    """True for a Russian finite verb: a phrase's words never match across one."""
    return _verb_pos(tok) == "VERB"


_ATTACHED = frozenset({"to", "for"})  # cue words matched only right after the word before


class Lexicon:
    """Phrases with labels, matched over question tokens (see module docstring)."""

    def __init__(self, entries: Iterable[tuple[str, int]], max_gap: int = 3) -> None:
        self.max_gap = max_gap
        self._by_form: dict[str, list[_Phrase]] = {}
        self._by_prefix: dict[str, list[tuple[str, _Phrase]]] = {}  # keyed by first 2 chars
        self.size = 0
        for text, label in entries:
            parts = uncontracted(text).split()
            words = tuple(_word(w) for w in parts if w != "*")
            if not words:
                continue
            starred = tuple(n > 0 and parts[n - 1] == "*" for n, w in enumerate(parts) if w != "*")
            phrase = _Phrase(label, words, text, starred)
            self.size += 1
            first = words[0]
            if first.prefix is not None:
                key = first.prefix[:2]
                self._by_prefix.setdefault(key, []).append((first.prefix, phrase))
            else:
                for form in first.forms:
                    self._by_form.setdefault(form, []).append(phrase)

    def find(self, toks: Sequence[QTok]) -> list[tuple[_Phrase, int, int]]:
        """Every phrase matched (once, at its first place) with its first and last token index."""
        found: list[tuple[_Phrase, int, int]] = []
        seen: set[int] = set()
        n = len(toks)
        for i, tok in enumerate(toks):
            cands = self._by_form.get(tok.text, [])
            pre_cands = self._by_prefix.get(tok.text[:2]) if self._by_prefix else None
            if pre_cands:
                cands = cands + [p for pre, p in pre_cands if tok.text.startswith(pre)]
            for phrase in cands:
                if id(phrase) in seen:
                    continue
                j = i
                for w, starred in zip(phrase.words[1:], phrase.starred[1:], strict=True):
                    k = j + 1
                    # "to" and "for" keep to the word before them ("How are requests
                    # redirected to …" holds no "how to", "the search on disk begins, for …"
                    # no "search for") unless the cue writes a gap: "add * to my"
                    gap = 0 if w.forms <= _ATTACHED and not starred else self.max_gap
                    limit = min(n, j + 2 + gap)
                    while k < limit and not w.match(toks[k].text):
                        if _clause_verb(toks[k]):
                            k = limit  # «как log не даёт установить»: another clause's verb
                            break
                        k += 1
                    if k >= limit:
                        break
                    j = k
                else:
                    seen.add(id(phrase))
                    found.append((phrase, i, j))
        return found
