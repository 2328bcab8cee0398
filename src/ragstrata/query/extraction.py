"""The anchors of a question while its plan is being built: :class:`AnchorDraft` (with its
:class:`SpanDraft`) and the :class:`Extraction` the passes of :mod:`ragstrata.query.anchors`
fill, each pass skipping the text an earlier one claimed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragstrata.query.models import AnchorType

__all__ = ["AnchorDraft", "Extraction", "SpanDraft", "anchor_at"]

_MAX_PER_TYPE = 32


@dataclass(frozen=True, slots=True)
class SpanDraft:
    """A span while the plan is being built (see :class:`AnchorDraft`)."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class AnchorDraft:
    """An anchor while the plan is being built: the same fields as ``models.Anchor``.

    Plain slots objects are several times cheaper to make than pydantic models; the router
    validates all of them at once when it builds the ``RouterPlan``.
    """

    type: AnchorType
    value: str
    subtype: str | None
    span: SpanDraft | None
    confidence: float
    source: str = "query"
    lemma: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as ``models.Anchor`` takes them."""
        span = None if self.span is None else {"start": self.span.start, "end": self.span.end}
        return {
            "type": self.type,
            "value": self.value,
            "subtype": self.subtype,
            "span": span,
            "confidence": self.confidence,
            "source": self.source,
            "lemma": self.lemma,
        }


@dataclass(slots=True)
class Extraction:
    """Anchors found in ``raw`` and the spans later passes must ignore."""

    size: int
    anchors: list[AnchorDraft] = field(default_factory=list)
    code_spans: list[tuple[int, int]] = field(default_factory=list)  # backticks and URLs
    ru_dominant: bool = False
    _mask: bytearray = field(default_factory=bytearray)  # 1 = claimed by an anchor or URL
    _seen: dict[tuple[AnchorType, str], int] = field(default_factory=dict)
    _counts: dict[AnchorType, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._mask = bytearray(self.size)

    def overlaps(self, start: int, end: int) -> bool:
        """True when any position of ``[start, end)`` is claimed."""
        return 1 in self._mask[start:end]

    def claim(self, start: int, end: int) -> None:
        """Mark ``[start, end)`` as taken."""
        self._mask[start:end] = b"\x01" * (end - start)

    def add(self, anchor: AnchorDraft, claim: bool = True) -> None:
        """Keep ``anchor`` (first of its type and value, at most 32 per type)."""
        if claim and anchor.span is not None:
            self.claim(anchor.span.start, anchor.span.end)
        key = (anchor.type, anchor.value)
        at = self._seen.get(key)
        if at is not None:  # keep the earliest occurrence of a value
            old = self.anchors[at]
            if anchor.span and old.span and anchor.span.start < old.span.start:
                self.anchors[at] = anchor
            return
        if self._counts.get(anchor.type, 0) >= _MAX_PER_TYPE:
            return
        self._seen[key] = len(self.anchors)
        self._counts[anchor.type] = self._counts.get(anchor.type, 0) + 1
        self.anchors.append(anchor)


def anchor_at(
    kind: AnchorType, raw: str, start: int, end: int, subtype: str | None, conf: float
) -> AnchorDraft:
    """An anchor for ``raw[start:end]`` (its value is that text), confidence at most 0.99."""
    return AnchorDraft(
        kind, raw[start:end], subtype, SpanDraft(start, end), round(min(conf, 0.99), 2)
    )
