"""Symbols named in a question's words (anchor pass 7 of :mod:`ragstrata.query.anchors`).

Identifier-shaped tokens (dotted, snake, camel, pascal, letters+digits, a leading underscore),
calls (``get()``), names right after a code-unit word ("класс UserService", "the Router
class"), and in a Russian question any other Latin word (subtype ``word``, low confidence).
A Ruby-style ``compile!`` / ``empty?`` keeps its suffix when the sentence goes on after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from ragstrata.query.extraction import Extraction, anchor_at
from ragstrata.query.intents import RouterData, fold
from ragstrata.query.models import AnchorType
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import Token, has_cyrillic

__all__ = [
    "EXAMPLE",
    "VERSION_RE",
    "after_example_cue",
    "find_symbols",
    "names_a_symbol",
    "symbol_shape",
]

VERSION_RE = re.compile(r"v?\d+(?:\.\d+)+[a-z]*\d*", re.IGNORECASE)
"""A version number (``v1.2.3``, ``3.11``): no symbol, no file name."""
_TOOL_VERSION_RE = re.compile(r"[A-Za-z]+\d+(?:\.\d+)+")
_ASCII_LETTER_RE = re.compile(r"[A-Za-z]")
EXAMPLE = "example"  # the subtype of a name given as an example ("a field like MaxRetries")
_EXAMPLE_CONFIDENCE = 0.5  # weak: nothing has to define it
_LATIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# `compile!` / `empty?` (Ruby) keep the suffix when the sentence goes on; not in a question
# about a macro: `ensure!` calls a Rust macro defined as `ensure`
_BANG_RE = re.compile(r"[!?](?=\s+[a-zа-яё])")
_MACRO_RE = re.compile(r"(?i)(?<!\w)(?:macro|макрос)")


_NUMBER_LITERAL_RE = re.compile(
    r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?[a-zA-Z]{0,5}"
)


def symbol_shape(text: str) -> tuple[str, float] | None:
    """The subtype and confidence of an identifier-shaped token (dotted, snake, camel, pascal,
    letters with digits, a leading underscore), or None for a plain word."""
    if "-" in text or _TOOL_VERSION_RE.fullmatch(text):
        return None  # FITS-like, WWW-Authenticate, OS-release; python3.9, py3.8
    if _NUMBER_LITERAL_RE.fullmatch(text):
        return None  # `0x1F`, `0b1010`, `1e10`, `10_000`: a value, no name
    if "." in text or "::" in text:
        segs = re.split(r"\.|::", text)
        if all(len(s) <= 1 for s in segs) or VERSION_RE.fullmatch(text):
            return None
        return "dotted", 0.85
    core = text.strip("_")
    if "_" in core:
        return "snake", 0.9
    if any(c.isupper() for c in text[1:]) and any(c.islower() for c in text):
        if text[:-1].isupper() and text.endswith("s"):
            return None  # a plural acronym: URLs, IDs, APIs
        return ("camel" if text[0].islower() else "pascal"), 0.9
    if any(c.isdigit() for c in text) and text[0].isalpha():
        return "alnum", 0.5
    if text.startswith("_") and any(c.isalpha() for c in core):
        return "private", 0.85  # `_refine`, `__init__`: a leading underscore is a code name
    return None


def find_symbols(raw: str, toks: Sequence[Token], data: RouterData, out: Extraction) -> None:
    """SYMBOL anchors for identifier-shaped tokens, calls (``get()``), names next to a
    code-unit word and, in a Russian question, any other Latin word (subtype ``word``)."""
    amounts = [m.span(0) for m in _QUOTED_AMOUNT.finditer(raw)]
    examples = _quoted_examples(raw, toks, data)
    example_end = -1  # where the last name given as an example ends
    for i, tok in enumerate(toks):
        text = tok.text
        if not _ASCII_LETTER_RE.search(text) or out.overlaps(tok.start, tok.end):
            continue
        if raw[tok.start - 1 : tok.start] == "\\":
            continue  # an escape sequence a string writes (`\uXXXX`, `\n`, `\x41`): no name
        folded = fold(text)
        if folded in data.not_symbols:
            continue
        call = tok.end < len(raw) and raw[tok.end] == "("
        # the tokenizer calls `_refine` a word; a leading underscore still makes it a code name
        # (dunders such as `__init__` name a method of every class: left as they were)
        private = text.startswith("_") and not text.endswith("__")
        shape = symbol_shape(text) if tok.kind == "ident" or private else None
        if shape is not None:
            subtype, conf = shape
            if has_cyrillic(text):
                conf = 0.6
            elif call:
                conf = max(conf, 0.85)
            if (
                after_example_cue(raw, toks, i, data)
                or any(a <= tok.start < b for a, b in (*amounts, *examples))
                # "like "fooBar" or "XMLHttpRequest"": the names listed with an example are
                or (example_end >= 0 and _LISTED.fullmatch(raw[example_end : tok.start]))
            ):  # "a name like MaxRetries", "a size such as "10 MB" or "2 GiB""
                subtype, conf = EXAMPLE, _EXAMPLE_CONFIDENCE
                example_end = tok.end
            elif folded.replace("_", "").replace("-", "") in _CONVENTIONS:
                # "how is a CamelCase word split into snake_case?": a way of writing names
                subtype, conf = "convention", _EXAMPLE_CONFIDENCE
            out.add(anchor_at(AnchorType.SYMBOL, raw, tok.start, tok.end, subtype, conf))
            continue
        if not _LATIN_WORD_RE.fullmatch(text) or folded in data.code_units:
            continue
        if any(a <= tok.start < b for a, b in examples):
            continue  # «вроде "${path} must be at least ${min}"»: words of the example's text
        end = _bang_end(raw, tok.end)
        if call:
            # a one-letter "call" (`H(0-29)` of a schedule's syntax) writes data, not a name
            conf = _ONE_LETTER_CALL if len(text) == 1 else 0.85
            out.add(anchor_at(AnchorType.SYMBOL, raw, tok.start, end, "call", conf))
        elif names_a_symbol(raw, toks, i, data):
            out.add(anchor_at(AnchorType.SYMBOL, raw, tok.start, end, "named", 0.75))
        elif (
            out.ru_dominant
            and len(text) >= 3
            and not is_stopword(text)
            and not _in_english_phrase(raw, toks, i)
        ):
            out.add(anchor_at(AnchorType.SYMBOL, raw, tok.start, tok.end, "word", 0.5))


# between two names of one list of examples: a quote, a comma, "or", "and", «или», «и»
_LISTED = re.compile(r"[\s\"'`«»“”]*,?\s*(?:\b(?:or|and|или|и)\b)?[\s\"'`«»“”]*")
_ONE_LETTER_CALL = 0.5  # below the confidence of a name the question must find
# the ways of writing names a question speaks of (CamelCase, snake_case): no definition's name
_CONVENTIONS = frozenset(
    {"camelcase", "lowercamelcase", "uppercamelcase", "pascalcase", "snakecase", "kebabcase",
     "screamingsnakecase", "titlecase", "sentencecase", "traincase", "dotcase", "constantcase"}
)  # fmt: skip
# spaces and a few marks: a quote, `${`, `--`; "например, X", "e.g. X", "for example: X"
_EXAMPLE_GAP = re.compile(r"\s*[^\w\s]{0,3}\s*")
# a quoted amount with its unit ("2 GiB", «3 дня назад»): data the question shows
_QUOTED_AMOUNT = re.compile(r'"\s*[-+]?\d[^"\n]*"|«\s*[-+]?\d[^»\n]*»|“\s*[-+]?\d[^”\n]*”')


# quoted text, its opening mark no apostrophe inside a word ("doesn't")
_QUOTED = re.compile(r"(?<!\w)[\"'`«“]([^\"'`«»“”]+)[\"'`»”]")


def _quoted_examples(raw: str, toks: Sequence[Token], data: RouterData) -> list[tuple[int, int]]:
    """The spans of quoted text an example cue introduces (a message template «вроде
    "${path} must be at least ${min}"», "a header like 'max-age=0, private'")."""
    out = []
    for m in _QUOTED.finditer(raw):
        first = next((i for i, t in enumerate(toks) if t.start > m.start()), None)
        if first is not None and after_example_cue(raw, toks, first, data, at=m.start()):
            out.append(m.span(0))
    return out


def after_example_cue(
    raw: str, toks: Sequence[Token], i: int, data: RouterData, at: int | None = None
) -> bool:
    """True when ``toks[i]`` (or the text from ``at``, a path's ``../`` before its first word)
    follows a word that introduces an example ("like", "such as", «вроде»), nothing but spaces
    and a few marks between (a quote, ``${`` of "a value like ${OTHER_VAR}", ``--`` of "a flag
    like --verbose")."""
    for size in (1, 2, 3):  # "like", "such as", "of the form"
        if i - size < 0:
            continue
        words = toks[i - size : i]
        gap = raw[words[-1].end : toks[i].start if at is None else at]
        if _EXAMPLE_GAP.fullmatch(gap) is None or any(
            raw[a.end : b.start].strip(" .") for a, b in pairwise(words)
        ):
            continue
        if " ".join(fold(w.text) for w in words) in data.example_cues:
            return True
    return False


def _in_english_phrase(raw: str, toks: Sequence[Token], i: int) -> bool:
    """True when the Latin word ``toks[i]`` of a Russian question stands next to another plain
    Latin word, only a space between: an English phrase quoted in Russian text («как
    class-based view выбирает…») names a notion, not a definition."""
    for j in (i - 1, i + 1):
        if not 0 <= j < len(toks):
            continue
        near = toks[j]
        gap = raw[min(near.end, toks[i].end) : max(near.start, toks[i].start)]
        if gap.strip() or has_cyrillic(near.text) or not any(c.isalpha() for c in near.text):
            continue
        if near.kind == "word" and near.text.replace("-", "").isascii():
            return True
    return False


def _bang_end(raw: str, end: int) -> int:
    """The end of a name that keeps a Ruby-style ``!`` / ``?`` suffix (``compile!``,
    ``empty?``) when the sentence goes on after it (a lower-case word follows) and the question
    is not about a macro, else ``end``."""
    if _BANG_RE.match(raw, end) and not _MACRO_RE.search(raw):
        return end + 1
    return end


def names_a_symbol(raw: str, toks: Sequence[Token], i: int, data: RouterData) -> bool:
    """A Latin word next to a code-unit word names a symbol ("класс Foo", "the Foo class").
    A capitalised word opening a sentence ("Base class for ...") is just capitalised."""
    text = toks[i].text
    if is_stopword(text):
        return False
    prev = toks[i - 1] if i > 0 else None
    if (
        prev is not None
        and i >= 2
        and f"{fold(toks[i - 2].text)} {fold(prev.text)}" in data.callers_before
    ):
        return True  # "Who calls respond?"
    if (
        prev is not None
        and fold(prev.text) in data.code_units
        and (has_cyrillic(prev.text) or text[:1].isupper())
    ):
        return True
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is not None and fold(nxt.text) in data.code_units:
        opens = prev is None or any(c in ".!?\n" for c in raw[prev.end : toks[i].start])
        if opens and text[:1].isupper() and text[1:].islower():
            return False
        if has_cyrillic(nxt.text) or text[:1].isupper():
            return True  # "auth модуль", "the Router class"
        if text.islower() and text.endswith(("ing", "ed")):
            return False  # "the calling function", "the wrapped handler": a participle
        if text.islower() and fold(text) in data.unit_compounds:
            return False  # "an environment variable", "the return value": one noun
        # "the parse function" names one; "a specific handler" describes any of a kind
        return prev is not None and fold(prev.text) in {"the", "this", "that"}
    return False
