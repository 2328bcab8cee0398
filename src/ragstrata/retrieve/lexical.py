"""Lexical candidate generation: which term lists a plan searches with, and the BM25 lists.

A plan yields up to three term lists (each fused as its own ranked list, see ``profiles.toml``):

- ``lexical``: the question's words + the router's expansions + keyword hints. When the question
  is mostly Cyrillic its raw Russian words are left out here (an English code base rarely
  contains them, and their BM25 weight would drown the expansions); transliterated loanwords
  (хендлер -> handler) are added only when the index vocabulary contains them.
- ``ident``: identifiers only (keyword hints and SYMBOL anchors), so a named symbol is boosted.
- ``raw``: the raw Cyrillic words of a mostly-Russian question, fused with a low weight (they
  still help when docs are written in Russian).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragstrata.core.values import ScoredRow, SearchFilters
from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.store.analyzer import lemmatize
from ragstrata.store.protocols import Store
from ragstrata.text.morph import TRANSLIT_POS, dictionary_pos
from ragstrata.text.tokens import cyrillic_ratio, has_cyrillic, is_identifier, word_tokens
from ragstrata.text.translit import looks_like_loanword, transliterate_candidates

__all__ = ["IDENT_MIN_CONFIDENCE", "MOSTLY_CYRILLIC", "TermList", "lexical_search", "term_lists"]

MOSTLY_CYRILLIC = 0.5
"""Share of Cyrillic letters (outside identifiers) above which a question counts as Russian."""

_MAX_TRANSLIT = 3  # vocabulary probes per Cyrillic word
IDENT_MIN_CONFIDENCE = 0.7
"""SYMBOL anchors below this confidence (names mined from code and logs) are not boosted."""


@dataclass(frozen=True, slots=True)
class TermList:
    """One lexical query: the list kind (``lexical``/``ident``/``raw``) and its terms."""

    kind: str
    terms: tuple[str, ...]


def _identifiers(plan: RouterPlan) -> list[str]:
    """Names to boost: SYMBOL anchors and keyword hints, except the names mined from pasted
    code and logs (low confidence): those stay ordinary words of the question."""
    qp = plan.query_plan
    out: list[str] = []
    weak: set[str] = set()
    for a in qp.anchors:
        if a.type is AnchorType.SYMBOL:
            if a.confidence < IDENT_MIN_CONFIDENCE:
                weak.add(a.value)
            else:
                out.append(a.value)
    for hint in qp.keyword_hints:
        if "/" in hint or "\\" in hint or hint in weak:  # paths are filters, not terms
            continue
        if is_identifier(hint) or hint.isascii():
            out.append(hint)
    return list(dict.fromkeys(out))


def _translit(word: str, in_vocabulary: Callable[[str], bool]) -> list[str]:
    if dictionary_pos(word) not in TRANSLIT_POS:  # a Russian verb or adjective: no loanword
        return []
    lemma = lemmatize(word)
    if len(lemma) < 4 or not looks_like_loanword(lemma):
        return []
    return [c for c in transliterate_candidates(lemma)[:_MAX_TRANSLIT] if in_vocabulary(c)][:1]


def term_lists(
    text: str,
    plan: RouterPlan | None,
    in_vocabulary: Callable[[str], bool] | None = None,
) -> list[TermList]:
    """The term lists for ``text`` (the question or a sub-query); ``plan`` adds expansions,
    hints and anchors (pass ``None`` for a sub-query's own words only)."""
    tokens = word_tokens(text)
    plain = " ".join(t for t in tokens if not is_identifier(t))
    cyrillic = cyrillic_ratio(plain) > MOSTLY_CYRILLIC
    expansions = list(plan.query_plan.expansions) if plan else []
    idents = _identifiers(plan) if plan else [t for t in tokens if is_identifier(t)]
    out: list[TermList] = []
    if cyrillic:
        latin = [t for t in tokens if not has_cyrillic(t)]
        words = [t for t in tokens if has_cyrillic(t)]
        extra: list[str] = []
        if in_vocabulary is not None:
            for w in words:
                extra.extend(_translit(w, in_vocabulary))
        main = [*latin, *expansions, *idents, *extra]
        if main:
            out.append(TermList("lexical", tuple(dict.fromkeys(main))))
        if words:
            out.append(TermList("raw", tuple(dict.fromkeys(words))))
    else:
        main = [*tokens, *expansions, *idents]
        if main:
            out.append(TermList("lexical", tuple(dict.fromkeys(main))))
    if idents:
        out.append(TermList("ident", tuple(idents)))
    return out


def lexical_search(
    store: Store, terms: Sequence[str], filters: SearchFilters, top_k: int
) -> list[ScoredRow]:
    """BM25 over ``terms`` (a sequence is analyzed term by term and unioned by the store)."""
    if not terms:
        return []
    return store.search_lexical(list(terms), filters, top_k)
