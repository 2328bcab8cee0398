"""Server-side SVG for the flowcharts :func:`ragstrata.answer.docs.mermaid.diagram` writes.

The web page shows generated pages with their diagrams without a JavaScript renderer or any
network resource (the ``mermaid`` npm bundle is megabytes; this subset needs a hundred lines):
nodes are laid out left to right in layers by longest path from the callers (cycles broken at
the first back edge), stacked in each layer in source order; edges are straight arrows.
Labels are escaped text. Any other Mermaid text returns ``None`` and is shown as code.
"""

from __future__ import annotations

from html import escape

from ragstrata.answer.docs.mermaid import parse_flowchart

__all__ = ["flowchart_svg"]

_W, _H, _GAP_X, _GAP_Y, _PAD = 150, 34, 60, 18, 10


def _layers(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layer of each node over the edges that are not back edges of a DFS."""
    out_edges: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        if a != b:
            out_edges[a].append(b)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    order: list[str] = []
    dag: dict[str, list[str]] = {n: [] for n in nodes}

    def visit(n: str) -> None:
        state[n] = 1
        for m in out_edges[n]:
            if state.get(m) == 1:
                continue  # a back edge closes a cycle: not used for layering
            dag[n].append(m)
            if m not in state:
                visit(m)
        state[n] = 2
        order.append(n)

    for n in nodes:
        if n not in state:
            visit(n)
    layer = dict.fromkeys(nodes, 0)
    for n in reversed(order):  # topological order of the DAG
        for m in dag[n]:
            layer[m] = max(layer[m], layer[n] + 1)
    return layer


def flowchart_svg(text: str) -> str | None:
    """An ``<svg>`` drawing of the flowchart ``text``, or ``None`` when it is not one."""
    parsed = parse_flowchart(text)
    if parsed is None:
        return None
    nodes, edges = parsed
    ids = [n for n, _, _ in nodes]
    layer = _layers(ids, [(a, b) for a, b, _ in edges])
    rows: dict[int, int] = {}
    pos: dict[str, tuple[int, int]] = {}
    for n in ids:
        row = rows.get(layer[n], 0)
        rows[layer[n]] = row + 1
        pos[n] = (_PAD + layer[n] * (_W + _GAP_X), _PAD + row * (_H + _GAP_Y))
    width = _PAD * 2 + (max(layer.values(), default=0) + 1) * (_W + _GAP_X) - _GAP_X
    height = _PAD * 2 + max(rows.values(), default=1) * (_H + _GAP_Y) - _GAP_Y + _GAP_Y * 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/>'
        "</marker></defs>",
    ]
    for a, b, extends in edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dash = ' stroke-dasharray="5 4"' if extends else ""
        if layer[b] > layer[a]:
            out.append(
                f'<line class="edge{" extends" if extends else ""}" x1="{x1 + _W}" '
                f'y1="{y1 + _H // 2}" x2="{x2}" y2="{y2 + _H // 2}"{dash} '
                'marker-end="url(#arrow)"/>'
            )
        else:  # a call back to an earlier layer (a cycle): a curve below the boxes
            sx, ex, low = x1 + _W // 2, x2 + _W // 2, max(y1, y2) + _H + _GAP_Y * 2
            out.append(
                f'<path class="edge back" d="M {sx} {y1 + _H} Q {(sx + ex) // 2} {low} '
                f'{ex} {y2 + _H}" fill="none"{dash} marker-end="url(#arrow)"/>'
            )
    for n, label, is_type in nodes:
        x, y = pos[n]
        rx = 3 if is_type else 14
        shown = label if len(label) <= 20 else label[:19] + "…"
        out.append(
            f'<g class="node {"type" if is_type else "function"}" data-id="{escape(n)}">'
            f"<title>{escape(label)}</title>"
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="{rx}"/>'
            f'<text x="{x + _W // 2}" y="{y + _H // 2 + 5}" text-anchor="middle">'
            f"{escape(shown)}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)
