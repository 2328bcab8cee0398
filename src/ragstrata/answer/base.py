"""Values of the answer stage: the answer text and the citations it makes.

An answer's ``status`` says how far the evidence carried it: ``answered`` (every requirement
met), ``partial`` (answered from the best evidence while a requirement was only partly met —
the evidence's ``missing`` names it) or ``not_found`` (nothing the question named exists in the
index; nothing is asserted). ``lead`` is its opening sentence(s), in the question's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ragstrata.retrieve.base import Evidence

__all__ = ["STATUSES", "Answer", "AnswerStatus", "AskResult", "Citation"]

AnswerStatus = Literal["answered", "partial", "not_found"]
STATUSES: tuple[AnswerStatus, ...] = ("answered", "partial", "not_found")


@dataclass(frozen=True, slots=True)
class Citation:
    """A cited span of a file."""

    path: str
    start_line: int
    end_line: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line}


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What a graph produced: text in the question's language, with its citations."""

    text: str
    citations: tuple[Citation, ...]
    graph_id: str
    grounded: bool  # False when the evidence policy was not met and nothing was asserted
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    status: AnswerStatus = "answered"
    lead: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"answer status {self.status!r}; valid: {', '.join(STATUSES)}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "lead": self.lead,
            "text": self.text,
            "citations": [c.to_dict() for c in self.citations],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AskResult:
    """The whole result of ``ragstrata ask``: plan, evidence, answer, session."""

    plan: dict[str, Any]
    evidence: Evidence
    answer: Answer
    session: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": self.plan,
            "hits": [h.to_dict() for h in self.evidence.hits],
            "evidence": self.evidence.to_dict(),
            "answer": self.answer.to_dict(),
            "session": self.session,
        }
