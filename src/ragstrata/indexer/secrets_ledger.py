"""How many secrets were redacted per file, kept beside the index for ``ragstrata status``.

A small JSON file ``<index dir>/secrets.json``: ``{"files": {path: {kind: count}}}``. Each
index run replaces the entries of the files it re-read and drops removed ones; it never holds
a secret, only kinds and counts. Losing it loses nothing but the count (the next rebuild
restores it).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["LEDGER_NAME", "read_ledger", "total_redacted", "update_ledger"]

LEDGER_NAME = "secrets.json"


def read_ledger(index_dir: Path) -> dict[str, dict[str, int]]:
    """``{path: {kind: count}}``; empty when there is no (readable) ledger."""
    try:
        data = json.loads((index_dir / LEDGER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        str(p): {str(k): int(v) for k, v in kinds.items() if isinstance(v, int)}
        for p, kinds in files.items()
        if isinstance(kinds, dict)
    }


def total_redacted(index_dir: Path) -> dict[str, int]:
    """Redactions in the whole index, by kind."""
    total: Counter[str] = Counter()
    for kinds in read_ledger(index_dir).values():
        total.update(kinds)
    return dict(sorted(total.items()))


def update_ledger(
    index_dir: Path,
    found: Mapping[str, Iterable[str]],
    removed: Iterable[str] = (),
    *,
    reset: bool = False,
) -> None:
    """Record the kinds redacted in the files just re-read (``found``: path -> kinds), drop
    ``removed`` paths; ``reset`` starts from an empty ledger (a rebuild)."""
    if not index_dir.is_dir():
        return  # a server store without a local folder: nothing to keep the count in
    files = {} if reset else read_ledger(index_dir)
    for path in removed:
        files.pop(path, None)
    for path, kinds in found.items():
        counts = dict(sorted(Counter(kinds).items()))
        if counts:
            files[path] = counts
        else:
            files.pop(path, None)
    fd, tmp = tempfile.mkstemp(dir=index_dir, prefix=".secrets.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"files": dict(sorted(files.items()))}, fh, indent=1)
    os.replace(tmp, index_dir / LEDGER_NAME)
