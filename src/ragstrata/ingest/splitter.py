"""Recursive text splitter (seed 002) with exact source offsets and line spans.

The algorithm follows the seed's recursive splitter: pick the first separator of the ladder that
occurs in the text, cut the text on it, merge consecutive pieces while they fit ``chunk_size``
(measured by ``len_func``), and re-split any piece that does not fit with the separators that
follow the one used. When a chunk is emitted, pieces are dropped from its front until what is
left is at most ``overlap_size`` long; the remainder starts the next chunk (the overlap).

Every chunk the algorithm produces is a contiguous slice of the source, so it is computed on
offsets: :class:`RecursiveSplitter` reproduces the seed's strings exactly (conformance suite
``shared/conformance/recursive_splitter.json``), and :func:`split_spans` returns
:class:`TextSpan` values (code-point offsets, 1-based inclusive lines) for ragstrata's own rows.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate
from operator import add, sub
from typing import Any

from ragstrata.core.rows import Layer, row_id
from ragstrata.errors import ConfigError

__all__ = [
    "DEFAULT_SEPARATORS",
    "Document",
    "KeepType",
    "RecursiveSplitter",
    "TextSpan",
    "chunk_id",
    "split_spans",
]

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n", ".", "?", "!")

# Go's unicode.IsSpace set (the seed trims with strings.TrimSpace); Python's str.isspace()
# additionally treats U+001C..U+001F as space, which Go does not.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


class KeepType(Enum):
    """Where a separator goes when the text is cut on it."""

    NONE = "none"  # dropped (re-inserted between pieces merged into one chunk)
    START = "start"  # glued to the start of the following piece
    END = "end"  # glued to the end of the preceding piece

    @classmethod
    def parse(cls, value: KeepType | str | int) -> KeepType:
        """Accept the enum, its name/value (``"none"``, ``"start"``, ``"end"``) or 0/1/2."""
        if isinstance(value, KeepType):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 3:
            return list(cls)[value]
        if isinstance(value, str):
            for member in cls:
                if value.lower() in (member.value, member.name.lower()):
                    return member
        valid = ", ".join(repr(m.value) for m in cls)
        raise ConfigError(f"unknown keep type {value!r}: expected one of {valid} (or 0, 1, 2)")


@dataclass(frozen=True, slots=True)
class TextSpan:
    """A chunk of a source text: ``text == source[start_offset:end_offset]``.

    Offsets are code points, end exclusive; lines are 1-based and inclusive.
    """

    start_offset: int
    end_offset: int
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    """A document of the seed's transformer interface: ``{id, content, metadata}``."""

    id: str
    content: str
    metadata: dict[str, Any] | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Document:
        """Build from a ``{id, content, metadata}`` mapping (``id`` defaults to "")."""
        meta = data.get("metadata")
        return cls(
            str(data.get("id", "")), str(data["content"]), None if meta is None else dict(meta)
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of the conformance file."""
        return {"id": self.id, "content": self.content, "metadata": self.metadata}


IdGenerator = Callable[[str, int], str]


# ---------------------------------------------------------------------------- the algorithm
# A "piece" is a half-open span (start, end) of the source. _Cutter carries the settings.


@dataclass(frozen=True, slots=True)
class _Cutter:
    chunk_size: int
    overlap: int
    len_func: Callable[[str], int]
    keep: KeepType | None  # None: per separator (newline-led -> START, otherwise END)

    def keep_for(self, sep: str) -> KeepType:
        if self.keep is not None:
            return self.keep
        return KeepType.START if sep.startswith("\n") else KeepType.END

    def pieces(self, text: str, lo: int, hi: int, sep: str) -> tuple[list[int], list[int]]:
        """Cut ``text[lo:hi]`` on ``sep`` (Go strings.Split / SplitAfter semantics): the starts
        and ends of the pieces."""
        if sep == "":
            return list(range(lo, hi)), list(range(lo + 1, hi + 1))
        parts = (text if lo == 0 and hi == len(text) else text[lo:hi]).split(sep)
        if len(parts) == 1:
            return [lo], [hi]
        n = len(sep)
        lens = list(map(len, parts))
        keep = self.keep_for(sep)
        if keep is KeepType.NONE:  # pieces exclude the separator between them
            starts = list(accumulate([k + n for k in lens[:-1]], initial=lo))
            return starts, list(map(add, starts, lens))
        if keep is KeepType.END:  # a piece ends just after its separator
            bounds = list(accumulate([k + n for k in lens[:-1]], initial=lo))
        else:  # START: every piece but the first begins with the separator
            bounds = list(accumulate([lens[0], *(k + n for k in lens[1:-1])], initial=lo))
        bounds.append(hi)
        return bounds[:-1], bounds[1:]

    def split(
        self, text: str, lo: int, hi: int, seps: Sequence[str]
    ) -> list[tuple[int, int, bool]]:
        """Chunks of ``text[lo:hi]`` as (start, end, merged); merged chunks still need trimming."""
        sep: str = seps[-1]
        rest: tuple[str, ...] = ()
        for i, candidate in enumerate(seps):
            if candidate == "" or text.find(candidate, lo, hi) != -1:
                sep, rest = candidate, tuple(seps[i + 1 :])
                break
        by_len = self.len_func is len
        if sep == "" and by_len and self.chunk_size > 1:
            return self.windows(lo, hi)
        starts, ends = self.pieces(text, lo, hi, sep)
        if by_len:
            lengths = list(map(sub, ends, starts))
        else:
            lengths = [self.len_func(text[s:e]) for s, e in zip(starts, ends, strict=True)]
        size = self.chunk_size
        big = [i for i, length in enumerate(lengths) if length >= size]
        # Pieces measured by len with the separator kept inside them are contiguous and add up
        # exactly, so their merge can be computed by bisection instead of piece by piece.
        fast = by_len and self.keep_for(sep) is not KeepType.NONE
        out: list[tuple[int, int, bool]] = []
        prev = 0
        for i in [*big, len(starts)]:
            if i > prev:
                if fast:
                    out.extend(self.merge_contiguous(starts[prev:i], ends[prev:i]))
                else:
                    good = list(zip(starts[prev:i], ends[prev:i], lengths[prev:i], strict=True))
                    out.extend(self.merge(good, sep))
            if i < len(starts):  # an oversize piece: re-split it, or keep it whole
                if rest:
                    out.extend(self.split(text, starts[i], ends[i], rest))
                else:
                    out.append((starts[i], ends[i], False))
            prev = i + 1
        return out

    def merge_contiguous(self, starts: list[int], ends: list[int]) -> list[tuple[int, int, bool]]:
        """``merge`` for contiguous pieces measured by ``len`` (no separator length between
        them): the window's total is a difference of offsets, so each chunk's last piece and
        the next chunk's first (overlap) piece are found by bisection."""
        size, overlap, n = self.chunk_size, self.overlap, len(starts)
        chunks: list[tuple[int, int, bool]] = []
        head, lo = 0, 1
        while True:
            nxt = bisect_right(ends, starts[head] + size, lo, n)  # first piece that does not fit
            if nxt == n:
                chunks.append((starts[head], ends[-1], True))
                return chunks
            chunks.append((starts[head], ends[nxt - 1], True))
            # Keep the trailing pieces that are an overlap and leave room for piece nxt.
            floor = max(starts[nxt] - overlap, min(starts[nxt], ends[nxt] - size))
            head = bisect_left(starts, floor, head, nxt)
            lo = nxt + 1

    def windows(self, lo: int, hi: int) -> list[tuple[int, int, bool]]:
        """What ``merge`` makes of one-character pieces measured by ``len``, computed directly:
        windows of chunk_size characters, each next one re-using the last
        ``min(overlap, chunk_size - 1)`` characters of the previous."""
        step = self.chunk_size - min(self.overlap, self.chunk_size - 1)
        out: list[tuple[int, int, bool]] = []
        start = lo
        while start < hi:
            end = start + self.chunk_size
            if end >= hi:
                out.append((start, hi, True))
                break
            out.append((start, end, True))
            start += step
        return out

    def merge(self, good: list[tuple[int, int, int]], sep: str) -> list[tuple[int, int, bool]]:
        """Merge consecutive pieces into chunks of at most chunk_size, keeping an overlap."""
        glue = self.len_func(sep) if self.keep_for(sep) is KeepType.NONE else 0
        size, overlap = self.chunk_size, self.overlap
        chunks: list[tuple[int, int, bool]] = []
        current: list[tuple[int, int, int]] = []
        head = 0  # current[head:] is the live window (avoids O(n) pops from the front)
        total = 0
        for piece in good:
            length = piece[2]
            count = len(current) - head
            if count and total + length + glue > size:
                chunks.append((current[head][0], current[-1][1], True))
                # Drop pieces from the front until what is left is an overlap and fits.
                while count and (
                    total > overlap
                    or (total > 0 and total + length + (glue if count >= 2 else 0) > size)
                ):
                    total -= current[head][2] + (glue if count > 1 else 0)
                    head += 1
                    count -= 1
            current.append(piece)
            total += length + (glue if count else 0)
        if len(current) > head:
            chunks.append((current[head][0], current[-1][1], True))
        return chunks


def _trim(text: str, start: int, end: int, spaces: str | None) -> tuple[int, int]:
    """Shrink [start, end) past leading/trailing whitespace (``spaces=None``: str.isspace)."""
    chunk = text[start:end]
    left = chunk.lstrip(spaces)
    if not left:
        return start, start
    return start + len(chunk) - len(left), end - (len(left) - len(left.rstrip(spaces)))


def _validate(chunk_size: int, overlap: int, separators: Sequence[str] | None) -> tuple[str, ...]:
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0:
        raise ConfigError(f"chunk size must be greater than zero, got {chunk_size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise ConfigError(f"overlap must be greater than or equal to zero, got {overlap!r}")
    if isinstance(separators, str):
        raise ConfigError(
            f"separators must be a sequence of strings, got the string {separators!r}"
        )
    seps = tuple(separators or ())
    bad = [s for s in seps if not isinstance(s, str)]
    if bad:
        raise ConfigError(f"separators must be strings, got {bad[0]!r}")
    return seps or DEFAULT_SEPARATORS


# ---------------------------------------------------------------------------- ragstrata API


def split_spans(
    text: str,
    *,
    chunk_size: int,
    overlap: int,
    separators: Sequence[str],
    len_func: Callable[[str], int] = len,
) -> list[TextSpan]:
    """Split ``text`` into chunks with exact offsets and 1-based inclusive line spans.

    Separators are kept in the text: one that starts with a newline (a block boundary such as
    ``"\\nclass "`` or ``"\\n## "``) opens the chunk that follows it, any other (``". "``, ``" "``)
    closes the chunk before it. Chunks are trimmed of surrounding whitespace; whitespace-only
    chunks and chunks wholly inside the previous one are dropped. A chunk is at most
    ``chunk_size`` long (by ``len_func``) unless no separator of the ladder can cut it: end the
    ladder with ``""`` (cut anywhere) to make that a hard limit. Consecutive chunks overlap by
    at most ``overlap`` (whole pieces carried over from the end of the previous chunk).
    """
    seps = _validate(chunk_size, overlap, separators)
    if not text:
        return []
    cutter = _Cutter(chunk_size, overlap, len_func, None)
    return _to_spans(text, cutter.split(text, 0, len(text), seps), None, seed=False)


def _to_spans(
    text: str, raw: list[tuple[int, int, bool]], spaces: str | None, *, seed: bool
) -> list[TextSpan]:
    """Trim chunks and attach line numbers, counted incrementally from the previous chunk.

    ``seed``: the seed's behaviour (an oversize piece stays raw, nothing else is dropped);
    otherwise every chunk is trimmed and one wholly inside the previous chunk is dropped.
    """
    spans: list[TextSpan] = []
    last_end = -1
    cursor, line = 0, 1
    for raw_start, raw_end, merged in raw:
        start, end = (
            _trim(text, raw_start, raw_end, spaces) if merged or not seed else (raw_start, raw_end)
        )
        if start >= end or (not seed and end <= last_end):
            continue
        last_end = end
        if start >= cursor:
            line += text.count("\n", cursor, start)
        else:
            line -= text.count("\n", start, cursor)
        cursor = start
        chunk = text[start:end]
        spans.append(TextSpan(start, end, line, line + chunk.count("\n", 0, len(chunk) - 1), chunk))
    return spans


def chunk_id(path: str, span: TextSpan, layer: Layer | str = Layer.C3) -> str:
    """Content-derived id of a chunk row: layer + path + line span + a hash of its text."""
    return row_id(layer, path, span.start_line, span.end_line, span.text)


# ---------------------------------------------------------------------------- seed interface


class RecursiveSplitter:
    """The seed's recursive splitter: ``transform`` documents into chunk documents.

    ``separators`` empty or None means ``("\\n", ".", "?", "!")``; ``len_func`` defaults to
    Python ``len`` (code points; the seed counted UTF-8 bytes). ``id_generator`` is None (every
    chunk keeps its document's id), a template with ``{id}`` and ``{index}`` (index of the chunk
    within its document, from 0), or a callable ``(id, index) -> str``.
    """

    def __init__(
        self,
        chunk_size: int,
        overlap_size: int = 0,
        separators: Sequence[str] | None = None,
        len_func: Callable[[str], int] = len,
        keep_type: KeepType | str | int = KeepType.NONE,
        id_generator: IdGenerator | str | None = None,
    ) -> None:
        self.separators = _validate(chunk_size, overlap_size, separators)
        self.chunk_size = chunk_size
        self.overlap_size = overlap_size
        self.keep_type = KeepType.parse(keep_type)
        if not callable(len_func):
            raise ConfigError(f"len_func must be callable, got {len_func!r}")
        self.len_func = len_func
        self._ids = _id_generator(id_generator)
        self._cutter = _Cutter(chunk_size, overlap_size, len_func, self.keep_type)

    def split_text(self, text: str) -> list[str]:
        """The chunks of one text, as the seed produces them."""
        return [span.text for span in self.split_spans(text)]

    def split_spans(self, text: str) -> list[TextSpan]:
        """The seed's chunks with their offsets and lines (merged chunks are trimmed, an
        oversize piece that no separator can cut is kept raw)."""
        raw = self._cutter.split(text, 0, len(text), self.separators)
        return _to_spans(text, raw, _GO_SPACE, seed=True)

    def transform(self, documents: Iterable[Document | Mapping[str, Any]]) -> list[Document]:
        """Split every document, in order; metadata is shallow-copied onto each chunk."""
        out: list[Document] = []
        for item in documents:
            doc = item if isinstance(item, Document) else Document.from_mapping(item)
            for index, chunk in enumerate(self.split_text(doc.content)):
                meta = None if doc.metadata is None else dict(doc.metadata)
                new_id = doc.id if self._ids is None else self._ids(doc.id, index)
                out.append(Document(new_id, chunk, meta))
        return out


def _id_generator(spec: IdGenerator | str | None) -> IdGenerator | None:
    if spec is None or callable(spec):
        return spec
    if isinstance(spec, str):
        try:
            spec.format(id="", index=0)
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(
                f"id_generator template {spec!r} is invalid ({exc}); use only {{id}} and {{index}}"
            ) from None
        return lambda doc_id, index: spec.format(id=doc_id, index=index)
    raise ConfigError(f"id_generator must be None, a template string or a callable, got {spec!r}")
