"""A Mermaid flowchart of a page's main types and functions and the precise calls between them.

Nodes: the page's top-level definitions that take part in a resolved call, plus its types
(containers) up to :data:`MAX_NODES`, most connected first. Edges: ``page.edges`` only (calls
the indexer resolved to these very definitions; name-only matches never draw an arrow).
Types are drawn as boxes, functions as rounded boxes; resolved ``inherits`` / ``implements``
between them are dashed arrows labelled ``extends``. Labels are identifiers, never
translated. :func:`parse_flowchart` reads the subset back (the web page draws it as SVG).
"""

from __future__ import annotations

import re

from ragstrata.answer.docs.index_view import CONTAINER_KINDS
from ragstrata.answer.docs.model import Page

__all__ = ["MAX_NODES", "diagram", "parse_flowchart"]

MAX_NODES = 16
_NODE = re.compile(r'^\s*(n\d+)(\["|\(")(.*?)("\]|"\))\s*$')
_EDGE = re.compile(r"^\s*(n\d+)\s*(-->|-\.->\|extends\|)\s*(n\d+)\s*$")


def _short(symbol: str) -> str:
    return re.split(r"::|\.|#", symbol)[-1] or symbol


def _label(text: str) -> str:
    """Identifier characters only: no quotes, brackets, HTML, ``#60;`` entity codes or
    Markdown (a label of untrusted text never becomes markup in the diagram)."""
    return re.sub(r"[^\w.$@:+\-]", "", text)[:80] or "_"


def diagram(page: Page) -> str | None:
    """The Mermaid source for ``page``, or ``None`` when it has nothing to draw."""
    kinds: dict[str, str] = {}
    for part in page.files:
        for item in part.items:
            kinds[item.row.symbol] = item.row.kind
        for owner, where, _ in part.elsewhere:
            if where != "?":  # a type of another crate (or a primitive) is not drawn
                kinds.setdefault(owner, "class")
    degree: dict[str, int] = {}
    for a, b in (*page.edges, *page.inherits):
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    connected = sorted(degree, key=lambda s: (-degree[s], s))
    types = [s for s, k in kinds.items() if k in CONTAINER_KINDS and s not in degree]
    chosen = (connected + types)[:MAX_NODES]
    if not chosen or (not page.edges and not page.inherits and len(chosen) < 2):
        return None
    ids = {sym: f"n{i}" for i, sym in enumerate(chosen)}
    lines = ["flowchart LR"]
    for sym in chosen:
        label = _label(_short(sym))
        shape = ('["', '"]') if kinds.get(sym, "function") in CONTAINER_KINDS else ('("', '")')
        lines.append(f"  {ids[sym]}{shape[0]}{label}{shape[1]}")
    for a, b in page.edges:
        if a in ids and b in ids:
            lines.append(f"  {ids[a]} --> {ids[b]}")
    for a, b in page.inherits:
        if a in ids and b in ids:
            lines.append(f"  {ids[a]} -.->|extends| {ids[b]}")
    return "\n".join(lines)


def parse_flowchart(
    text: str,
) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str, bool]]] | None:
    """``(nodes as (id, label, is_type), edges as (from, to, is_inheritance))`` of a flowchart
    :func:`diagram` wrote, or ``None`` for any other Mermaid text."""
    lines = [s for s in text.strip().split("\n") if s.strip()]
    if not lines or lines[0].strip() not in ("flowchart LR", "graph LR"):
        return None
    nodes: list[tuple[str, str, bool]] = []
    edges: list[tuple[str, str, bool]] = []
    for line in lines[1:]:
        m = _NODE.match(line)
        if m:
            nodes.append((m.group(1), m.group(3), m.group(2) == '["'))
            continue
        e = _EDGE.match(line)
        if e:
            edges.append((e.group(1), e.group(3), e.group(2) != "-->"))
            continue
        return None
    known = {n for n, _, _ in nodes}
    if any(a not in known or b not in known for a, b, _ in edges):
        return None
    return nodes, edges
