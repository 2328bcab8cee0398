"""The evidence policy check (seed 001 §8) and near-miss candidates.

- ``require_def``: a C1 definition of the question's symbol (exact, qualified or suffix match);
  with no symbol named, the best-ranked definition among the hits. A weak name (a Latin word
  inside a Russian question, a name mined from pasted code) that no definition carries is
  not a symbol the user asked for: it was looked up, and the question is answered as if it
  named none. So is, in a how-question, a name no definition carries that the hits' code
  writes inside its identifiers (`CamelCase` of `ToCamelCase`). The project's own names never
  reach here (the router makes them key terms).
- ``require_flow``: C2 relations (callers or callees) of that definition.
- ``require_spec``: a D1 section; for a DOCS question about a named symbol, the definition's
  docstring counts too.
- ``candidates``: when the named symbol was not found, the nearest definitions (fuzzy, then
  suffix of its last segment), so an answer can say "UserServices in src/users/service.py:12?".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ragstrata.core.evidence import Hit, Requirement
from ragstrata.core.names import fuzzy_key, last_segment
from ragstrata.core.rows import DefinitionRow
from ragstrata.core.values import SearchFilters, SymbolMode
from ragstrata.query.facets import facets_of
from ragstrata.query.models import AnchorType, Intent, RouterPlan
from ragstrata.retrieve.fusion import hit_from_row
from ragstrata.retrieve.resolve import SymbolMatch, SymbolResolver
from ragstrata.store.protocols import Store

__all__ = ["check_policy", "near_misses"]

_MAX_REQ_HITS = 5
_MAX_CANDIDATES = 5


def check_policy(
    plan: RouterPlan,
    hits: Sequence[Hit],
    matches: Sequence[SymbolMatch],
    flow_hits: Sequence[Hit],
) -> dict[str, Requirement]:
    """Each requirement with the hits that satisfy it (all three listed, ``required`` as the
    plan says)."""
    policy = plan.evidence_policy
    weak = _weak_names(plan)
    unfound = [m.name for m in matches if m.name and not m.found and m.name not in weak]
    if unfound and facets_of(plan).how:
        # "how does it split a CamelCase name like HTTPServer?": a name no definition carries
        # that the code writes (inside `ToCamelCase`) is what the code works on, no symbol
        written = _name_ends(h.text for h in hits if h.layer == "C1")
        weak |= {name for name in unfound if fuzzy_key(name) in written}
    named = [m for m in matches if m.name and (m.found or m.name not in weak)]
    defs: list[Hit]
    if named:
        wanted = {r.row_id for m in named for r in m.definitions}
        defs = [h for h in hits if h.row_id in wanted]
        if not defs:  # found but ranked out of the hits: cite the lookup itself
            defs = [
                hit_from_row(r, 0.0, (f"symbol:{m.mode}",)) for m in named for r in m.definitions
            ]
        looked_def = "definition of " + ", ".join(m.name for m in named)
    else:
        defs = [h for h in hits if h.layer == "C1"]
        # a weak name no definition carries still says what to look at: the code writing it
        unfound = [m.name for m in matches if m.name and not m.found]
        writing = [h for h in defs if unfound and _writes(h.text, unfound)]
        defs = (writing or defs)[:1]
        looked_def = "a definition relevant to the question"
    def_names = ", ".join(dict.fromkeys(h.symbol or "?" for h in defs)) or looked_def
    spec = [h for h in hits if h.layer == "D1"]
    if plan.intent is Intent.DOCS_QA and named:
        spec += [
            h
            for h in defs
            if isinstance(h.extra.get("row"), DefinitionRow) and h.extra["row"].docstring
        ]
    return {
        "require_def": Requirement(
            name="require_def",
            required=policy.require_def,
            satisfied=bool(defs),
            hits=tuple(defs[:_MAX_REQ_HITS]),
            looked_for=looked_def,
        ),
        "require_flow": Requirement(
            name="require_flow",
            required=policy.require_flow,
            satisfied=bool(flow_hits),
            hits=tuple(flow_hits[:_MAX_REQ_HITS]),
            looked_for=f"callers or callees of {def_names}",
        ),
        "require_spec": Requirement(
            name="require_spec",
            required=policy.require_spec,
            satisfied=bool(spec),
            hits=tuple(spec[:_MAX_REQ_HITS]),
            looked_for="a documentation section",
        ),
    }


_STRONG = 0.7  # SYMBOL anchors below this confidence are weak (see the module docstring)


def _weak_names(plan: RouterPlan) -> set[str]:
    """Names typed in the question only as weak SYMBOL anchors (a Latin word in a Russian
    question, a name mined from pasted code or a log)."""
    strong: set[str] = set()
    weak: set[str] = set()
    for a in plan.query_plan.anchors:
        if a.type is AnchorType.SYMBOL and a.source == "query":
            name = a.value.strip("`()")
            (strong if a.confidence >= _STRONG else weak).add(name)
    return weak - strong


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_NAME_END = 4  # the shortest name read as the first or last words of an identifier


def _name_ends(texts: Iterable[str]) -> set[str]:
    """Every leading and trailing run of words of the identifiers ``texts`` write, joined as
    :func:`fuzzy_key` writes a name, at least :data:`_NAME_END` letters long (`ToCamelCase` ->
    ``tocamelcase``, ``camelcase``, ``case``, ``tocamel``)."""
    out: set[str] = set()
    for text in texts:
        for ident in set(_IDENT.findall(text)):
            words = [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", ident)]
            for n in range(1, len(words) + 1):
                for part in ("".join(words[:n]), "".join(words[-n:])):
                    if len(part) >= _NAME_END:
                        out.add(part)
    return out


def _writes(text: str, names: Sequence[str]) -> bool:
    """True when ``text`` contains one of ``names`` as a whole word (any case)."""
    low = text.lower()
    for name in names:
        n = name.lower()
        at = low.find(n)
        while at >= 0:
            before = low[at - 1] if at else " "
            after = low[at + len(n)] if at + len(n) < len(low) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return True
            at = low.find(n, at + 1)
    return False


def near_misses(
    store: Store, matches: Sequence[SymbolMatch], filters: SearchFilters | None
) -> tuple[Hit, ...]:
    """Nearest definitions for every named symbol that was not found: the fuzzy matches of the
    lookup cascade, and definitions named like the last dotted segment anywhere (no path
    scope: a dotted name may point at the wrong module)."""
    relaxed = SearchFilters(layers=("C1",), is_test=filters.is_test if filters else None)
    resolver = SymbolResolver(store)
    out: dict[str, Hit] = {}
    for m in matches:
        if m.found:
            continue
        # the resolver already ran the fuzzy search when nothing stricter matched
        rows = list(m.candidates)
        tail = last_segment(m.name)
        if tail != m.name.lower():
            exact = resolver.resolve(
                tail, relaxed, limit=_MAX_CANDIDATES, modes=(SymbolMode.EXACT,)
            )
            rows += exact.hits
        for r in rows:
            if r.row_id not in out:
                reason = f"candidate:{m.name}~{r.symbol} ({r.score:.2f})"
                out[r.row_id] = hit_from_row(r, r.score, (reason,))
    ranked = sorted(out.values(), key=lambda h: (-h.score, h.path, h.start_line))
    return tuple(ranked[:_MAX_CANDIDATES])
