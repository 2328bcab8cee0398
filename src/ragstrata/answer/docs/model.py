"""The evidence of one documentation page, gathered before anything is written.

Rendering (:mod:`ragstrata.answer.docs.render`) and LLM prose (:mod:`ragstrata.answer.docs.prose`) read
only these values, so what a page says is what was gathered here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ragstrata.answer.docs.doccomment import DocComment
from ragstrata.answer.docs.index_view import Site
from ragstrata.core.rows import DefinitionRow

__all__ = ["Item", "Overview", "Page", "PageFile"]

PageKind = Literal["file", "package", "symbol"]


@dataclass(frozen=True, slots=True)
class Overview:
    """A module's documentation: Markdown text and the span it comes from."""

    text: str
    path: str
    start_line: int
    end_line: int
    heading: str | None = None  # the README section's heading, when it came from one


@dataclass(frozen=True, slots=True)
class Item:
    """A public definition with its parsed doc comment, its public members (methods,
    constants, fields) and its nested types / namespaces (documented in full)."""

    row: DefinitionRow
    doc: DocComment
    members: tuple[Item, ...] = ()
    nested: tuple[Item, ...] = ()

    def walk(self) -> list[Item]:
        """This item, its members, and its nested items recursively."""
        out = [self, *self.members]
        for n in self.nested:
            out += n.walk()
        return out


@dataclass(frozen=True, slots=True)
class PageFile:
    """One file's part of a page: its overview, definitions, and methods of types declared in
    other files (``(owner, where it is declared, methods)``)."""

    path: str
    overview: Overview | None
    items: tuple[Item, ...]
    elsewhere: tuple[tuple[str, str, tuple[Item, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Page:
    """Everything one page shows."""

    kind: PageKind
    target: str
    overview: Overview | None
    files: tuple[PageFile, ...]
    symbol: Item | None = None  # for a symbol page
    imports: tuple[Site, ...] = ()
    calls: tuple[Site, ...] = ()
    used_by: tuple[Site, ...] = ()
    used_by_possible: tuple[Site, ...] = ()
    examples: tuple[DefinitionRow, ...] = ()
    examples_possible: tuple[Site, ...] = ()
    edges: tuple[tuple[str, str], ...] = ()  # precise calls between the page's own definitions
    inherits: tuple[tuple[str, str], ...] = ()  # precise inherits / implements among them
    sources: dict[str, str] = field(default_factory=dict)  # path -> sha256 as indexed

    def items(self) -> list[Item]:
        """Every documented item (members included), in page order."""
        out: list[Item] = []
        tops = [self.symbol] if self.symbol else [i for f in self.files for i in f.items]
        tops += [m for f in self.files for _, _, ms in f.elsewhere for m in ms]
        for item in tops:
            out += item.walk()
        return out
