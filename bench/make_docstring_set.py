"""Build docstring->definition retrieval sets from real packages.

For each package (stdlib ``email``, ``http``, ``json``, ``logging``, ``argparse`` and the
installed ``markdown_it`` and ``pathspec`` by default), or each downloaded distribution given with
``--dist`` (a wheel or sdist from ``pip download --no-deps``; the corpus is named after the
distribution and holds its top-level packages), its ``.py`` sources are copied into a
corpus tree ``OUT/<name>/`` with EVERY docstring removed (module, class, function): the lines of
a docstring are blanked (a lone ``pass`` where the docstring was the whole body), so line
numbers stay those of the original. Then ``OUT/<name>.jsonl`` gets one row per function, method
or class whose docstring's first sentence has at least ``--min-words`` words:

    {"qid", "corpus", "query", "gold_files": [path], "gold_symbols": [qualified name],
     "kind", "start_line", "end_line"}

``gold_symbols`` is the name ragstrata's C1 layer gives the definition (``pkg.module.Class.method``),
taken from :func:`ragstrata.ingest.code.extract.extract_code` run on the stripped file. First
sentences that occur more than once in a corpus are dropped (no right answer). At most
``--limit`` rows per corpus, chosen by a hash of the symbol (deterministic, spread over files).

    .venv/bin/python bench/make_docstring_set.py [--out CACHE/docstring] [--limit 200]
        [--dist httpx-0.27.0-py3-none-any.whl click-8.1.7.tar.gz ...]

``CACHE`` is ``$RSTRATA_BENCH_CACHE`` or ``~/.cache/ragstrata-bench`` (never the repository).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import inspect
import json
import re
import shutil
import sys
import tarfile
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.common import bench_cache

if TYPE_CHECKING:
    from ragstrata.core.rows import DefinitionRow

__all__ = [
    "DEFAULT_PACKAGES",
    "Target",
    "build_corpus",
    "dist_name",
    "first_sentence",
    "strip_docstrings",
    "unpack_dist",
]

DEFAULT_PACKAGES = ("email", "http", "json", "logging", "argparse", "markdown_it", "pathspec")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`'\"])|(?<=[.!?])$")


@dataclass(frozen=True, slots=True)
class Target:
    """A documented definition found by ``ast`` in the original file."""

    path: str  # corpus-relative
    name: str
    qualname: str  # ast-derived, used only when ragstrata's extractor misses it
    kind: str  # function | method | class
    line: int  # the ``def``/``class`` line
    end_line: int
    query: str


def first_sentence(doc: str) -> str:
    """The first sentence of the docstring's first paragraph, whitespace collapsed."""
    para = inspect.cleandoc(doc).strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    match = _SENTENCE_END.search(para)
    return para[: match.start()].strip() if match else para


def _docstring_node(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None)
    if not body:
        return None
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def strip_docstrings(source: str) -> str:
    """``source`` with every docstring removed and the line count unchanged.

    A docstring's own lines become empty (or a lone ``pass`` at its indentation when it was the
    only statement of its body); text sharing a line with it (``def f(): "doc"``) is kept.
    """
    tree = ast.parse(source)
    owners: list[ast.AST] = [tree, *(n for n in ast.walk(tree) if isinstance(n, _DEFS))]
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int, int, bool]] = []  # 0-based line/byte-col ranges
    for owner in owners:
        node = _docstring_node(owner)
        if node is None or node.end_lineno is None or node.end_col_offset is None:
            continue
        alone = len(getattr(owner, "body", ())) == 1 and not isinstance(owner, ast.Module)
        edits.append(
            (node.lineno - 1, node.col_offset, node.end_lineno - 1, node.end_col_offset, alone)
        )
    for start, scol, end, ecol, alone in sorted(edits, reverse=True):
        head = lines[start].encode("utf-8")[:scol].decode("utf-8")
        tail_line = lines[end].encode("utf-8")
        tail = tail_line[ecol:].decode("utf-8")
        filler = "pass" if alone else ""
        if not head.strip() and not tail.strip():
            new = [(head + filler).rstrip() + "\n"] + ["\n"] * (end - start)
        else:
            new = [head + (filler or "pass") + tail.rstrip("\r\n") + "\n"] + ["\n"] * (end - start)
            if not new[0].strip():
                new[0] = "\n"
        lines[start : end + 1] = new
    out = "".join(lines)
    if source and not source.endswith("\n") and out.endswith("\n"):
        out = out[:-1]
    ast.parse(out)  # stripping must keep the file valid
    return out


def _targets(path: str, source: str, min_words: int) -> list[Target]:
    tree = ast.parse(source)
    found: list[Target] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                qual = f"{prefix}.{child.name}" if prefix else child.name
                doc = ast.get_docstring(child, clean=False)
                if doc:
                    query = first_sentence(doc)
                    if len(query.split()) >= min_words:
                        kind = (
                            "class"
                            if isinstance(child, ast.ClassDef)
                            else ("method" if in_class else "function")
                        )
                        found.append(
                            Target(
                                path,
                                child.name,
                                qual,
                                kind,
                                child.lineno,
                                child.end_lineno or child.lineno,
                                query,
                            )
                        )
                visit(child, qual, isinstance(child, ast.ClassDef))
            else:
                visit(child, prefix, in_class)

    visit(tree, "", False)
    return found


def _c1_rows(path: str, stripped: str) -> list[DefinitionRow]:
    """ragstrata's C1 rows for the stripped file."""
    from ragstrata.core.rows import DefinitionRow, SourceFile
    from ragstrata.ingest.code.extract import extract_code

    file = SourceFile(
        path=path, language="python", is_test=False, is_doc=False, size=len(stripped),
        mtime_ns=0, sha256="", text=stripped,
    )  # fmt: skip
    return [row for row in extract_code(file) if isinstance(row, DefinitionRow)]


def _c1_symbol(rows: list[DefinitionRow], target: Target) -> str | None:
    """The qualified name ragstrata's C1 gives the definition at ``target.line``."""
    best: DefinitionRow | None = None
    for row in rows:
        if (
            row.name == target.name
            and row.start_line <= target.line <= row.end_line
            and (best is None or row.end_line - row.start_line < best.end_line - best.start_line)
        ):
            best = row
    return best.symbol if best else None


def _package_files(name: str) -> tuple[Path, list[Path]]:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"package not importable: {name}")
    if spec.submodule_search_locations:
        root = Path(next(iter(spec.submodule_search_locations)))
        files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
        return root.parent, files
    origin = Path(spec.origin)
    return origin.parent, [origin]


def dist_name(archive: Path) -> str:
    """``httpx-0.27.0-py3-none-any.whl`` / ``click-8.1.7.tar.gz`` -> ``httpx`` / ``click``."""
    return re.split(r"-\d", archive.name, maxsplit=1)[0].lower().replace("_", "-")


def unpack_dist(archive: Path, work: Path) -> tuple[Path, list[Path]]:
    """Unpack a wheel or sdist under ``work``; (base, the ``.py`` files of its top-level
    packages). An sdist's packages are looked for under ``src/`` first, then at its root."""
    dest = work / archive.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dest)
        base = dest
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(dest, filter="data")
        tops = [p for p in dest.iterdir() if p.is_dir()]
        base = tops[0] if len(tops) == 1 else dest
        if (base / "src").is_dir():
            base = base / "src"
    packages = [
        p for p in sorted(base.iterdir())
        if p.is_dir() and (p / "__init__.py").is_file() and not p.name.endswith(".dist-info")
    ]  # fmt: skip
    if not packages:
        raise SystemExit(f"no top-level package in {archive}")
    files = sorted(f for pkg in packages for f in pkg.rglob("*.py") if "__pycache__" not in f.parts)
    return base, files


def build_corpus(
    name: str,
    out: Path,
    *,
    limit: int,
    min_words: int,
    source: tuple[Path, list[Path]] | None = None,
) -> list[dict[str, object]]:
    """Write ``out/name/`` (stripped sources) and return the dataset rows for it; the sources
    are the importable package ``name`` unless ``source`` gives (base, files)."""
    from ragstrata.ingest.code.lang_python import python_module

    base, files = source or _package_files(name)
    corpus = out / name
    if corpus.exists():
        shutil.rmtree(corpus)
    targets: list[tuple[Target, str]] = []
    for src in files:
        rel = src.relative_to(base).as_posix()
        source = src.read_text(encoding="utf-8")
        try:
            stripped = strip_docstrings(source)
        except SyntaxError:
            continue
        dest = corpus / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(stripped, encoding="utf-8")
        module_targets = _targets(rel, source, min_words)
        module = python_module(rel)
        c1 = _c1_rows(rel, stripped) if module_targets else []
        symbols = {t: _c1_symbol(c1, t) for t in module_targets}
        targets.extend((t, symbols[t] or f"{module}.{t.qualname}") for t in module_targets)
    counts = Counter(t.query.lower() for t, _ in targets)
    unique = [(t, s) for t, s in targets if counts[t.query.lower()] == 1]
    unique.sort(key=lambda ts: hashlib.sha256(ts[1].encode()).hexdigest())
    chosen = sorted(unique[:limit], key=lambda ts: (ts[0].path, ts[0].line))
    return [
        {
            "qid": f"{name}-{i:04d}",
            "corpus": name,
            "query": t.query,
            "gold_files": [t.path],
            "gold_symbols": [symbol],
            "kind": t.kind,
            "start_line": t.line,
            "end_line": t.end_line,
        }
        for i, (t, symbol) in enumerate(chosen)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=bench_cache() / "docstring")
    ap.add_argument("--packages", nargs="*", default=None, help="importable packages")
    ap.add_argument("--dist", nargs="*", type=Path, default=[], help="wheels / sdists")
    ap.add_argument("--limit", type=int, default=200, help="rows per corpus at most")
    ap.add_argument("--min-words", type=int, default=5)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sources: list[tuple[str, tuple[Path, list[Path]] | None]] = [
        (dist_name(a), unpack_dist(a, args.out / "_unpacked")) for a in args.dist
    ]
    packages = args.packages if args.packages is not None else ([] if args.dist else None)
    sources += [(p, None) for p in (DEFAULT_PACKAGES if packages is None else packages)]
    for name, source in sources:
        rows = build_corpus(
            name, args.out, limit=args.limit, min_words=args.min_words, source=source
        )
        with open(args.out / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(rows)} queries -> {args.out / name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
