"""Values of the answer stage: the answer text and the citations it makes.

An answer's ``status`` says how far the evidence carried it: ``answered`` (every requirement
met), ``partial`` (answered from the best evidence while a requirement was only partly met —
the evidence's ``missing`` names it) or ``not_found`` (nothing the question named exists in the
index; nothing is asserted). ``lead`` is its opening sentence(s), in the question's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ragstrata.core.evidence import Evidence

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
    footer: str = ""  # the evidence status in plain words, in the question's language

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"answer status {self.status!r}; valid: {', '.join(STATUSES)}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "lead": self.lead,
            "text": self.text,
            "citations": [c.to_dict() for c in self.citations],
            "footer": self.footer,
            "meta": self.public_meta(),
        }

    @property
    def fallback_reason(self) -> str | None:
        """Why an LLM answer fell back to the extractive one (``None`` when it did not)."""
        reason = self.meta.get("llm_error")
        return str(reason) if reason else None

    @property
    def uncited_llm_reply(self) -> bool:
        """An LLM wrote this answer but cited no evidence block: not backed by the evidence."""
        return self.meta.get("mode") == "llm" and not self.citations

    def public_meta(self) -> dict[str, Any]:
        """What ``--json``, HTTP and MCP report about how the answer was made: mode, whether it
        is grounded in cited evidence, the LLM's provider, model, tokens and cost, and the
        reason for a fallback to the extractive answer. Every key is always present."""
        llm = self.meta.get("llm") or {}
        return {
            "mode": self.meta.get("mode", "extractive"),
            "grounded": self.grounded,
            "provider": llm.get("provider"),
            "model": llm.get("model"),
            "fallback_reason": self.fallback_reason,
            "input_tokens": llm.get("input_tokens"),
            "output_tokens": llm.get("output_tokens"),
            "cost_usd": llm.get("cost_usd"),
            "invalid_citations": list(self.meta.get("invalid_citations", [])),
            "uncited_sentences": len(self.meta.get("uncited_sentences", [])),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AskResult:
    """The whole result of ``ragstrata ask``: plan, evidence, answer, session, and notices about
    the index the answer came from (e.g. its vectors were made by another embedding model)."""

    plan: dict[str, Any]
    evidence: Evidence
    answer: Answer
    session: str | None = None
    notices: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The ``ask --json`` contract; ``notices`` appears only when there is one."""
        out: dict[str, Any] = {
            "plan": self.plan,
            "hits": [h.to_dict() for h in self.evidence.hits],
            "evidence": self.evidence.to_dict(),
            "answer": self.answer.to_dict(),
            "session": self.session,
        }
        if self.notices:
            out["notices"] = list(self.notices)
        return out
