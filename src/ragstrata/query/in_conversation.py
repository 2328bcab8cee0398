"""What a question asks given its place in a conversation: a follow-up to an answer that asks
yes or no («… ли …», "Are … reported as well?") or asks nothing the cues know asks a detail of
the answer's topic; a detail question opening a conversation asks how the code behaves.

Read by :func:`ragstrata.query.facets.facets_of`, which reads the question itself.
"""

from __future__ import annotations

import re

from ragstrata.core.question import QuestionFacets
from ragstrata.query.models import AnchorType, ConversationMode, RouterPlan
from ragstrata.query.plan_fields import ANSWER_TOPIC

__all__ = ["behaviour_without_topic", "detail_unmarked", "yes_or_no"]


def detail_unmarked(plan: RouterPlan, facets: QuestionFacets, terms: tuple[str, ...]) -> bool:
    """True for a follow-up to an answer ("Where does the cursor go after that?") that asks
    nothing the cues know (no kind of question, detail, topic or definition kind), names no
    definition of its own and says something (content words): it asks a detail of the topic
    the previous answer led with."""
    anchors = plan.query_plan.anchors
    return (
        plan.conversation_mode is not ConversationMode.NEW
        and bool(terms)
        and not (facets.asks or facets.details or facets.topics or facets.kinds)
        and any(a.subtype == ANSWER_TOPIC for a in anchors)
        and not any(a.type is AnchorType.SYMBOL and a.source == "query" for a in anchors)
    )


# an English question asking yes or no opens with its auxiliary verb ("Does it …", "And is
# there …"), as a Russian one says «ли»
_YES_OR_NO = re.compile(
    r"(?i)^\W*(?:(?:and|so|but|then|also)\W+)?"
    r"(?:is|are|was|were|does|do|did|will|would|can|could|should|has|have)\b"
)


def yes_or_no(plan: RouterPlan, facets: QuestionFacets) -> bool:
    """True for a follow-up to an answer asking yes or no about its topic, no other detail."""
    return (
        plan.conversation_mode is not ConversationMode.NEW
        and not (facets.details or facets.asks)
        and bool(_YES_OR_NO.match(plan.query_plan.raw))
        and any(a.subtype == ANSWER_TOPIC for a in plan.query_plan.anchors)
    )


def behaviour_without_topic(plan: RouterPlan, facets: QuestionFacets) -> bool:
    """A detail question ("what happens if …") that starts a conversation, asks nothing else
    and names no symbol, or names one as the module it is about ("In the race module, what
    happens when two threads …?": where to look, not the answer)."""
    if not facets.details or facets.asks or plan.conversation_mode is not ConversationMode.NEW:
        return False
    return facets.names_module or not any(
        a.type is AnchorType.SYMBOL and a.source == "query" for a in plan.query_plan.anchors
    )
