"""Pre-flight findings (seed 003): parse a validator model's JSON verdict.

The model is asked for ``{"findings": [{"severity", "category", "observation"}, ...]}``. Replies
come wrapped in prose or code fences, so the JSON value starting at the first ``{`` is read with
the standard decoder (``raw_decode``: braces inside observations do not count) and must be valid.
Anything unusable raises ``ProviderError``: a validator that cannot be understood must not pass
silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ragstrata.errors import ProviderError
from ragstrata.llm.json_reply import json_at

__all__ = ["Finding", "PreflightResult", "Severity", "parse_preflight"]


class Severity(StrEnum):
    """How serious a finding is; only ``high`` blocks."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class Finding:
    """One observation of the validator."""

    severity: Severity
    category: str
    observation: str


@dataclass(frozen=True, slots=True)
class PreflightResult:
    """All findings of one validator run; no findings means the validator saw no problem."""

    findings: tuple[Finding, ...] = ()

    def has_blocking(self) -> bool:
        """True when any finding is of ``high`` severity."""
        return any(f.severity is Severity.HIGH for f in self.findings)

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> PreflightResult:
        """Build from any iterable of findings."""
        return cls(tuple(findings))


def _first_object(text: str) -> Any:
    """The JSON value starting at the first ``{`` (the standard decoder finds its end)."""
    start = text.find("{")
    if start < 0:
        raise ProviderError(f"preflight: no JSON object in reply {text[:80]!r}")
    found = json_at(text, start)
    if found is None:
        raise ProviderError(
            f"preflight: invalid or unclosed JSON object in reply {text[start : start + 80]!r}"
        )
    return found[0]


def _text_field(item: dict[str, Any], name: str, index: int) -> str:
    value = item.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ProviderError(f"preflight: finding {index} has no {name!r} (got {value!r})")
    return value


def _finding(item: Any, index: int) -> Finding:
    if not isinstance(item, dict):
        raise ProviderError(f"preflight: finding {index} is not an object: {item!r}")
    raw = item.get("severity")
    label = raw.strip().lower() if isinstance(raw, str) else ""
    try:
        severity = Severity(label)
    except ValueError:
        valid = ", ".join(s.value for s in Severity)
        raise ProviderError(
            f"preflight: finding {index} has severity {raw!r}; valid: {valid}"
        ) from None
    return Finding(
        severity=severity,
        category=_text_field(item, "category", index),
        observation=_text_field(item, "observation", index),
    )


def parse_preflight(text: str) -> PreflightResult:
    """Parse a validator reply into findings; raises ``ProviderError`` when it is unusable.

    An object without ``findings`` means no findings; severity is trimmed and lower-cased.
    """
    data = _first_object(text)
    findings = data.get("findings")
    if findings is None:
        return PreflightResult()
    if not isinstance(findings, list):
        raise ProviderError(f"preflight: 'findings' is not a list: {findings!r}")
    return PreflightResult(tuple(_finding(item, i) for i, item in enumerate(findings)))
