"""`ragstrata search QUERY` and `ragstrata search --batch QUERIES.jsonl`.

``--json`` prints ``{"plan": {...}, "hits": [...]}``; without it a table of hits (path:lines,
layer, symbol, score, reasons) that fits the terminal: columns drop or fold, cells never split. ``--batch`` reads ``{"qid", "query"}`` lines and prints one
``{"qid", "hits"}`` line per query (``"error"`` instead of failing the batch on a bad line),
loading the index once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Group
from rich.text import Text

from ragstrata.cli.common import MAX_TOP_K, GlobalOptions, edge_settings, make_console, print_json
from ragstrata.core.evidence import SearchResult
from ragstrata.errors import IndexMissingError, InvalidQueryError, UserError
from ragstrata.text.visible import visible_json

if TYPE_CHECKING:
    from rich.table import Table

    from ragstrata.app.facade import Ragstrata
    from ragstrata.core.evidence import SearchResult

__all__ = ["open_indexed", "read_batch", "search_command"]


def open_indexed(repo: Path, options: GlobalOptions | None = None) -> Ragstrata:
    """The facade for ``repo``; raises ``IndexMissingError`` when it has no index yet."""
    from ragstrata.app.facade import Ragstrata

    rs = Ragstrata(repo, edge_settings(repo, options=options))
    if not rs.has_index():
        raise IndexMissingError(f"no index at {rs.index_dir}; run `ragstrata index {repo}` first")
    return rs


def read_batch(path: Path) -> Iterator[tuple[str, str | None, str | None]]:
    """``(qid, query, error)`` per non-empty line of a JSONL file of ``{"qid", "query"}``."""
    try:
        fh = path.open(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read batch file {path}: {exc.strerror}") from None
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                yield f"line{n}", None, f"{path}:{n}: invalid JSON: {exc.msg}"
                continue
            if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                yield f"line{n}", None, f"{path}:{n}: expected an object with a string 'query'"
                continue
            yield str(item.get("qid", f"line{n}")), item["query"], None


def _batch(rs: Ragstrata, path: Path, layers: Sequence[str] | None, top_k: int) -> None:
    out = sys.stdout
    for qid, query, error in read_batch(path):
        record: dict[str, Any] = {"qid": qid, "hits": []}
        if error is None and query is not None:
            try:
                result = rs.search(query, layers=layers, top_k=top_k)
                record["hits"] = [h.to_dict() for h in result.hits]
            except InvalidQueryError as exc:
                record["error"] = str(exc)
        else:
            record["error"] = error
        out.write(visible_json(json.dumps(record, ensure_ascii=False)) + "\n")
        out.flush()


_REASONS_MIN = 16  # narrowest reasons column worth showing


def hits_table(result: SearchResult, width: int) -> Table | Group:
    """The hits as a table at most ``width`` columns wide that never splits a location or a
    symbol: the reasons column goes first (at most a quarter of the width), then the symbol
    folds under the location, then layer and score go, then the borders; when even that is
    too wide, a plain list (location at column 0). ``--json`` has everything."""
    from rich.table import Table

    rows = [
        (
            str(i),
            hit.citation,
            hit.layer,
            hit.symbol or hit.heading_path or "",
            f"{hit.score:.4f}",
            ", ".join(hit.reasons[:4]),
        )
        for i, hit in enumerate(result.hits, 1)
    ]
    names = ("#", "location", "layer", "symbol", "score")
    wide = {n: max(len(n), *(len(r[k]) for r in rows)) for k, n in enumerate(names)}
    plain = sum(wide.values()) + 3 * len(names) + 1
    reasons = min(width - plain - 3, width // 4)
    if reasons >= _REASONS_MIN or plain <= width:
        table = Table(show_lines=False)
        for name in names:
            table.add_column(name, no_wrap=True)
        if reasons >= _REASONS_MIN:
            table.add_column("reasons", max_width=reasons, overflow="fold")
        for row in rows:
            table.add_row(*row[: 6 if reasons >= _REASONS_MIN else 5])
        return table
    folded = max(wide["location"], wide["symbol"])
    boxed = wide["#"] + folded + 7 <= width
    if not boxed and wide["#"] + folded + 2 > width:
        return Group(*_records(rows))
    # boxed: 3 columns of rule and padding per column, +1; borderless: 2 between columns
    extra = wide["layer"] + wide["score"] + (6 if boxed else 4)
    small = wide["#"] + folded + (7 if boxed else 2) + extra <= width
    table = Table(show_lines=boxed, box=box.HEAVY_HEAD if boxed else None, pad_edge=boxed)
    table.add_column("#", no_wrap=True)
    table.add_column("location / symbol", no_wrap=True)
    if small:
        table.add_column("layer", no_wrap=True)
        table.add_column("score", no_wrap=True)
    for n, location, layer, symbol, score, _ in rows:
        cell = f"{location}\n{symbol}" if symbol else location
        table.add_row(n, cell, *((layer, score) if small else ()))
    return table


def _records(rows: Sequence[tuple[str, ...]]) -> Iterator[Text]:
    for n, location, layer, symbol, score, _ in rows:
        yield Text(f"#{n}  {layer}  {score}", style="bold")
        yield Text(location)
        if symbol:
            yield Text(symbol, style="cyan")


def _render(result: SearchResult) -> None:
    console = make_console(highlight=False)
    plan = result.plan
    console.print(
        Text(
            f"intent {plan.get('intent')}  profile {plan['retrieval_spec']['rerank_profile']}  "
            f"language {plan.get('language')}",
            style="dim",
        )
    )
    if not result.hits:
        console.print("no hits")
        return
    console.print(hits_table(result, console.width))


def search_command(
    ctx: typer.Context,
    query: Annotated[str | None, typer.Argument(help="The question or search text.")] = None,
    repo: Annotated[Path, typer.Option("--repo", help="Repository folder.")] = Path("."),
    layer: Annotated[
        list[str] | None,
        typer.Option("--layer", "-l", help="Only this layer (C0-C3, D0-D2); repeatable."),
    ] = None,
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, max=MAX_TOP_K, help="Hits to return.")
    ] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the plan and hits as JSON.")
    ] = False,
    batch: Annotated[
        Path | None,
        typer.Option("--batch", help="JSONL of {qid, query}; one {qid, hits} line per query."),
    ] = None,
) -> None:
    """Route QUERY and print the ranked evidence hits."""
    if (query is None) == (batch is None):
        raise UserError("give either a QUERY or --batch FILE (not both)")
    layers = [x.strip().upper() for x in layer] if layer else None
    with open_indexed(repo, ctx.obj) as rs:
        if batch is not None:
            _batch(rs, batch, layers, top_k)
            return
        assert query is not None
        result = rs.search(query, layers=layers, top_k=top_k)
        if as_json:
            print_json(result.to_dict())
        else:
            _render(result)
