"""Safe, meaning-preserving normalization of a question (seed §4.1).

Rules, in order, applied until the text no longer changes (so the result is idempotent):

1. Unicode NFC.
2. Control characters (category Cc) become spaces; invisible format characters that carry no
   meaning (zero-width space, word joiner, BOM, soft hyphen) are removed.
3. Code in backticks (a run of N backticks up to the next run of exactly N) is kept verbatim.
4. Outside backticks: typographic quotes become ``"`` / ``'``, typographic dashes and the minus
   sign become ``-``, ``…`` becomes ``...``; tokens holding ``/`` or ``\\`` (paths) are left as
   written; runs of ``!``/``?`` collapse to one (``?!`` when both occur), four or more dots to
   ``...``, repeated commas to one.
5. Whitespace (any Unicode space, tabs, newlines) collapses to one space; the ends are trimmed.

Case is never changed and nothing is ever added: no expansions, synonyms or guesses.
"""

from __future__ import annotations

import re
import unicodedata

from ragstrata.query.lexicon import BACKTICK_RE

__all__ = ["normalize"]

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_INVISIBLE_RE = re.compile("[\u200b\u2060\ufeff\u00ad]")
_CHUNK_RE = re.compile(r"\S+|\s+")
_BANG_RE = re.compile(r"[!?]{2,}")
_DOTS_RE = re.compile(r"\.{4,}")
_COMMAS_RE = re.compile(r",{2,}")
_TYPO = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
    }
)
_MAX_ROUNDS = 6
# Anything a rule could change; text without it (and already NFC) is returned as is.
_WORK_RE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b\u2060\ufeff\u00ad`\u2018\u2019\u201a\u201b\u2032"
    "\u201c-\u201f\u00ab\u00bb\u2033\u2010-\u2015\u2212\u2026]"
    r"|[!?]{2}|\.{4}|,,|\s\s|[^\S ]|^\s|\s$"
)


def _bangs(m: re.Match[str]) -> str:
    run = m.group()
    if "?" in run and "!" in run:
        return "?!"
    return run[0]


def _plain(text: str) -> str:
    """Rules 4 for a stretch outside backticks (whitespace is handled by the caller)."""
    out: list[str] = []
    for chunk in _CHUNK_RE.findall(text):
        if chunk.isspace() or "/" in chunk or "\\" in chunk:
            out.append(chunk)
            continue
        chunk = chunk.translate(_TYPO)
        chunk = _BANG_RE.sub(_bangs, chunk)
        chunk = _DOTS_RE.sub("...", chunk)
        chunk = _COMMAS_RE.sub(",", chunk)
        out.append(chunk)
    return "".join(out)


def _collapse(text: str) -> str:
    """Collapse whitespace, keeping one space at an edge that had any (trimmed later)."""
    if not text:
        return text
    core = " ".join(text.split())
    if not core:
        return " "
    lead = " " if text[0].isspace() else ""
    trail = " " if text[-1].isspace() else ""
    return lead + core + trail


def _one_round(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL_RE.sub(" ", text)
    text = _INVISIBLE_RE.sub("", text)
    pieces: list[str] = []
    pos = 0
    for m in BACKTICK_RE.finditer(text):
        pieces.append(_collapse(_plain(text[pos : m.start()])))
        pieces.append(m.group())  # code in backticks: verbatim
        pos = m.end()
    pieces.append(_collapse(_plain(text[pos:])))
    return "".join(pieces).strip()


def normalize(raw: str) -> str:
    """The canonical, deterministic, idempotent form of ``raw`` (see module docstring)."""
    if _WORK_RE.search(raw) is None and unicodedata.is_normalized("NFC", raw):
        return raw  # fast path: no rule applies (tests check it agrees with _apply_rules)
    return _apply_rules(raw)


def _apply_rules(raw: str) -> str:
    """All rules, repeated until the text no longer changes."""
    text = raw
    for _ in range(_MAX_ROUNDS):
        nxt = _one_round(text)
        if nxt == text:
            break
        text = nxt
    return text
