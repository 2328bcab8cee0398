"""Which definition a detail follow-up is answered from.

"And what does it return if the parameter is missing?" follows an answer that led with a
definition (the conversation's topic); the lines that answer it (:func:`detail.answering_lines`)
may be in that topic, in a definition retrieval found for the follow-up, or further down
retrieval's list. The topic answers unless another definition's lines answer clearly better:
the topic was the previous answer's guess, not the user's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragstrata.answer.graphs.base import disjoint_hits, overlaps, question_symbols
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank, setup_only
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.names import abbreviated_match, suffix_match
from ragstrata.core.question import QuestionFacets
from ragstrata.core.rows import DefinitionRow
from ragstrata.query.facets import OPENING_CONJUNCTIONS
from ragstrata.query.models import RouterPlan
from ragstrata.text.tokens import tokenize

__all__ = [
    "Definition",
    "asks_a_detail",
    "best_detail",
    "clearly_better",
    "follow_up_order",
    "how_inside_topic",
    "names_any",
]

Definition = Callable[[Hit], DefinitionRow | None]
"""The definition row of a hit (the graph's reader looks it up)."""
_FOUND = 6  # functions further down retrieval's list weighed for a follow-up's lines
_CLEARLY_BETTER = 4.0  # what they must answer better by: two more words of the question
_BETTER = 2.0  # ... when the topic held no answering line: one more word than the first found


def _span_score(hit: Hit, facets: QuestionFacets, definition: Definition) -> float:
    row = definition(hit)
    span = answering_lines(row, facets) if row is not None else None
    return span.score if span is not None else 0.0


def best_detail(
    defs: Sequence[Hit],
    facets: QuestionFacets,
    definition: Definition,
    weigh: int | None = None,
    *,
    keep: bool = False,
) -> list[Hit]:
    """The topic the previous answer led with (``defs[0]``) or a definition retrieval found
    for the follow-up (the first ``weigh`` are weighed; all when None), whichever has the
    lines that answer it best (the topic on a tie): the topic was the previous answer's, not
    the user's. ``keep``: ``defs[0]`` stays first unless another has better lines (its
    callees are weighed so)."""
    ordered = disjoint_hits(defs)
    if not ordered:
        return []
    best = 0 if keep or len(ordered) < 2 else 1  # no lines: what retrieval found
    best_score = 0.0
    for n, hit in enumerate(ordered[:weigh]):
        score = _span_score(hit, facets, definition)
        if score > best_score:
            best, best_score = n, score
    return [ordered[best], *(h for n, h in enumerate(ordered) if n != best)]


def clearly_better(
    defs: list[Hit],
    found: Sequence[Hit],
    facets: QuestionFacets,
    definition: Definition,
    *,
    held: bool = True,
) -> list[Hit]:
    """``defs`` (:func:`best_detail`'s order), or one of the next functions retrieval ``found``
    for the follow-up first when its lines answer it clearly better than the first's: the
    topic the previous answer led with may not be the code the conversation is about, and the
    follow-up's own words find it ("and if the decryption tool cannot be found?")."""
    if not defs:
        return defs
    taken = [(h.path, h.start_line, h.end_line) for h in defs]
    others = [h for h in disjoint_hits(found) if not overlaps(h, taken)][:_FOUND]
    margin = _CLEARLY_BETTER if held else _BETTER
    least = _span_score(defs[0], facets, definition) + margin
    scored = [(_span_score(h, facets, definition), -n) for n, h in enumerate(others)]
    if not scored or max(scored)[0] < least:
        return defs
    return [others[-max(scored)[1]], *defs]


def follow_up_order(
    resolved: list[Hit],
    defs: list[Hit],
    evidence: Evidence,
    facets: QuestionFacets,
    definition: Definition,
    weigh: int,
) -> list[Hit]:
    """The definitions a detail follow-up is answered from, the one whose lines answer first:
    the topic the previous answer led with (``resolved``) or one retrieval found for the
    follow-up (``own``; the first ``weigh`` weighed, :func:`best_detail`); else a function
    further down retrieval's list (``further``) or found by reading the follow-up with the
    question it follows (``joint``) whose lines answer clearly better. When no line of the
    topic answers at all (the previous answer led with the wrong code), the first found is a
    guess, not the topic: one more word of the question is better enough.

    ``own`` are the follow-up's definitions (``defs``), ``further`` retrieval's functions, and
    ``joint`` those found reading the follow-up with the question it follows (``evidence``):
    a test or an example answers nothing of the topic, and a constructor checking its
    arguments answers no follow-up about what the code does with them."""
    own = [h for h in defs if not doing_rank(h)[0] and not setup_only(h)]
    further = [
        h for h in evidence.hits if h.layer == "C1" and doing_rank(h) == _DOES and not setup_only(h)
    ]
    joint = [h for h in evidence.followed if doing_rank(h) == _DOES]
    weighed = best_detail([*resolved, *own], facets, definition, weigh)
    found = [*further[:_OWN_FURTHER], *joint[:_JOINT_FURTHER], *further[_OWN_FURTHER:]]
    held = not resolved or _span_score(resolved[0], facets, definition) > 0
    return clearly_better(weighed, found, facets, definition, held=held)


_DOES = (False, 0)  # the project's own function with a body (:func:`doing_rank`)
_OWN_FURTHER = 3  # a follow-up's own first functions weighed before ...
_JOINT_FURTHER = 5  # ... those found for it read with the question it follows


def asks_a_detail(
    plan: RouterPlan, focus: QuestionFacets, defs: list[Hit], typed: Sequence[str]
) -> bool:
    """A question about one detail of the definition the conversation is about (named in the
    question — ``typed``, the names it writes that are the subject — else carried from the
    session); a new how-question is answered by the working function instead (its matching
    lines follow it)."""
    if not focus.details or not defs or focus.callers:
        return False
    if focus.how and plan.conversation_mode.value == "NEW":
        return False
    return not typed or names_any(defs[0], question_symbols(plan))


def lines_lead(plan: RouterPlan, carried: str, hit: Hit) -> bool:
    """True when the lines of ``hit`` answering a how-question lead its answer, not its card:
    it is the conversation's topic («а как …» about it), or the question goes on with the
    conversation opening with a conjunction («А как при этом учитывается допуск?», "And how
    does it …?"): a detail asked in a how-question's words."""
    if carried == hit.symbol:
        return True
    if plan.conversation_mode.value == "NEW":
        return False
    toks = tokenize(plan.query_plan.raw)
    return bool(toks) and toks[0].text.lower() in OPENING_CONJUNCTIONS


def how_inside_topic(plan: RouterPlan, focus: QuestionFacets, defs: list[Hit], topic: str) -> bool:
    """True for a how-question in a conversation that points back at what was answered («А
    как обрабатывается значение из этого конфига: что делается с кавычками?», "how is the value
    read from that file handled?") and whose answer would lead with the definition the
    previous answer led with: its card was shown; the lines of it saying the question's words
    answer, as for a detail follow-up (a question asked anew gets the card again)."""
    return (
        focus.how
        and not focus.details
        and plan.conversation_mode.value != "NEW"
        and bool(topic)
        and bool(defs)
        and names_any(defs[0], [topic])
        and refers_back(plan.query_plan.raw)
    )


# the words pointing back at what an answer showed: "this file", "those values", «этого
# конфига», «в том же месте»; "that" only before a noun ("that file", not "ensure that the")
_BACK = frozenset(
    {"this", "these", "those", "этот", "эта", "это", "этого", "этой", "этом", "эти", "этих",
     "этим", "этому", "этими", "эту", "тот", "того", "том", "той", "тем", "те", "тех"}
)  # fmt: skip
_NO_NOUN = frozenset(
    {"the", "a", "an", "it", "its", "they", "we", "you", "i", "he", "she", "there", "this",
     "no", "all", "each", "every", "is", "are", "was", "if", "when", "not"}
)  # fmt: skip


def refers_back(question: str) -> bool:
    """True when ``question`` points back at what the conversation showed (a demonstrative)."""
    words = [t.text.lower() for t in tokenize(question)]
    return any(
        w in _BACK or (w == "that" and n + 1 < len(words) and words[n + 1] not in _NO_NOUN)
        for n, w in enumerate(words)
    )


def names_any(hit: Hit, names: list[str]) -> bool:
    """True when one of ``names`` (as the question wrote them) names ``hit``'s definition."""
    symbol = hit.symbol or ""
    return bool(symbol) and any(
        suffix_match(symbol, n) or abbreviated_match(symbol, n) for n in names
    )
