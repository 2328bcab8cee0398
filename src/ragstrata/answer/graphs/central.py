"""The project's central definitions, for an overview: the types the rest of its code uses most.

Like a repository map, the parts of a project are found from its own graph: every resolved
relation (a call, a construction, a type reference, an inheritance) counts once per file it
comes from toward the type that owns its target (a method's class, struct or trait), when the
two are in different files. Examples, benchmarks, docs sites, tests and vendored code neither
count nor rank. The best :data:`MAX_CENTRAL` types, at most two from one file, are the parts an
overview names, each with the first sentence of its doc comment.
"""

from __future__ import annotations

import re
from collections import defaultdict

from ragstrata.answer.graphs.base import CitationList, first_sentence, short_name
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.sections import main_readme, readme_parts
from ragstrata.core.languages import detect_language, is_test
from ragstrata.core.paths import peripheral_path
from ragstrata.core.rows import DefinitionRow
from ragstrata.core.values import DefinitionKey, SymbolMode
from ragstrata.retrieve.reader import IndexReader

__all__ = ["MAX_CENTRAL", "central_definitions", "overview_parts", "parts_part"]

MAX_CENTRAL = 6
_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type_alias", "object"})
_PER_FILE = 2
_VENDORED = ("vendor/", "third_party/", "node_modules/")
_PART_LINES = 12  # each part is cited by its head: its doc comment and declaration
_LEAD_PARTS = 3


def _beside(path: str) -> bool:
    return (
        peripheral_path(path) or is_test(path, detect_language(path)) or path.startswith(_VENDORED)
    )


def _owners(defs: dict[str, DefinitionKey]) -> dict[str, str]:
    """Definition symbol -> the type that owns it (itself for a type), when it has one."""
    out: dict[str, str] = {}
    for symbol in defs:
        seen = 0
        current: str | None = symbol
        while current is not None and current in defs and seen < 8:
            if defs[current].kind in _TYPE_KINDS:
                out[symbol] = current
                break
            current = defs[current].parent
            seen += 1
    return out


def central_definitions(reader: IndexReader, limit: int = MAX_CENTRAL) -> list[DefinitionRow]:
    """The most used types of the project's own code, most used first (module docstring)."""
    defs = {k.symbol: k for k in reader.definition_keys() if not _beside(k.path)}
    owners = _owners(defs)
    users: dict[str, set[str]] = defaultdict(set)
    for rel in reader.relation_keys():
        if rel.to_symbol is None or rel.relation == "contains" or _beside(rel.path):
            continue
        owner = owners.get(rel.to_symbol)
        if owner is not None and defs[owner].path != rel.path:
            users[owner].add(rel.path)
    ranked = sorted(users, key=lambda s: (-len(users[s]), defs[s].path, s))
    rows: list[DefinitionRow] = []
    for symbol in ranked[: limit * _CANDIDATES]:
        row = reader.resolver.resolve(symbol, limit=1, modes=(SymbolMode.QUALIFIED,)).best
        if row is not None:
            rows.append(row)
    # the project's public face first: the types its README names, then exported ones (a
    # private `contextKey` every middleware uses is no part a reader asks about)
    named = _readme_words(reader)
    order = {row.symbol: n for n, row in enumerate(rows)}
    rows.sort(key=lambda r: (r.name not in named, not r.is_exported, order[r.symbol]))
    out: list[DefinitionRow] = []
    per_file: dict[str, int] = defaultdict(int)
    for row in rows:
        if per_file[row.path] >= _PER_FILE:
            continue
        per_file[row.path] += 1
        out.append(row)
        if len(out) >= limit:
            break
    return out


_CANDIDATES = 4  # how many times ``limit`` of the most used types are weighed
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _readme_words(reader: IndexReader) -> frozenset[str]:
    """The identifiers the project's README writes (``from cachetools import cached, LRUCache``)."""
    readme = main_readme(reader.paths())
    text = "\n".join(s.text for s in reader.sections(readme)) if readme else ""
    return frozenset(_IDENTIFIER.findall(text))


def parts_part(
    reader: IndexReader, msgs: Messages, citations: CitationList
) -> tuple[str, str] | None:
    """The project's main parts for an overview, each with the first sentence of its doc
    comment and cited by its head, and the lead naming the first ones; None without any."""
    rows = central_definitions(reader)
    if not rows:
        return None
    items, named = [], []
    for row in rows:
        end = min(row.end_line, row.start_line + _PART_LINES - 1)
        cited = citations.add(row.path, row.start_line, end)
        doc = first_sentence(row.docstring or "", 160)
        kind = msgs.kind(row.kind).lower()
        items.append(f"- `{row.symbol}` ({kind}, `{cited}`)" + (f" — {doc}" if doc else ""))
        named.append(f"`{short_name(row.symbol)}` (`{cited}`)")
    lead = msgs.t("lead_parts", items=", ".join(named[:_LEAD_PARTS]))
    return msgs.t("parts") + "\n\n" + "\n".join(items), lead


def overview_parts(
    reader: IndexReader, msgs: Messages, citations: CitationList
) -> tuple[list[str], str] | None:
    """ "What are the main parts?": the README's own description first, then the types the
    rest of the code uses most (:func:`parts_part`); and the lead."""
    out: list[str] = []
    lead = ""
    found_readme = readme_parts(reader, reader.paths())
    if found_readme is not None:
        path, start, text = found_readme
        cited = citations.add(path, start, start + text.count("\n"))
        summary = text
        lead = msgs.t("lead_overview", cite=cited, summary=first_sentence(summary))
        out.append(msgs.t("overview", cite=cited) + "\n\n" + summary)
    found = parts_part(reader, msgs, citations)
    if found is not None:
        out.append(found[0])
        lead = lead or found[1]
    return (out, lead) if out else None
