"""Values the retrieve stage hands to the answer stage (and to ``--json`` output).

A ``Hit`` is one piece of evidence with its location and why it ranked; ``Evidence`` is the
ranked hits plus the evidence-policy check (seed 001 §8) for one plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Evidence", "Hit", "Requirement", "SearchResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One ranked piece of evidence: a row of some layer, cited as ``path:start-end``."""

    layer: str  # C0..C3, D0..D2
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    score: float
    reasons: tuple[str, ...]  # e.g. ("lexical:C1#1", "dense:C3#4", "symbol:exact UserService")
    text: str
    row_id: str = ""
    kind: str | None = None  # C1 kind, C2 relation, D1 "section"...
    heading_path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def citation(self) -> str:
        """``path:start-end`` (or ``path:line`` for one line)."""
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_dict(self) -> dict[str, Any]:
        """The public JSON shape of a hit (``ragstrata search --json``)."""
        return {
            "layer": self.layer,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "symbol": self.symbol,
            "score": round(self.score, 6),
            "reasons": list(self.reasons),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Requirement:
    """One evidence-policy requirement (require_def / require_flow / require_spec)."""

    name: str
    required: bool
    satisfied: bool
    hits: tuple[Hit, ...] = ()
    looked_for: str = ""  # what was searched for, in words ("definition of UserService")

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "satisfied": self.satisfied,
            "hits": [h.citation for h in self.hits],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """Everything retrieval found for one plan, and whether it meets the policy."""

    hits: tuple[Hit, ...]
    requirements: dict[str, Requirement]
    candidates: tuple[Hit, ...] = ()  # near misses offered when a requirement is missing
    # a follow-up's: what the question it follows and the follow-up, read together, find
    followed: tuple[Hit, ...] = ()

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(n for n, r in self.requirements.items() if r.required and not r.satisfied)

    @property
    def satisfied(self) -> bool:
        return not self.missing

    def to_dict(self) -> dict[str, Any]:
        return {
            "satisfied": self.satisfied,
            "missing": list(self.missing),
            "requirements": {n: r.to_dict() for n, r in self.requirements.items()},
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """A plan and its ranked hits (``ragstrata search``)."""

    plan: dict[str, Any]
    hits: tuple[Hit, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"plan": self.plan, "hits": [h.to_dict() for h in self.hits]}
