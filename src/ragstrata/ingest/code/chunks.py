"""C3: code chunks aligned to definition boundaries.

A file is cut into segments at its top-level definitions (each with its decorators and leading
doc comment) and the code between them. Small neighbours merge up to ``chunk_size``; a
definition too long for one chunk is cut at its own children (methods of a class), and one with
no children is split inside itself by the recursive splitter with the language's separator
ladder. Without definitions (no grammar, parse errors) the whole file goes to the splitter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragstrata.core.rows import ChunkRow, Layer, SourceFile, content_hash, row_id
from ragstrata.ingest.code.analyze import Definition
from ragstrata.ingest.code.source import Source

__all__ = ["code_chunks"]

_MAX_DEPTH = 24  # nesting levels followed before plain splitting (minified code nests deeply)


@dataclass(frozen=True, slots=True)
class _Seg:
    start: int
    end: int
    symbol: str | None  # the definition it belongs to (or the enclosing one, for gaps)
    is_def: bool
    fixed: bool = False  # a piece of a split definition: never merged with neighbours


class _Chunker:
    def __init__(self, file: SourceFile, src: Source, chunk_size: int, overlap: int) -> None:
        self.file = file
        self.src = src
        self.size = chunk_size
        self.overlap = overlap

    def split(self, start: int, end: int, symbol: str | None) -> list[_Seg]:
        """Recursive-splitter pieces of ``text[start:end]``."""
        from ragstrata.core.languages import ladder_for
        from ragstrata.ingest.splitter import split_spans

        spans = split_spans(
            self.src.text[start:end],
            chunk_size=self.size,
            overlap=self.overlap,
            separators=ladder_for(self.file.language),
        )
        return [
            _Seg(start + s.start_offset, start + s.end_offset, symbol, True, fixed=True)
            for s in spans
        ]

    def line_start(self, offset: int) -> int:
        return self.src.line_starts[self.src.line_of(offset) - 1]

    def line_end(self, offset: int) -> int:
        """Offset just past the newline ending the line of ``offset - 1``."""
        text = self.src.text
        if offset <= 0:
            return 0
        nl = text.find("\n", offset - 1)
        return len(text) if nl == -1 else nl + 1

    def level(
        self,
        start: int,
        end: int,
        defs: Sequence[Definition],
        symbol: str | None,
        depth: int = 0,
    ) -> list[_Seg]:
        """Segments of ``[start, end)`` cut at ``defs`` (the outermost ones inside it)."""
        segs: list[_Seg] = []
        cursor = start
        outer = _outermost(defs, start, end)
        for d in outer:
            seg_start = max(cursor, self.line_start(d.span[0]))
            seg_end = min(end, max(seg_start, self.line_end(d.span[1])))
            if seg_end <= seg_start:
                continue
            if seg_start > cursor:
                segs.append(_Seg(cursor, seg_start, symbol, False))
            segs.extend(self.definition(seg_start, seg_end, d, defs, depth))
            cursor = seg_end
        if cursor < end:
            segs.append(_Seg(cursor, end, symbol, False))
        return _merge(segs, self.size, symbol, self.src.text)

    def definition(
        self, start: int, end: int, d: Definition, defs: Sequence[Definition], depth: int
    ) -> list[_Seg]:
        if end - start <= self.size:
            return [_Seg(start, end, d.row.symbol, True)]
        lo, hi = d.span
        inner = [
            x
            for x in defs
            if lo <= x.span[0] and x.span[1] <= hi and x.span != d.span and x is not d
        ]
        if inner and depth < _MAX_DEPTH:
            return self.level(start, end, inner, d.row.symbol, depth + 1)
        return self.split(start, end, d.row.symbol)

    def rows(self, segs: list[_Seg]) -> list[ChunkRow]:
        out: list[ChunkRow] = []
        text = self.src.text
        for seg in segs:
            start, end = seg.start, seg.end
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start >= end:
                continue
            if seg.end - seg.start > self.size and not seg.fixed:
                out.extend(self.rows(self.split(start, end, seg.symbol)))
                continue
            chunk = text[start:end]
            first, last = self.src.line_of(start), self.src.line_of(end - 1)
            digest = content_hash(chunk)
            out.append(
                ChunkRow(
                    id=row_id(Layer.C3, self.file.path, first, last, digest),
                    path=self.file.path,
                    language=self.file.language,
                    is_test=self.file.is_test,
                    start_line=first,
                    end_line=last,
                    content_hash=digest,
                    start_offset=start,
                    end_offset=end,
                    text=chunk,
                    symbol=seg.symbol,
                )
            )
        return out


def _outermost(defs: Sequence[Definition], start: int, end: int) -> list[Definition]:
    """Definitions inside ``[start, end)`` not nested in another one of them, in order."""
    inside = sorted(
        (d for d in defs if start <= d.span[0] and d.span[1] <= end and d.row.kind != "module"),
        key=lambda d: (d.span[0], -d.span[1]),
    )
    out: list[Definition] = []
    for d in inside:
        if out and d.span[0] < out[-1].span[1]:
            continue
        out.append(d)
    return out


def _merge(segs: list[_Seg], size: int, context: str | None, text: str) -> list[_Seg]:
    """Merge neighbouring segments while the result fits in ``size``."""
    out: list[_Seg] = []
    group: list[_Seg] = []

    def flush() -> None:
        if not group:
            return
        if len(group) == 1:
            out.append(group[0])
        else:
            defs = [s for s in group if s.is_def]
            blank_gaps = all(s.is_def or text[s.start : s.end].isspace() for s in group)
            symbol = defs[0].symbol if len(defs) == 1 and blank_gaps else context
            out.append(_Seg(group[0].start, group[-1].end, symbol, bool(defs)))
        group.clear()

    for seg in segs:
        if seg.fixed:
            flush()
            out.append(seg)
            continue
        if group and seg.end - group[0].start > size:
            flush()
        group.append(seg)
    flush()
    return out


def code_chunks(
    file: SourceFile,
    src: Source,
    definitions: Sequence[Definition] | None,
    *,
    chunk_size: int,
    chunk_overlap: int,
) -> list[ChunkRow]:
    """C3 rows of a file; ``definitions=None`` means plain recursive splitting."""
    if not file.text.strip():
        return []
    chunker = _Chunker(file, src, chunk_size, chunk_overlap)
    if definitions is None:
        segs = chunker.split(0, len(file.text), None)
    else:
        segs = chunker.level(0, len(file.text), definitions, None)
    return chunker.rows(segs)
