"""LLM prose for a page: an overview and a paragraph per public item, written only from the
evidence the page gathered, every claim cited ``path:line``, every identifier checked.

One :class:`ProseJob` per text: its key (``overview`` or the item's qualified symbol), the
request, and the spans the evidence quotes. A reply is kept sentence by sentence:

- a sentence citing a span outside the job's evidence is dropped;
- a sentence naming (in backticks) an identifier that does not resolve in the index
  (:class:`~ragstrata.retrieve.resolve.SymbolResolver`, strict modes) and is not written in the
  evidence is dropped, and the name is reported so the page can say what was removed
  (DocAgent's truthfulness check);
- a sentence without any citation is dropped.

Replies are cached by the request's content hash (:func:`ragstrata.llm.base.summary_hash`), so
regenerating after a small change calls the model only for items whose evidence changed.
:func:`estimate` prices the jobs before anything is spent (``--dry-run``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ragstrata.docgen.fsio import write_atomic
from ragstrata.docgen.model import Item, Page
from ragstrata.docgen.strings import Strings
from ragstrata.llm.base import Request, Runner, summary_hash
from ragstrata.llm.summaries import estimate_tokens
from ragstrata.retrieve.resolve import CASCADE, SymbolResolver

__all__ = ["ProseCache", "ProseJob", "ProseResult", "estimate", "plan_jobs", "write_prose"]

EXPECTED_OUTPUT_TOKENS = {"overview": 250, "item": 120}
_CITE = re.compile(r"`?([^\s`]+?\.\w+):(\d+)(?:-(\d+))?`?")  # paths may hold ()[]@+
_CODE = re.compile(r"`([^`\n]+)`")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-ZА-ЯЁ`*])")
_LANGUAGE = {"en": "English", "ru": "Russian"}


@dataclass(frozen=True, slots=True)
class ProseJob:
    """One text to write: key, request, and the spans (path, start, end) it may cite."""

    key: str
    kind: str  # overview | item
    request: Request
    spans: tuple[tuple[str, int, int], ...]
    evidence_text: str

    @property
    def hash(self) -> str:
        return summary_hash(self.request)


@dataclass
class ProseResult:
    """What the model wrote (kept sentences), what was removed, and what it cost."""

    prose: dict[str, str] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    calls: int = 0
    cached: int = 0


class ProseCache:
    """Request hash -> reply, in one JSON file written atomically."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._data: dict[str, str] = {}
        if path is not None and path.is_file():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                self._data = {str(k): str(v) for k, v in loaded.items()}
            except (OSError, ValueError):
                self._data = {}

    def get(self, key: str) -> str | None:
        return self._data.get(key)

    def put(self, key: str, text: str) -> None:
        self._data[key] = text

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(self._data, ensure_ascii=False, sort_keys=True))


def _system(s: Strings) -> str:
    return (
        f"You write reference documentation in {_LANGUAGE[s.language]} from the evidence "
        "given, and nothing else. Rules: every sentence ends with a citation `path:line` "
        "taken from the evidence; name identifiers in backticks exactly as written in the "
        "evidence; do not invent parameters, behaviour or names; no headings, no lists; "
        "at most five sentences."
    )


def _item_evidence(item: Item) -> tuple[str, list[tuple[str, int, int]]]:
    row = item.row
    spans = [(row.path, row.start_line, row.end_line)]
    lines = [f"[{row.path}:{row.start_line}-{row.end_line}] {row.kind} {row.symbol}",
             row.signature]
    if row.docstring:
        lines.append(row.docstring.strip())
    body = "\n".join(row.text.split("\n")[:30])
    if body:
        lines.append(body)
    for m in item.members[:20]:
        spans.append((m.row.path, m.row.start_line, m.row.end_line))
        lines.append(f"[{m.row.path}:{m.row.start_line}] {m.row.signature}"
                     + (f" — {m.doc.summary}" if m.doc.summary else ""))
    return "\n".join(lines), spans


def plan_jobs(page: Page, s: Strings) -> list[ProseJob]:
    """The texts an LLM would write for ``page``: the overview, then one per public item."""
    jobs: list[ProseJob] = []
    system = _system(s)
    tops = [page.symbol] if page.symbol else [i for f in page.files for i in f.items]
    if page.kind != "symbol":
        lines, spans = [], []
        if page.overview:
            ov = page.overview
            spans.append((ov.path, ov.start_line, ov.end_line))
            lines.append(f"[{ov.path}:{ov.start_line}-{ov.end_line}] {ov.text}")
        for item in tops[:40]:
            r = item.row
            spans.append((r.path, r.start_line, r.end_line))
            lines.append(f"[{r.path}:{r.start_line}] {r.kind} {r.symbol}: {r.signature}"
                         + (f" — {item.doc.summary}" if item.doc.summary else ""))
        text = "\n".join(lines)
        user = f"Evidence for `{page.target or '.'}`:\n{text}\n\nWrite the overview: what it is for."
        jobs.append(ProseJob("overview", "overview", Request(system, user), tuple(spans), text))
    for item in tops:
        text, spans = _item_evidence(item)
        user = f"Evidence:\n{text}\n\nDescribe `{item.row.name}`: purpose, use, parameters."
        jobs.append(ProseJob(item.row.symbol, "item", Request(system, user), tuple(spans), text))
    return jobs


def estimate(jobs: Iterable[ProseJob], cache: ProseCache) -> dict[str, int]:
    """Calls and tokens the jobs not yet cached would spend."""
    calls = tokens_in = tokens_out = cached = 0
    for job in jobs:
        if cache.get(job.hash) is not None:
            cached += 1
            continue
        calls += 1
        tokens_in += estimate_tokens(job.request.combined())
        tokens_out += EXPECTED_OUTPUT_TOKENS[job.kind]
    return {"calls": calls, "cached": cached, "input_tokens": tokens_in,
            "output_tokens": tokens_out}


def write_prose(
    jobs: list[ProseJob],
    runner: Runner,
    cache: ProseCache,
    resolver: SymbolResolver,
    progress: Callable[[int, int], None] | None = None,
) -> ProseResult:
    """Run (or read from ``cache``) every job and keep only checked sentences."""
    out = ProseResult()
    known: dict[str, bool] = {}
    for n, job in enumerate(jobs, 1):
        text = cache.get(job.hash)
        if text is None:
            text = runner.run(job.request).text
            cache.put(job.hash, text)
            out.calls += 1
        else:
            out.cached += 1
        kept = check_text(text, job, resolver, known, out.removed)
        if kept:
            out.prose[job.key] = kept
        if progress:
            progress(n, len(jobs))
    cache.save()
    out.removed = sorted(set(out.removed))
    return out


def check_text(
    text: str,
    job: ProseJob,
    resolver: SymbolResolver,
    known: dict[str, bool],
    removed: list[str],
) -> str:
    """The sentences of ``text`` whose citations and identifiers check out."""
    kept = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        cites = [(m.group(1), int(m.group(2)), int(m.group(3) or m.group(2)))
                 for m in _CITE.finditer(sentence)]
        if not cites or not all(_within(c, job.spans) for c in cites):
            continue
        bad = []
        for m in _CODE.finditer(sentence):
            token = m.group(1).strip()
            if _CITE.fullmatch(token) or not _IDENT.match(token):
                continue
            if not _resolves(token, job.evidence_text, resolver, known):
                bad.append(token)
        if bad:
            removed.extend(bad)
            continue
        kept.append(sentence)
    return " ".join(kept)


def _within(cite: tuple[str, int, int], spans: Iterable[tuple[str, int, int]]) -> bool:
    path, start, end = cite
    return any(p == path and s <= start and end <= e for p, s, e in spans)


def _resolves(token: str, evidence: str, resolver: SymbolResolver, known: dict[str, bool]) -> bool:
    name = token.removesuffix("()")
    if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", evidence):
        return True  # written in the evidence itself
    if name not in known:
        known[name] = resolver.resolve(name, limit=1, modes=CASCADE[:3]).found
    return known[name]
