"""`ragstrata inspect PATH`: print the rows ingestion produces, storing nothing.

``--json`` prints one JSON object per row (every field of the row; ``layer``, ``path``,
``language``, ``is_test``, ``start_line``, ``end_line`` first), then one final line
``{"report": {...}}`` with the skip report, rows per layer and warnings. Without ``--json`` a
tree per file goes to stdout and the report to stderr.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from ragstrata.cli.common import edge_settings, make_console
from ragstrata.errors import ConfigError, RepositoryNotFoundError
from ragstrata.text.visible import visible, visible_json

if TYPE_CHECKING:
    from ragstrata.app import IngestResult
    from ragstrata.core.rows import (
        FileRows,
        Layer,
        Row,
    )

__all__ = ["inspect", "parse_layers", "row_to_dict"]

_LEAD = ("layer", "path", "language", "is_test", "start_line", "end_line")


def parse_layers(values: Iterable[str]) -> frozenset[Layer]:
    """Layer ids from ``--layer`` values (case-insensitive); none given means every layer."""
    from ragstrata.core.rows import Layer

    layers: set[Layer] = set()
    for value in values:
        try:
            layers.add(Layer(value.strip().upper()))
        except ValueError:
            valid = ", ".join(layer.value for layer in Layer)
            raise ConfigError(f"unknown layer {value!r}; valid layers: {valid}") from None
    return frozenset(layers) if layers else frozenset(Layer)


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def row_to_dict(row: Row) -> dict[str, Any]:
    """Every field of ``row`` as JSON-ready values, the common fields first."""
    data = {f.name: _plain(getattr(row, f.name)) for f in dataclasses.fields(row)}
    return {**{key: data.pop(key) for key in _LEAD}, **data}


def inspect(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Repository folder (or one file in it) to ingest.")],
    layer: Annotated[
        list[str] | None,
        typer.Option("--layer", "-l", help="Only rows of this layer (C0-C3, D0-D2); repeatable."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per row, then a report.")
    ] = False,
) -> None:
    """Show the rows ingestion produces for PATH (nothing is stored)."""
    from ragstrata.app import ingest_repository

    layers = parse_layers(layer or ())
    if not path.exists():
        raise RepositoryNotFoundError(f"no such file or folder: {path}")
    root, only = (path.parent, path.name) if path.is_file() else (path, None)
    settings = edge_settings(root, options=ctx.obj).index
    if only is not None:  # walk the folder but read only this file (its own skip rules apply)
        settings = settings.model_copy(update={"include": ("/" + _glob_escape(only),)})
    result = ingest_repository(root, settings)
    files = [fr for fr in result.files if only is None or fr.file.path == only]
    if as_json:
        _print_json(files, layers, result)
    else:
        _print_human(files, layers, result)


def _glob_escape(name: str) -> str:
    """``name`` as a literal gitignore-style pattern."""
    return "".join("\\" + ch if ch in "[]*?!#\\ " else ch for ch in name)


def _print_json(files: list[FileRows], layers: frozenset[Layer], result: IngestResult) -> None:
    out = sys.stdout
    for file_rows in files:
        for row in file_rows.rows:
            if row.layer in layers:
                out.write(visible_json(json.dumps(row_to_dict(row), ensure_ascii=False)) + "\n")
    out.write(visible_json(json.dumps({"report": result.report()}, ensure_ascii=False)) + "\n")


def _print_human(files: list[FileRows], layers: frozenset[Layer], result: IngestResult) -> None:
    from rich.tree import Tree

    console = make_console(highlight=False)
    for file_rows in files:
        rows = [row for row in file_rows.rows if row.layer in layers]
        if not rows:
            continue
        f = file_rows.file
        flags = ", ".join(
            x for x in (f.language, "test" if f.is_test else "", "doc" if f.is_doc else "") if x
        )
        tree = Tree(Text.assemble((_v(f.path), "bold"), f"  ({flags}, {f.line_count} lines)"))
        for row in rows:
            tree.add(_label(row))
        for warning in file_rows.warnings:
            tree.add(Text(_v(f"warning: {warning}"), style="yellow"))
        console.print(tree)
    _print_report(result)


def _v(text: str) -> str:
    """Repository text for a ``Text``: control characters escaped before rich drops them."""
    return visible(text, multiline=False)


def _span(row: Row) -> str:
    if row.start_line == row.end_line:
        return f"L{row.start_line}"
    return f"L{row.start_line}-{row.end_line}"


def _label(row: Row) -> Text:
    from ragstrata.core.rows import (
        ChunkRow,
        DefinitionRow,
        DocFileRow,
        FileRow,
        RelationRow,
        SectionRow,
    )

    head = Text.assemble((f"{row.layer.value} ", "cyan"), (f"{_span(row):<11} ", "dim"))
    if isinstance(row, FileRow):
        detail = f"{row.size} bytes"
        if row.imports:
            detail += f"; imports: {', '.join(row.imports[:8])}"
        if row.symbols:
            detail += f"; symbols: {', '.join(row.symbols[:8])}"
        return head + Text(_v(detail))
    if isinstance(row, DefinitionRow):
        sig = " ".join(row.signature.split())
        sig = sig if len(sig) <= 100 else sig[:99] + "…"
        return head + Text.assemble(
            (f"{row.kind} ", "magenta"), (_v(row.symbol), "bold"), f"  {_v(sig)}"
        )
    if isinstance(row, RelationRow):
        target = row.to_symbol or "unresolved"
        return head + Text(_v(f"{row.from_symbol} {row.relation} {row.to_name} -> {target}"))
    if isinstance(row, DocFileRow):
        return head + Text(_v(f"title: {row.title}; {len(row.outline)} headings"))
    if isinstance(row, SectionRow):
        anchor = f"  #{row.slug}" if row.slug else ""
        return head + Text(_v(f"{row.heading_path}{anchor}"))
    if isinstance(row, ChunkRow):
        where = row.symbol or row.heading_path or ""
        return head + Text(_v(f"chunk, {len(row.text)} chars" + (f"  in {where}" if where else "")))
    return head  # pragma: no cover - every row type is handled above


def _print_report(result: IngestResult) -> None:
    err = make_console(stderr=True, highlight=False, soft_wrap=True)
    report = result.report()
    rows = ", ".join(f"{layer} {count}" for layer, count in report["rows"].items())
    err.print(Text(f"files: {report['files']}; rows: {rows}"))
    err.print(Text(_v(f"skipped: {json.dumps(report['skipped'], ensure_ascii=False)}")))
    if result.warnings:
        err.print(Text(f"warnings: {len(result.warnings)}", style="yellow"))
        for warning in result.warnings[:20]:
            err.print(Text(_v(f"  {warning}")))
