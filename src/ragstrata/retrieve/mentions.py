"""Files a question mentions: which FILE_PATH anchors point at indexed files, in what order.

Typed paths, traceback frames (``File "/…/site-packages/pkg/mod.py", line 9``) and paths seen in
pasted code are resolved against the indexed paths, also when they are absolute or come from
another machine (``~/code/pkg/pkg/mod.py``); the retriever turns the ones that resolve into
evidence (the ``path`` lists) and into path-scope prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.query.paths import path_part

__all__ = ["clean_path", "indexed_files", "path_mentions"]


def clean_path(path: str) -> str:
    """A mentioned path as a repository-relative candidate (no ``./``, no outer slashes)."""
    entry = path.replace("\\", "/").strip().strip("/")
    while entry.startswith("./"):
        entry = entry[2:]
    return entry


def indexed_files(entry: str, paths: Sequence[str]) -> list[str]:
    """Indexed files a mentioned path names: itself, the indexed paths ending with
    ``/entry``, or — for an absolute or foreign path (``/usr/lib/python3/site-packages/pkg/
    mod.py``, ``~/code/pkg/pkg/mod.py``) — the indexed path it ends with (longest first)."""
    entry = clean_path(entry)
    if not entry:
        return []
    known = set(paths)
    if entry in known:
        return [entry]
    tails = [p for p in paths if p.endswith("/" + entry)]
    if tails:
        return sorted(tails, key=len)
    segs = entry.split("/")
    for i in range(1, len(segs)):
        tail = "/".join(segs[i:])
        if tail in known:
            return [tail]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == segs[-1]]
    return same_name if len(same_name) == 1 else []  # a unique file name still points there


def path_mentions(plan: RouterPlan, limit: int) -> list[tuple[str, int | None]]:
    """(path, line or None) of the question's FILE_PATH anchors: typed paths first, then
    traceback frames innermost first (where the error was raised), then paths seen in pasted
    code, the last first (a log or an IPython traceback goes deeper as it goes on)."""
    typed: list[tuple[str, int | None]] = []
    frames: list[tuple[str, int | None]] = []
    seen: list[tuple[str, int | None]] = []
    for a in plan.query_plan.anchors:
        if a.type is not AnchorType.FILE_PATH or a.source != "query":
            continue
        base = path_part(a.value)
        m = re.search(r"(\d+)", a.value[len(base) :]) if len(a.value) > len(base) else None
        mention = (base, int(m.group(1)) if m else None)
        if a.subtype == "traceback":
            line = _frame_line(plan.query_plan.raw, a)
            frames.append((base, line))
        elif a.subtype == "in_code":
            seen.append(mention)
        else:
            typed.append(mention)
    out = typed + frames[::-1] + seen[::-1]
    return list(dict.fromkeys(out))[:limit]


_FRAME_LINE = re.compile(r'", line (\d+)')


def _frame_line(raw: str, anchor: object) -> int | None:
    """The line number after a traceback frame's path (``File "p", line 9``)."""
    span = getattr(anchor, "span", None)
    if span is None:
        return None
    m = _FRAME_LINE.match(raw, span.end)
    return int(m.group(1)) if m else None
