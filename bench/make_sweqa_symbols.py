"""Add silver ``gold_symbols`` to the SWE-QA dev set, from the reference answers.

The benchmark gives gold files only. A reference answer names code in backticks
(```should_bypass_proxies```, ```Session.resolve_redirects()```); every such name that looks like
a (dotted) identifier is looked up among ragstrata's C1 definitions of the question's gold files
(extracted from the tree at the pinned commit), and a definition whose qualified name ends with
that name becomes a gold symbol. A bare dunder (``__init__``) is ignored, and a name matching more than ``--max-ambiguous`` definitions
(``__init__``, ``write``) is ignored. Silver of silver: read symbol-level scores on this set as
"did the retriever land on the definitions the reference answer talks about".

Writes ``OUT`` (default ``/work/evalcache/sweqa-dev-symbols.jsonl``, outside the project: it is
derived from the answers) with the dataset fields minus ``answer`` plus ``gold_symbols``.

    .venv/bin/python bench/make_sweqa_symbols.py [--dataset F] [--trees DIR] [--out F]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["answer_names", "gold_symbols"]

_TICKED = re.compile(r"`([^`\n]{2,120})`")
_NAME = re.compile(r"^@?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(.*\))?$")


def answer_names(answer: str) -> list[str]:
    """Identifier-like names in backticks, ``self.`` dropped, call parentheses removed."""
    names: dict[str, None] = {}
    for span in _TICKED.findall(answer):
        match = _NAME.match(span.strip())
        if not match:
            continue
        name = match.group(1)
        name = name.removeprefix("self.").removeprefix("cls.")
        if len(name) >= 3 and not name.startswith("__"):  # a bare dunder names no one thing
            names.setdefault(name, None)
    return list(names)


@cache
def _definitions(tree: Path, path: str) -> tuple[str, ...]:
    from ragstrata.core.languages import detect_language
    from ragstrata.core.rows import DefinitionRow, SourceFile
    from ragstrata.ingest.code.extract import extract_code
    from ragstrata.ingest.code.parsers import supported_languages

    file = tree / path
    language = detect_language(path)
    if language not in supported_languages() or not file.is_file():
        return ()
    text = file.read_text(encoding="utf-8", errors="replace")
    source = SourceFile(
        path=path, language=language, is_test=False, is_doc=False, size=len(text),
        mtime_ns=0, sha256="", text=text,
    )  # fmt: skip
    return tuple(
        r.symbol
        for r in extract_code(source)
        if isinstance(r, DefinitionRow) and r.kind != "module"
    )


def gold_symbols(
    answer: str, tree: Path, gold_files: Sequence[str], max_ambiguous: int = 3
) -> list[str]:
    """C1 symbols of ``gold_files`` that the answer names (see module docstring)."""
    from ragstrata.core.names import suffix_match

    symbols = [s for path in gold_files for s in _definitions(tree, path)]
    out: dict[str, None] = {}
    for name in answer_names(answer):
        matches = [s for s in symbols if suffix_match(s, name)]
        if 0 < len(matches) <= max_ambiguous:
            out.update(dict.fromkeys(matches))
    return list(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Silver gold_symbols for SWE-QA from the answers.")
    ap.add_argument("--dataset", type=Path, default=ROOT.parent / "shared/eval/sweqa-dev.jsonl")
    ap.add_argument("--trees", type=Path, default=Path("/work/evalcache/trees"))
    ap.add_argument("--out", type=Path, default=Path("/work/evalcache/sweqa-dev-symbols.jsonl"))
    ap.add_argument("--max-ambiguous", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    rows = [json.loads(line) for line in args.dataset.read_text("utf-8").splitlines() if line]
    with_symbols = 0
    with open(args.out, "w", encoding="utf-8") as fh:
        for row in rows:
            tree = args.trees / f"{row['repo'].split('/')[-1]}-{row['commit'][:8]}"
            symbols = gold_symbols(
                row.get("answer", ""), tree, row["gold_files"], args.max_ambiguous
            )
            with_symbols += bool(symbols)
            out = {k: v for k, v in row.items() if k != "answer"}
            out["gold_symbols"] = symbols
            fh.write(json.dumps(out, ensure_ascii=False) + "\n")
    print(f"{with_symbols}/{len(rows)} rows with gold_symbols -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
