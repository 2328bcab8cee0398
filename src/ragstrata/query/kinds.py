"""Kind words: the kind of definition a question names (``data/router/kinds.toml``).

"the Value enum", "interface Handler", «перечисление Value», «в структуре Engine»: a kind word
right before or after a SYMBOL anchor (only spaces, backticks or quotes between) names that
symbol's kind, and retrieval narrows the symbol's lookup to definitions of those C1 kinds
(:func:`symbol_kinds`). A kind word anywhere in the question orders same-named definitions in
the answer (:func:`question_kinds`). Russian words match every inflected form (the router's
lexicon); the table is data.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources

from ragstrata.query.lexicon import Lexicon, WordSet, fold, query_tokens
from ragstrata.query.models import AnchorType, RouterPlan

__all__ = ["question_kinds", "symbol_kinds", "word_kinds"]

_BETWEEN = frozenset(" \t`'\"«»“”!")  # `bail!` macro


@lru_cache(maxsize=1)
def _table() -> list[tuple[WordSet, tuple[str, ...], tuple[str, ...]]]:
    """(word set, words, C1 kinds) per kind entry, in file order."""
    ref = resources.files("ragstrata").joinpath("data", "router", "kinds.toml")
    table = tomllib.loads(ref.read_text(encoding="utf-8"))["kinds"]
    return [
        (WordSet(spec["words"]), tuple(spec["words"]), tuple(str(k) for k in spec["kinds"]))
        for spec in table.values()
    ]


@lru_cache(maxsize=1)
def _lexicon() -> Lexicon:
    return Lexicon([(w, n) for n, (_, words, _) in enumerate(_table()) for w in words], 0)


def word_kinds(word: str) -> tuple[str, ...]:
    """The C1 kinds a kind word stands for (``"перечислении"`` -> ``("enum",)``), else ()."""
    folded = fold(word)
    for words, _, kinds in _table():
        if folded in words:
            return kinds
    return ()


def question_kinds(raw: str) -> tuple[str, ...]:
    """Every C1 kind the question's kind words name, in order of the table."""
    out: list[str] = []
    for phrase, _, _ in _lexicon().find(query_tokens(raw)):
        out += [k for k in _table()[phrase.label][2] if k not in out]
    return tuple(out)


def symbol_kinds(plan: RouterPlan) -> dict[str, tuple[str, ...]]:
    """The kinds named next to each SYMBOL anchor typed in the question (see the module
    docstring), keyed by the anchor's name as the symbol lookup takes it."""
    raw = plan.query_plan.raw
    toks = query_tokens(raw)
    out: dict[str, tuple[str, ...]] = {}
    for a in plan.query_plan.anchors:
        if a.type is not AnchorType.SYMBOL or a.span is None:
            continue
        before = [t for t in toks if t.end <= a.span.start]
        after = [t for t in toks if t.start >= a.span.end]
        near = []
        if before and set(raw[before[-1].end : a.span.start]) <= _BETWEEN:
            near.append(before[-1].surface)
        if after and set(raw[a.span.end : after[0].start]) <= _BETWEEN:
            near.append(after[0].surface)
        for word in near:
            kinds = word_kinds(word)
            if kinds:
                out[a.value.strip("`()")] = kinds
                break
    return out
