"""Which of the names a question uses exist in the index at all, and which paths are beside
the project (examples, benchmarks, repository templates). What the question asks for is its
facets (``ragstrata.query.facets``): this module reads no question words.

A name the question uses is *absent* when nothing in the index carries it: no definition (the
one resolver), no relation names it, and no code or documentation text contains it as a word.
Only an absent name makes an answer "not found"; a word that names no definition but occurs in
the code ("default", ``GIN_MODE``, ``Content-Type``) is a key term, answered from the best
evidence (status ``partial``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.answer.graphs.base import question_symbols
from ragstrata.core.evidence import Hit
from ragstrata.core.paths import peripheral_path
from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.query.symbol_words import EXAMPLE
from ragstrata.retrieve.reader import IndexReader, mentions

__all__ = [
    "absent_names",
    "build_script",
    "example_names",
    "literal_hits",
    "mentions",
    "not_overview_path",
    "term_hits",
    "typed_names",
]


@lru_cache(maxsize=1)
def _paths() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "answer", "paths.toml")
    return tomllib.loads(ref.read_text(encoding="utf-8"))


# the build's own scripts (Cargo's build.rs, setup.py, task runners, bundler configs)
_BUILD_FILES = frozenset(
    {"build.rs", "setup.py", "noxfile.py", "fabfile.py", "gulpfile.js", "gruntfile.js",
     "magefile.go", "rakefile", "build.gradle", "build.gradle.kts", "sconstruct"}
)  # fmt: skip
_BUILD_CONFIG = re.compile(r"^[\w-]+\.config\.[cm]?[jt]s$")  # webpack.config.js, vite.config.ts


def build_script(path: str) -> bool:
    """True for the build's own scripts (``build.rs``, ``setup.py``, ``webpack.config.js``):
    they hold settings, not the behaviour a how-question or an overview is about."""
    *folders, name = path.lower().split("/")
    if name == "build.rs" and "src" in folders:  # a module named `build`, no Cargo script
        return False
    return name in _BUILD_FILES or bool(_BUILD_CONFIG.match(name))


def not_overview_path(path: str) -> bool:
    """True for repository templates, licences, funding and similar pages."""
    low = path.lower()
    table = _paths()["not_overview"]
    if low.startswith(tuple(table["prefixes"])) or "/.github/" in low:
        return True
    name = low.rsplit("/", 1)[-1]
    return name.startswith(".") or name in set(table["names"])


# ---------------------------------------------------------------------- names in the index
def question_names(plan: RouterPlan, *, how: bool = False) -> list[str]:
    """The SYMBOL anchors the question itself names (those carried from a session when it
    names none); for a how-question (``how``) not the examples of data it gives."""
    names = typed_names(plan) or question_symbols(plan)
    return [n for n in names if n not in example_names(plan)] if how else names


def typed_names(plan: RouterPlan) -> list[str]:
    """The SYMBOL anchors the question itself writes, as written (none carried)."""
    raw = plan.query_plan.raw
    own = []
    for a in plan.query_plan.anchors:
        if a.type is not AnchorType.SYMBOL or a.source != "query":
            continue
        # the name as written: `$constructor`, `$ref` keep the sigil the anchor dropped
        start = a.span.start if a.span is not None else 0
        sigil = raw[start - 1] if 0 < start <= len(raw) and raw[start - 1] == "$" else ""
        own.append(sigil + a.value)
    return list(dict.fromkeys(own))


def absent_names(reader: IndexReader, plan: RouterPlan) -> list[str]:
    """The names the question uses that nothing in the index carries; a value given as an
    example («строка вида P1Y2M10DT2H30M», "a name like MaxRetries") is data the user made up,
    never a missing name."""
    examples = example_names(plan)
    return [n for n in question_names(plan) if n not in examples and not reader.name_in_index(n)]


def example_names(plan: RouterPlan) -> frozenset[str]:
    """The names the question gives as examples of data ("a string like "red.on_blue"", «имя
    вида MaxRetries»): what the code reads, not what it is asked about."""
    return frozenset(
        a.value
        for a in plan.query_plan.anchors
        if a.type is AnchorType.SYMBOL and a.subtype == EXAMPLE
    )


def literal_hits(hits: Sequence[Hit], names: Sequence[str]) -> list[Hit]:
    """``hits`` that contain one of ``names`` as a word, in their order: those that write it
    with the same case first (``SECRET_KEY`` before ``secret_key``)."""
    found = [h for h in hits if any(mentions(h.text, n) for n in names)]
    same = [h for h in found if any(_exact(h.text, n) for n in names)]
    return same + [h for h in found if h not in same]


def _exact(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) is not None


def term_hits(reader: IndexReader, term: str, limit: int = 8) -> list[Hit]:
    """Code and documentation that write ``term`` as given (an option, a variable, a header),
    definitions and code before prose, tests and repository pages left out."""
    from ragstrata.answer.graphs.base import hit_from_scored

    found = reader.rows_writing([term], ("C1", "C3", "D2"), 40)
    rows = [
        s
        for s in found
        if _exact(s.text, term)
        and not getattr(s.row, "is_test", False)
        and not not_overview_path(s.path)
        and s.end_line - s.start_line < 80
    ]
    order = {"C1": 0, "C3": 1, "D2": 2}
    rows.sort(
        key=lambda s: (
            getattr(s.row, "name", None) != term,  # the definition named so, first
            peripheral_path(s.path),
            order.get(str(s.layer), 3),
        )
    )
    return [hit_from_scored(s, f"term:{term}") for s in rows[:limit]]
