"""The plan fields the router derives from anchors and term hits (pure functions).

Cue tokens (text outside code and paths), KEY_TERM anchors, anchors carried from the
conversation, the path scope, keyword hints and query expansions.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.query.anchors import AnchorDraft, Extraction, SpanDraft
from ragstrata.query.lexicon import QTok, fold
from ragstrata.query.models import AnchorType, ConversationState
from ragstrata.query.paths import path_part
from ragstrata.query.plan import path_scope_entry
from ragstrata.query.terms import TermHit
from ragstrata.text.tokens import Token, identifier_parts

__all__ = [
    "carried_anchors",
    "cue_tokens",
    "expansions",
    "key_term_anchors",
    "keyword_hints",
    "scope_paths",
]

_CARRIED_MAX_CONFIDENCE = 0.6
_SCOPE_MIN_CONFIDENCE = 0.7


ANSWER_TOPIC = "answer"
"""Subtype of a carried SYMBOL anchor that is the definition the previous answer led with (the
user named none): kept for the answer to weigh, never a search term or a lookup."""


def cue_tokens(toks: Sequence[Token], ext: Extraction) -> list[QTok]:
    """Tokens that may carry cues: not inside code in backticks, URLs or paths."""
    spans = ext.code_spans + [
        (a.span.start, a.span.end)
        for a in ext.anchors
        if a.type is AnchorType.FILE_PATH and a.span is not None
    ]
    out = []
    for t in toks:
        if spans and any(s <= t.start < e for s, e in spans):
            continue
        out.append(QTok(fold(t.text), t.start, t.end, t.text))
    return out


def key_term_anchors(hits: Sequence[TermHit]) -> list[AnchorDraft]:
    """KEY_TERM anchors of the key-term hits, one per lemma (glossary hits more confident)."""
    out: list[AnchorDraft] = []
    seen: set[str] = set()
    for h in hits:
        if not h.key_term or h.lemma in seen:
            continue
        seen.add(h.lemma)
        conf = 0.9 if h.source == "glossary" else 0.6
        span = SpanDraft(h.start, h.end)
        out.append(
            AnchorDraft(AnchorType.KEY_TERM, h.surface, h.category, span, conf, lemma=h.lemma)
        )
    return out


def carried_anchors(state: ConversationState, anchors: Sequence[AnchorDraft]) -> list[AnchorDraft]:
    """The topic's active anchors not already in ``anchors``, spanless and less confident."""
    present = {(a.type, a.value) for a in anchors}
    out: list[AnchorDraft] = []
    for sa in state.active_anchors:
        if (sa.type, sa.value) in present:
            continue
        present.add((sa.type, sa.value))
        conf = round(min(sa.confidence * 0.75, _CARRIED_MAX_CONFIDENCE), 2)
        out.append(AnchorDraft(sa.type, sa.value, sa.subtype, None, conf, "conversation_state"))
    return out


def scope_paths(anchors: Sequence[AnchorDraft]) -> list[str]:
    """Path-scope entries of the confident FILE_PATH anchors typed in the question.

    Without any, those of the carried FILE_PATH anchors.
    """
    own = [
        a
        for a in anchors
        if a.type is AnchorType.FILE_PATH
        and a.source == "query"
        and a.confidence >= _SCOPE_MIN_CONFIDENCE
    ]
    chosen = own or [
        a for a in anchors if a.type is AnchorType.FILE_PATH and a.source == "conversation_state"
    ]
    out: list[str] = []
    for a in chosen:
        entry = path_scope_entry(path_part(a.value))
        if entry and entry not in out:
            out.append(entry)
    return out


def keyword_hints(anchors: Sequence[AnchorDraft]) -> list[str]:
    """Symbols, paths (without line suffixes) and section titles, the question's first."""
    out: list[str] = []
    seen: set[str] = set()
    ordered = sorted(anchors, key=lambda a: a.source != "query")  # stable: query first
    for a in ordered:
        if a.type is AnchorType.SYMBOL and a.subtype == ANSWER_TOPIC:
            continue  # the previous answer's topic: the question did not ask for it
        if a.type is AnchorType.SYMBOL:
            value = a.value
        elif a.type is AnchorType.FILE_PATH:
            value = path_part(a.value)
        elif a.type is AnchorType.DOC_REF and a.subtype == "section":
            value = a.value
        else:
            continue
        if value and value not in seen:
            seen.add(value)
            out.append(value)
    return out


def expansions(hits: Sequence[TermHit], anchors: Sequence[AnchorDraft]) -> list[str]:
    """English expansions of the term hits (key terms first), then identifier parts."""
    out: list[str] = []
    seen: set[str] = set()

    def add(term: str, surface: str = "") -> None:
        key = term.casefold()
        if term and key not in seen and key != surface.casefold():
            seen.add(key)
            out.append(term)

    for h in sorted(hits, key=lambda h: not h.key_term):  # key terms first, then the rest
        for term in h.expansions:
            add(term, h.surface)
    for a in anchors:
        if a.type is not AnchorType.SYMBOL or a.subtype in {"word", "backticked", ANSWER_TOPIC}:
            continue
        parts = identifier_parts(a.value)
        if len(parts) >= 2:
            for p in parts:
                if len(p) >= 2 and p.isascii():
                    add(p.lower())
    return out
