"""Symbol candidate generation: C1 lookup of the question's SYMBOL anchors.

Resolution itself (the exact -> qualified -> suffix -> fuzzy precedence, scope, fuzzy
threshold) is :mod:`ragstrata.retrieve.resolve`, shared with the answer graphs, gendocs and the
facade; this module only picks the names a plan asks about.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.core.values import SearchFilters, SymbolMode
from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.query.plan_fields import ANSWER_TOPIC
from ragstrata.retrieve.resolve import CASCADE, STRICT_MODES, SymbolMatch, SymbolResolver
from ragstrata.store.protocols import Store

__all__ = ["CASCADE", "STRICT_MODES", "SymbolMatch", "lookup", "named_symbols"]


def named_symbols(plan: RouterPlan) -> list[str]:
    """SYMBOL anchor values, the question's own first, then those carried from the session —
    not the topic a previous answer led with (subtype ``answer``): the user named none, so
    retrieval looks for what the question says, and the answer weighs the topic."""
    anchors = [
        a
        for a in plan.query_plan.anchors
        if a.type is AnchorType.SYMBOL and a.subtype != ANSWER_TOPIC
    ]
    anchors.sort(key=lambda a: (a.source != "query", -a.confidence))
    return list(dict.fromkeys(a.value.strip("`()") for a in anchors if a.value.strip("`()")))


def lookup(
    store: Store,
    name: str,
    filters: SearchFilters | None,
    limit: int = 10,
    modes: Sequence[SymbolMode] = CASCADE,
    kinds: Sequence[str] = (),
) -> SymbolMatch:
    """The definitions of ``name`` as :class:`~ragstrata.retrieve.resolve.SymbolResolver`
    resolves them (C1 rows only, the path scope widened when a strict mode finds nothing;
    of the ``kinds`` the question names next to it first, see :mod:`ragstrata.query.kinds`)."""
    return SymbolResolver(store).resolve(name, filters, limit=limit, modes=modes, kinds=kinds)
