"""The repository's own names and its dependencies' names in a question (anchor pass 6).

``repo_context.project_names`` / ``dependencies`` (read from the repository's manifests at
index time) become KEY_TERM anchors with subtype ``project`` / ``package``, never symbols —
unless backticked, written as a call (``gin()``), next to a code-unit word ("the Flask class")
or inside a qualified name (``Sinatra::Base``, ``gin.Engine``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ragstrata.query.extraction import Extraction, anchor_at
from ragstrata.query.intents import RouterData
from ragstrata.query.models import AnchorType, RepoContext
from ragstrata.query.symbol_words import names_a_symbol
from ragstrata.text.tokens import Token

__all__ = ["PROJECT_CONFIDENCE", "project_terms"]


PROJECT_CONFIDENCE = 0.9
"""Confidence of a KEY_TERM anchor naming the project or one of its dependencies."""


@lru_cache(maxsize=32)
def _names_re(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for all ``names`` as whole words (not inside a path, a dotted name or a
    file name: ``gin/context.go``, ``gin.Engine``, ``gin.go``, ``Sinatra::Base`` are not the
    project itself)."""
    alts = sorted({n for n in names if n.strip()}, key=len, reverse=True)
    if not alts:
        return None
    body = "|".join(re.escape(n) for n in alts)
    return re.compile(rf"(?<![\w./@$\\:-])(?:{body})(?![\w/@$\\-]|\.\w|::)", re.IGNORECASE)


def project_terms(
    raw: str, toks: Sequence[Token], data: RouterData, repo: RepoContext, out: Extraction
) -> None:
    """The repository's own names and its dependencies as KEY_TERM anchors (pass 6)."""
    own = {n.casefold() for n in repo.project_names}
    pattern = _names_re(tuple(sorted(own | {d.casefold() for d in repo.dependencies})))
    if pattern is None:
        return
    starts = {t.start: i for i, t in enumerate(toks)}
    for m in pattern.finditer(raw):
        s, e = m.start(), m.end()
        if out.overlaps(s, e) or raw[e : e + 1] == "(":
            continue
        i = starts.get(s)
        if i is not None and toks[i].end == e and names_a_symbol(raw, toks, i, data):
            continue  # "the Flask class", "класс Flask": a definition of that name
        subtype = "project" if m.group(0).casefold() in own else "package"
        out.add(anchor_at(AnchorType.KEY_TERM, raw, s, e, subtype, PROJECT_CONFIDENCE))
