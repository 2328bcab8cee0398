"""What the facade's ``definition()``, ``references()`` and ``outline()`` return, JSON-ready.

The values wrap :mod:`ragstrata.retrieve.resolve` and :mod:`ragstrata.retrieve.rows` results;
MCP and HTTP render their ``to_dict()`` (adding only presentation such as citations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragstrata.core.rows import DefinitionRow, RelationRow
from ragstrata.core.values import ScoredRow
from ragstrata.retrieve.resolve import References, SymbolMatch

__all__ = [
    "MAX_SOURCE_LINES",
    "DefinitionResult",
    "OutlineResult",
    "ReferencesResult",
    "definition_dict",
    "relation_dict",
]

MAX_SOURCE_LINES = 300
"""Definition source longer than this is cut (the span still covers the whole definition)."""


def definition_dict(hit: ScoredRow, source: bool = True) -> dict[str, Any]:
    """One definition: where, what, signature, docstring and (``source``) its source lines."""
    row = hit.row
    assert isinstance(row, DefinitionRow)
    out: dict[str, Any] = {
        "symbol": row.symbol,
        "name": row.name,
        "kind": row.kind,
        "path": row.path,
        "start_line": row.start_line,
        "end_line": row.end_line,
        "signature": row.signature,
        "docstring": row.docstring,
        "decorators": list(row.decorators),
        "parent": row.parent,
        "language": row.language,
        "is_test": row.is_test,
        "score": round(hit.score, 6),
    }
    if source:
        lines = row.text.splitlines()
        out["source"] = "\n".join(lines[:MAX_SOURCE_LINES])
        out["source_truncated"] = len(lines) > MAX_SOURCE_LINES
    return out


def relation_dict(hit: ScoredRow) -> dict[str, Any]:
    """One C2 relation: the line it happens on, who relates to whom, and how."""
    row = hit.row
    assert isinstance(row, RelationRow)
    return {
        "path": row.path,
        "line": row.line or row.start_line,
        "relation": row.relation,
        "from_symbol": row.from_symbol,
        "to_name": row.to_name,
        "to_symbol": row.to_symbol,
        "resolved": row.to_symbol is not None,
        "is_test": row.is_test,
        "score": round(hit.score, 6),
    }


@dataclass(frozen=True, slots=True)
class DefinitionResult:
    """The definitions a name resolves to (``found``), else near candidates."""

    name: str
    match: SymbolMatch

    @property
    def found(self) -> bool:
        return self.match.found

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "found": self.found,
            "match": self.match.mode.value if self.found and self.match.mode else None,
            "definitions": [definition_dict(h) for h in self.match.definitions],
            "candidates": [definition_dict(h, source=False) for h in self.match.candidates],
        }


@dataclass(frozen=True, slots=True)
class ReferencesResult:
    """Callers, callees and test uses of the definition a name resolves to."""

    refs: References

    @property
    def found(self) -> bool:
        """True when the name resolved to a definition or any relation names it."""
        r = self.refs
        return r.match.found or bool(r.callers or r.callees)

    def to_dict(self) -> dict[str, Any]:
        r = self.refs
        best = r.match.definitions[:1]
        return {
            "name": r.name,
            "symbol": r.symbol,
            "found": self.found,
            "definition": definition_dict(best[0], source=False) if best else None,
            "callers": [relation_dict(h) for h in r.callers],
            "callees": [relation_dict(h) for h in r.callees],
            "tests": [relation_dict(h) for h in r.tests],
            "candidates": [definition_dict(h, source=False) for h in r.match.candidates],
        }


@dataclass(frozen=True, slots=True)
class OutlineResult:
    """A file's definitions in file order (``indexed`` false when the path is not indexed)."""

    path: str
    indexed: bool
    definitions: tuple[DefinitionRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "indexed": self.indexed,
            "definitions": [
                {
                    "symbol": d.symbol,
                    "name": d.name,
                    "kind": d.kind,
                    "start_line": d.start_line,
                    "end_line": d.end_line,
                    "signature": d.signature,
                    "parent": d.parent,
                    "is_exported": d.is_exported,
                    "docstring": d.docstring,
                }
                for d in self.definitions
            ],
        }
