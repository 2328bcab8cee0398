"""Secrets in file content: found with detect-secrets' detectors, redacted in place.

A repository is untrusted input and may hold credentials anywhere: a private key in a file named
``deploy_key``, a service-account JSON, API keys in ``settings_prod.py``, a PEM block pasted
into Markdown. Before any row is cut, :func:`redact_source` replaces every secret found in the
text by ``[REDACTED:<kind>]``, line for line (newlines are kept, so every citation still points
at the right lines), and the rest of the file stays searchable. Nothing downstream (rows,
embeddings, summaries sent to an LLM, ``/v1/source``) ever sees the secret.

Detection: detect-secrets' format detectors (AWS, GitHub, GitLab, Stripe, Slack, Twilio,
SendGrid, npm/PyPI, JWT, OpenAI, Azure, Discord, Telegram, basic auth in URLs, ...) run over
the whole text; its keyword detector (``password = "..."``, ``SECRET_KEY=...``) runs on the
lines that name a secret-like word, with its own false-positive heuristics. Its entropy
detectors are off (they flag every hash and id in code). A few rules it lacks are added below
(full PEM private-key blocks, also JSON-escaped; Google API keys; npm tokens; GitHub
fine-grained tokens), and a few shapes it cannot see: a private key with no END line (redacted
to the end of its base64 block), a PEM stored as base64 (a Kubernetes Secret's ``data``:
decoded and scanned), a secret-named assignment continued in parentheses over several lines,
and secret-named query parameters (``?api_key=``, ``&token=``, ``password=``). A file whose
*name* holds a token is skipped (:func:`path_secret`). Verification (network calls) is never
used.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ragstrata.core.rows import SourceFile

__all__ = ["Redaction", "find_secret_spans", "path_secret", "redact_source", "redact_text"]

_OFF = frozenset({"Base64 High Entropy String", "Hex High Entropy String", "Public IP (ipv4)"})
_KEYWORD_TYPE = "Secret Keyword"
# Vendor detectors whose patterns are slow over whole files (generic "<prefix>key = value"
# assignments) run only on files that name the vendor; plain assignments are the keyword
# detector's job anyway. The extra rules run only where their literal appears.
_GATES = {
    "Artifactory Credentials": ("artifactory", "jfrog", "akc"),
    "Cloudant Credentials": ("cloudant",),
    "IBM COS HMAC Credentials": ("ibm", "cos_hmac", "hmac_keys"),
    "IBM Cloud IAM Key": ("ibm",),
    "SoftLayer Credentials": ("softlayer",),
}  # lower-case literals, one of which the file must contain
_MIN_SECRET = 8  # a shorter "secret" is a placeholder (changeme, xxx), and redacting every
# occurrence of a short value would cut ordinary words

# Rules detect-secrets does not have (or only flags by their first line).
_EXTRA_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.|\n)*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        ),
    ),
    ("private-key", re.compile(r"PuTTY-User-Key-File-\d:(?:.|\n)*?Private-MAC: *[0-9a-f]+")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}")),
)
_EXTRA_LITERALS = ("PRIVATE KEY", "PuTTY-User-Key", "AIza", "npm_", "github_pat_")

# A private key whose END line is missing (cut off, or left out on purpose): from the BEGIN
# line to the end of the base64 block under it (plain or JSON-escaped line breaks).
_OPEN_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:[ \t]*\r?\n|\\r?\\n)[ \t]*(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+:[^\n\\]*))*"
)
# base64 of "-----BEGIN" (a PEM file stored encoded, as in a Kubernetes Secret's data), with the
# lines of base64 that continue it.
_B64_PEM = re.compile(
    r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]{8,}(?=[ \t]*\r?(?:\n|$)))*"
)
# NAME = ( "value" "more" ) over several lines: the keyword rule across the open parenthesis.
_PAREN_ASSIGNMENT = re.compile(
    r"(?im)^[ \t]*(?:export[ \t]+|const[ \t]+|let[ \t]+|var[ \t]+)?"
    r"[A-Za-z_][\w.]{0,80}?(?:pass|pwd|secret|token|api_?key|auth|cred|private)\w{0,40}"
    r"[ \t]*[:=][ \t]*\("
    r"[ \t]*\r?\n((?:[ \t]*(?:[rRbBuUfF]{0,2}(?:\"[^\"\n]*\"|'[^'\n]*')[ \t]*[,+]?[ \t]*)+\r?\n)+)"
    r"[ \t]*\)"
)
_STRING_LITERAL = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
# ?api_key=... / &token=... / "password=... in URLs, query strings and form bodies in a file's
# text (not ``token=tokenizer(...)`` in code: that is the keyword detector's business).
_SECRET_PARAMETER = re.compile(
    r"(?i)[?&;\"'](?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|password|"
    r"passwd|pwd|secret|client[_-]?secret)=([^&#\s\"'<>()\[\]{}`,;]+)"
)
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*")
_IDENTIFIER = re.compile(r"[a-z_]+|[A-Z_]+")
_KEYWORD_HINT = re.compile(r"pass|pwd|secret|token|api_?key|auth|cred|private")  # on lower()
_ASSIGNS = re.compile(r"[=:>]")


@dataclass(frozen=True, slots=True)
class Redaction:
    """What was redacted in one file: one kind per secret (never the secret itself)."""

    kinds: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.kinds)

    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(self.kinds).items()))


def _slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "secret"


@lru_cache(maxsize=1)
def _detectors() -> tuple[tuple[str, Any], ...]:
    # Imported here: a cheap package import, and the plugins load once.
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    classes: dict[str, Any] = get_mapping_from_secret_type_to_class()
    return tuple((kind, cls()) for kind, cls in sorted(classes.items()) if kind not in _OFF)


def _keyword_findings(
    text: str, lower: str, path: str, keyword: Any
) -> Iterator[tuple[str, int, int]]:
    from detect_secrets.filters import heuristic
    from detect_secrets.plugins.keyword import (
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        REGEX_BY_FILETYPE,
    )
    from detect_secrets.util.filetype import determine_file_type

    regexes = REGEX_BY_FILETYPE.get(
        determine_file_type(path), QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
    )
    seen: set[int] = set()
    for hint in _KEYWORD_HINT.finditer(lower):
        start = text.rfind("\n", 0, hint.start()) + 1
        if start in seen:
            continue
        seen.add(start)
        end = text.find("\n", hint.start())
        line = text[start : end if end >= 0 else len(text)].rstrip("\r")
        if not _ASSIGNS.search(line, hint.end() - start) or heuristic.is_indirect_reference(line):
            continue
        for value in keyword.analyze_string(line, denylist_regex_to_group=regexes):
            if (
                len(value) >= _MIN_SECRET
                and not any(c.isspace() for c in value)  # "range accounts {", prose
                and not _IDENTIFIER.fullmatch(value)  # secret_key = "secret_key"
                and not heuristic.is_templated_secret(value)
                and not heuristic.is_prefixed_with_dollar_sign(value)
                and not heuristic.is_sequential_string(value)
            ):
                at = line.find(value)
                if at >= 0:
                    yield _KEYWORD_TYPE, start + at, start + at + len(value)


def _regex_findings(text: str, kind: str, detector: Any) -> Iterator[tuple[str, int, int]]:
    """Spans of a regex detector's matches: its capture groups when they hold the secret
    (``://user:PASSWORD@``), else the whole match (``ghp_...``, whose group is the prefix)."""
    for regex in getattr(detector, "denylist", ()):
        for match in regex.finditer(text):
            groups = [
                (match.start(g), match.end(g))
                for g in range(1, (regex.groups or 0) + 1)
                if match.start(g) >= 0 and match.end(g) - match.start(g) >= _MIN_SECRET
            ]
            for start, end in groups or [(match.start(), match.end())]:
                if end - start >= _MIN_SECRET or "PRIVATE KEY" in match.group(0):
                    yield kind, start, _token_end(text, end)


def _token_end(text: str, end: int) -> int:
    # Some detectors' patterns end lazily (a JWT's signature): the secret runs to the end of
    # the token it is in.
    m = _TOKEN_TAIL.match(text, end)
    return m.end() if m else end


def _plausible(value: str) -> bool:
    """A value that may be a secret: long enough, one token, not a name or a placeholder."""
    from detect_secrets.filters import heuristic

    return (
        len(value) >= _MIN_SECRET
        and not any(c.isspace() for c in value)
        and not _IDENTIFIER.fullmatch(value)
        and not any(c in value for c in "${}<>%*")  # ${TOKEN}, <your-key>, %(key)s, ****
        and not heuristic.is_sequential_string(value)
    )


def _encoded_pem_findings(text: str) -> Iterator[tuple[str, int, int]]:
    """base64 runs that decode to a PEM holding a secret (a private key): the whole run."""
    import base64
    import binascii

    for match in _B64_PEM.finditer(text):
        packed = "".join(match.group(0).split())
        try:
            decoded = base64.b64decode(packed + "=" * (-len(packed) % 4)).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            continue
        found = [kind for kind, _, _ in find_secret_spans(decoded)]
        if found or "PRIVATE KEY" in decoded:
            yield (found[0] if found else "private-key"), match.start(), match.end()


def _shape_findings(text: str) -> Iterator[tuple[str, int, int]]:
    """Secrets detect-secrets misses by their shape: a private key with no END line, a PEM
    stored as base64, a secret-named assignment continued in parentheses, secret-named query
    parameters."""
    if "PRIVATE KEY" in text:
        for m in _OPEN_PRIVATE_KEY.finditer(text):
            yield "private-key", m.start(), m.end()
    if "LS0tLS1CRUdJTi" in text:
        yield from _encoded_pem_findings(text)
    if "(" in text:
        for m in _PAREN_ASSIGNMENT.finditer(text):
            body = m.group(1)
            pieces = [
                (
                    a.start(1) if a.group(1) is not None else a.start(2),
                    a.group(1) or a.group(2) or "",
                )
                for a in _STRING_LITERAL.finditer(body)
            ]
            if _plausible("".join(value for _, value in pieces)):
                for at, value in pieces:
                    if value:
                        start = m.start(1) + at
                        yield _KEYWORD_TYPE, start, start + len(value)
    if "=" in text:
        for m in _SECRET_PARAMETER.finditer(text):
            if _plausible(m.group(1)):
                yield "secret-parameter", m.start(1), m.end(1)


def find_secret_spans(text: str, path: str = "") -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` character spans of the secrets in ``text``, sorted, merged."""
    spans: list[tuple[str, int, int]] = []
    for (kind, rule), literal in zip(_EXTRA_RULES, _EXTRA_LITERALS, strict=True):
        if literal in text:
            spans += [(kind, m.start(), m.end()) for m in rule.finditer(text)]
    spans += _shape_findings(text)
    lower = text.lower()
    for kind, detector in _detectors():
        gate = _GATES.get(kind)
        if gate is not None and not any(literal in lower for literal in gate):
            continue
        if kind == _KEYWORD_TYPE:
            spans += _keyword_findings(text, lower, path, detector)
            continue
        spans += _regex_findings(text, _slug(kind), detector)
    spans.sort(key=lambda s: (s[1], -s[2]))
    merged: list[tuple[str, int, int]] = []
    for kind, start, end in spans:
        if merged and start < merged[-1][2]:  # overlaps: one redaction, the earlier kind
            last = merged[-1]
            merged[-1] = (last[0], last[1], max(last[2], end))
        else:
            merged.append((_slug(kind), start, end))
    return merged


def redact_text(text: str, path: str = "") -> tuple[str, Redaction]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]`` (newlines kept)."""
    if not text:
        return text, Redaction()
    spans = find_secret_spans(text, path)
    if not spans:
        return text, Redaction()
    parts: list[str] = []
    last = 0
    for kind, start, end in spans:
        marker = f"[REDACTED:{kind}]"
        parts.append(text[last:start])
        parts.append(re.sub(r"[^\n]+", marker, text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts), Redaction(tuple(kind for kind, _, _ in spans))


_TOKENISH = re.compile(r"[A-Za-z0-9_\-.+/=]{16,}")


def path_secret(path: str) -> str | None:
    """``path`` with the token in it redacted, when a file or folder name holds one
    (``keys/ghp_....txt``); None for an ordinary path. Such files are skipped, and only the
    redacted form is ever reported."""
    if not any(any(c.isdigit() for c in m.group(0)) for m in _TOKENISH.finditer(path)):
        return None  # no long run with a digit in it: no token format can match
    redacted, found = redact_text(path, path)
    return redacted if found.count else None


def redact_source(file: SourceFile) -> tuple[SourceFile, Redaction]:
    """``file`` with its secrets redacted (the same object when it has none)."""
    text, found = redact_text(file.text, file.path)
    return (replace(file, text=text) if found.count else file), found
