"""RU->EN programming terms: glossary look-up after lemmatisation, transliteration fallback.

``TermExpander.find(text)`` returns the Russian programming terms of a question with their
English expansions, so a Russian question can be matched against English code and docs.

How a word is matched (cheap after warm-up: per-surface results are memoised):

1. Multi-word phrases first, longest first ("переменная окружения" -> environment variable,
   "точка входа" -> entry point). Each phrase word matches any inflected form of itself;
   words must be separated by whitespace only. Stop phrases (expansions ``-`` in the file:
   "в том числе", "каким образом", "в зависимости от") are consumed without a hit, so
   their words (число -> number, образ -> image) do not leak.
2. Single words that are not stopwords: the folded surface (lower-case, ё as е), then each
   pymorphy3 normal form of it (reflexive verbs also without -ся), against the glossary
   lemmas; then against the lemmas' index forms (``ragstrata.text.morph.index_forms``: the
   normal form of a known word, the whole guessed lexeme of slang pymorphy3 lemmatises
   poorly, e.g. "ретраев" -> ретрай); finally with one noun case ending stripped ("урле" ->
   урл). Hyphenated words ("юнит-тестов") are looked up whole, then part by part.
3. Otherwise a Cyrillic word that is not a stopword, that pymorphy3's dictionary does not know
   (slang: "задеплоить", "хэндлер"; not "зарегистрировать", whose -ировать ending looks
   borrowed) and that looks like a loanword gets transliteration candidates (``source="translit"``, never a key term); see
   ``ragstrata.text.translit.looks_like_loanword`` for the heuristic.

The glossary is data: ``ragstrata/data/glossary/ru_en.tsv`` (its header documents the format)
plus any files named in ``settings.router.glossary_files``; a later file's entry replaces an
earlier entry for the same lemma.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ragstrata.errors import ConfigError
from ragstrata.text.morph import (
    TRANSLIT_POS,
    dictionary_pos,
    fold,
    index_forms,
    lemma_candidates,
    lemmatize,
)
from ragstrata.text.plurals import singular_forms
from ragstrata.text.regular_file import read_regular_text
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import Token, has_cyrillic, tokenize
from ragstrata.text.translit import looks_like_loanword, transliterate_candidates

__all__ = [
    "GlossaryEntry",
    "TermExpander",
    "TermHit",
    "default_expander",
    "default_glossary_text",
    "expander_for",
    "parse_glossary",
]

_FLAGS_CATEGORY = "cat="
_STOP = "-"  # the expansions column of a stop entry
# case endings tried last, for slang nouns pymorphy3 misreads ("урле" -> урл)
_NOUN_ENDINGS = ("ами", "ями", "ах", "ях", "ам", "ям", "ом", "ем", "ов", "ев",
                 "а", "я", "у", "ю", "е", "ы", "и")  # fmt: skip
# per-expander memo of surface -> result; cleared when it grows past this
_MEMO_LIMIT = 50_000
# English words that are key-term expansions but too common in English questions to steer
_ENGLISH_TOO_GENERIC = frozenset(
    {"new", "main", "init", "error", "install", "option", "member", "object", "structure",
     "layout", "global", "requirement", "document", "setting", "invocation"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TermHit:
    """A Russian (or English) term found in a text, with its English expansions."""

    start: int  # code-point span in the text passed to find(), end exclusive
    end: int
    surface: str  # text[start:end]
    lemma: str  # the normal form looked up
    expansions: tuple[str, ...]  # English terms, most specific first
    key_term: bool  # steers layers/evidence: becomes a KEY_TERM anchor
    category: str | None = None  # steering category, e.g. "code_unit", "test", "docs", "flow"
    source: str = "glossary"  # glossary | translit | dictionary


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """One glossary line: a lemma (or phrase of words) and its English expansions."""

    lemma: str  # folded; words of a phrase joined by single spaces
    expansions: tuple[str, ...]  # empty for a stop entry
    key_term: bool = False
    category: str | None = None

    @property
    def words(self) -> tuple[str, ...]:
        """The words of the lemma (one for a single word)."""
        return tuple(self.lemma.split(" "))


def parse_glossary(text: str, origin: str = "<glossary>") -> list[GlossaryEntry]:
    """Parse glossary text: ``lemma<TAB>expansion, expansion<TAB>flags`` per line.

    Flags (optional, space- or comma-separated): ``key`` and ``cat=<category>``. An
    expansions column of just ``-`` makes a *stop entry* (``expansions == ()``): a phrase
    such as "в том числе" that is consumed so its words ("число") give no hit. Blank lines
    and lines starting with ``#`` are skipped. Raises ``ConfigError`` naming ``origin:line``
    for a malformed line.
    """
    entries: list[GlossaryEntry] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cols = raw.rstrip("\r\n").split("\t")
        if len(cols) < 2 or len(cols) > 3:
            raise ConfigError(
                f"{origin}:{lineno}: expected 'lemma<TAB>expansions[<TAB>flags]', got {raw!r}"
            )
        lemma = " ".join(fold(cols[0]).split())
        expansions = tuple(e.strip() for e in cols[1].split(",") if e.strip())
        if expansions == (_STOP,):
            expansions = ()  # a stop entry: consumed, never a hit
        elif not lemma or not expansions or _STOP in expansions:
            raise ConfigError(f"{origin}:{lineno}: empty lemma or expansions in {raw!r}")
        key_term, category = False, None
        for flag in cols[2].replace(",", " ").split() if len(cols) == 3 else ():
            if flag == "key":
                key_term = True
            elif flag.startswith(_FLAGS_CATEGORY) and len(flag) > len(_FLAGS_CATEGORY):
                category = flag[len(_FLAGS_CATEGORY) :]
            else:
                raise ConfigError(
                    f"{origin}:{lineno}: unknown flag {flag!r}; valid: key, cat=<category>"
                )
        entries.append(GlossaryEntry(lemma, expansions, key_term, category))
    return entries


def default_glossary_text() -> str:
    """The text of the packaged glossary ``ragstrata/data/glossary/ru_en.tsv``."""
    ref = resources.files("ragstrata").joinpath("data", "glossary", "ru_en.tsv")
    return ref.read_text(encoding="utf-8")


# one word-level hit relative to its token: offset, length, lemma, expansions, key, category, source
_Found = tuple[int, int, str, tuple[str, ...], bool, str | None, str]


@dataclass(frozen=True, slots=True)
class _Phrase:
    entry: GlossaryEntry
    word_forms: tuple[frozenset[str], ...]  # accepted folded forms per word


class TermExpander:
    """Finds glossary terms (and loanword transliterations) in a text.

    Build once and share: construction analyses every glossary word with pymorphy3 (about
    0.2-0.3 s for the packaged glossary); ``find`` is then a few dictionary look-ups per
    word. Thread-safe for concurrent ``find``.
    """

    def __init__(self, entries: Iterable[GlossaryEntry], *, translit: bool = True) -> None:
        by_lemma: dict[str, GlossaryEntry] = {}
        for entry in entries:  # later entries replace earlier ones (user files extend default)
            by_lemma[entry.lemma] = entry
        self._entries: tuple[GlossaryEntry, ...] = tuple(by_lemma.values())
        self._translit = translit
        self._exact: dict[str, GlossaryEntry] = {}
        self._forms: dict[str, GlossaryEntry] = {}
        self._phrases: dict[str, list[_Phrase]] = {}
        self._english: dict[str, GlossaryEntry] = {}
        for entry in self._entries:
            words = entry.words
            if len(words) == 1:
                self._exact[entry.lemma] = entry
                for form in index_forms(entry.lemma):
                    self._forms.setdefault(form, entry)
            else:
                phrase = _Phrase(entry, tuple(index_forms(w) for w in words))
                for form in phrase.word_forms[0]:
                    self._phrases.setdefault(form, []).append(phrase)
            if entry.key_term:
                for exp in entry.expansions:
                    word = exp.lower()
                    if " " not in word and word not in _ENGLISH_TOO_GENERIC:
                        self._english.setdefault(word, entry)
        for plist in self._phrases.values():
            plist.sort(key=lambda p: -len(p.word_forms))
        self._memo: dict[str, tuple[str, ...]] = {}
        self._word_memo: dict[str, tuple[_Found, ...]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_files(
        cls, paths: Sequence[Path | str], *, include_default: bool = True, translit: bool = True
    ) -> TermExpander:
        """The packaged glossary (unless ``include_default=False``) extended by ``paths``.

        Raises ``ConfigError`` naming the file when one is missing or malformed.
        """
        entries: list[GlossaryEntry] = []
        if include_default:
            entries.extend(parse_glossary(default_glossary_text(), "ru_en.tsv"))
        for p in paths:
            path = Path(p)
            text = read_regular_text(path, "glossary file")
            entries.extend(parse_glossary(text, str(path)))
        return cls(entries, translit=translit)

    @property
    def entries(self) -> tuple[GlossaryEntry, ...]:
        """The effective glossary entries (after later files replaced earlier lemmas)."""
        return self._entries

    def lookup(self, word: str) -> GlossaryEntry | None:
        """The single-word glossary entry for any inflected form of ``word``, or None."""
        keys = self._keys(word)
        for k in keys:
            entry = self._exact.get(k)
            if entry is not None:
                return entry
        for k in keys:
            entry = self._forms.get(k)
            if entry is not None:
                return entry
        # last resort for slang nouns pymorphy3 misreads ("урле" -> урла): strip one case
        # ending and look for an exact lemma ("урл")
        w = keys[0]
        for ending in _NOUN_ENDINGS:
            if w.endswith(ending) and len(w) - len(ending) >= 3:
                entry = self._exact.get(w[: -len(ending)])
                if entry is not None:
                    return entry
        return None

    def find(
        self, text: str, *, english: bool = False, tokens: Sequence[Token] | None = None
    ) -> list[TermHit]:
        """Terms of ``text`` in order, non-overlapping, longest phrase first.

        Every hit's span satisfies ``text[hit.start:hit.end] == hit.surface``. With
        ``english=True``, English words naming a *key* term's expansion ("class", "tests")
        also give hits (``expansions=()``), so English questions get the same steering.
        A caller that already has ``tokenize(text)`` may pass it as ``tokens`` to save the
        scan (the spans must be those of ``text``).
        """
        toks = tokens if tokens is not None else tokenize(text)
        hits: list[TermHit] = []
        i, n = 0, len(toks)
        while i < n:
            tok = toks[i]
            if tok.kind != "number" and has_cyrillic(tok.text):  # «HEAD-запрос» reads as a word
                used = self._match_phrase(text, toks, i, hits)
                if used:
                    i += used
                    continue
                self._match_word(tok, hits)
            elif english and tok.kind == "word":
                self._match_english(tok, hits)
            i += 1
        return hits

    # -- internals -------------------------------------------------------------------------

    def _keys(self, surface: str) -> tuple[str, ...]:
        """Folded surface followed by its normal forms (memoised)."""
        keys = self._memo.get(surface)
        if keys is None:
            folded = fold(surface)
            cands = [c for c in lemma_candidates(folded) if c != folded]
            # reflexive verbs: "настраиваются" -> настраиваться -> also настраивать
            cands += [c[:-2] for c in cands if c.endswith(("ться", "чься"))]
            keys = (folded, *dict.fromkeys(cands))
            with self._lock:
                if len(self._memo) >= _MEMO_LIMIT:
                    self._memo.clear()
                self._memo[surface] = keys
        return keys

    def _match_phrase(self, text: str, tokens: Sequence[Token], i: int, hits: list[TermHit]) -> int:
        if not self._phrases:
            return 0
        best: _Phrase | None = None
        for k in self._keys(tokens[i].text):
            for phrase in self._phrases.get(k, ()):
                size = len(phrase.word_forms)
                if best is not None and size <= len(best.word_forms):
                    break
                if self._phrase_fits(text, tokens, i, phrase):
                    best = phrase
                    break
        if best is None:
            return 0
        size = len(best.word_forms)
        start, end = tokens[i].start, tokens[i + size - 1].end
        e = best.entry
        if e.expansions:  # a stop phrase ("в том числе") is consumed silently
            hits.append(
                TermHit(start, end, text[start:end], e.lemma, e.expansions, e.key_term, e.category)
            )
        return size

    def _phrase_fits(self, text: str, tokens: Sequence[Token], i: int, phrase: _Phrase) -> bool:
        size = len(phrase.word_forms)
        if i + size > len(tokens):
            return False
        for j in range(1, size):
            prev, tok = tokens[i + j - 1], tokens[i + j]
            if not text[prev.end : tok.start].isspace():
                return False
            forms = phrase.word_forms[j]
            if not any(k in forms for k in self._keys(tok.text)):
                return False
        return True

    def _match_word(self, tok: Token, hits: list[TermHit]) -> None:
        for off, length, lemma, exps, key, cat, source in self._resolve(tok.text):
            start = tok.start + off
            surface = tok.text[off : off + length]
            hits.append(TermHit(start, start + length, surface, lemma, exps, key, cat, source))

    def _resolve(self, surface: str) -> tuple[_Found, ...]:
        """The hits of one word token, relative to its start (memoised per surface)."""
        found = self._word_memo.get(surface)
        if found is None:
            found = self._resolve_uncached(surface)
            with self._lock:
                if len(self._word_memo) >= _MEMO_LIMIT:
                    self._word_memo.clear()
                self._word_memo[surface] = found
        return found

    def _resolve_uncached(self, surface: str) -> tuple[_Found, ...]:
        if is_stopword(surface):  # "им" is also a form of имя, "тем" of тема
            return ()
        entry = self.lookup(surface)
        if entry is not None:
            if not entry.expansions:  # a single-word stop entry
                return ()
            e = entry
            return ((0, len(surface), e.lemma, e.expansions, e.key_term, e.category, "glossary"),)
        if "-" in surface:
            out: list[_Found] = []
            offset = 0
            for part in surface.split("-"):
                if part and has_cyrillic(part):
                    for off, length, lemma, exps, key, cat, src in self._resolve_uncached(part):
                        out.append((off + offset, length, lemma, exps, key, cat, src))
                offset += len(part) + 1
            return tuple(out)
        if self._translit and dictionary_pos(surface) in TRANSLIT_POS:
            lemma = lemmatize(surface)
            if looks_like_loanword(lemma):
                cands = transliterate_candidates(lemma)
                if cands:
                    return ((0, len(surface), lemma, cands, False, None, "translit"),)
        return ()

    def _match_english(self, tok: Token, hits: list[TermHit]) -> None:
        for form in _english_bases(tok.text.lower()):
            entry = self._english.get(form)
            if entry is not None:
                hits.append(TermHit(tok.start, tok.end, tok.text, form, (), True, entry.category))
                return


def _english_bases(word: str) -> tuple[str, ...]:
    """``word`` and plausible singular forms (classes -> class, dependencies -> dependency)."""
    return (word, *singular_forms(word))


_BUILD_LOCK = threading.Lock()


@lru_cache(maxsize=16)
def _cached(paths: tuple[str, ...]) -> TermExpander:
    return TermExpander.from_files(paths)


def expander_for(paths: Sequence[Path | str] = ()) -> TermExpander:
    """The process-wide expander over the packaged glossary extended by ``paths`` (e.g.
    ``settings.router.glossary_files``), built once per distinct list of paths, thread-safe.

    Files are read when first asked for; edit a file and a new process sees the change.
    """
    key = tuple(str(Path(p)) for p in paths)
    with _BUILD_LOCK:
        return _cached(key)


def default_expander() -> TermExpander:
    """The process-wide expander over the packaged glossary (built once, thread-safe)."""
    return expander_for(())
