"""Recursive splitter throughput, side by side with langchain-text-splitters and semchunk.

Every splitter cuts the same texts (by default the first few MB of this interpreter's standard
library ``*.py`` files, one text per file) with the same chunk size and overlap, measured in
characters (Python ``len``). Reports chars/s, chunk counts and mean chunk length, and each
competitor's speed relative to ragstrata's ``split_spans``. Never gates CI.

    python bench/splitter.py [--mb 4] [--chunk-size 1200] [--overlap 150] [--repeat 3] [--json]

Needs the ``bench`` extra: ``pip install langchain-text-splitters semchunk``.
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragstrata.core.languages import ladder_for
from ragstrata.ingest.splitter import RecursiveSplitter, split_spans

Splitter = Callable[[str], list[str]]
# langchain-text-splitters' Language.PYTHON separators, for a same-ladder comparison.
_LANGCHAIN_PY_LADDER = ("\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n", " ", "")


def load_corpus(root: Path, megabytes: float) -> list[str]:
    """Sorted ``*.py`` files under ``root`` until ``megabytes`` of text are collected."""
    budget = int(megabytes * 1_000_000)
    texts: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts or "tests" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        texts.append(text)
        budget -= len(text)
        if budget <= 0:
            break
    return texts


def splitters(chunk_size: int, overlap: int) -> dict[str, Splitter]:
    """Every contender, configured alike (Python ladder where the library has one)."""
    ladder = ladder_for("python")
    out: dict[str, Splitter] = {
        "ragstrata split_spans (python ladder)": lambda t: [
            s.text
            for s in split_spans(t, chunk_size=chunk_size, overlap=overlap, separators=ladder)
        ],
        "ragstrata split_spans (langchain's python ladder)": lambda t: [
            s.text
            for s in split_spans(
                t, chunk_size=chunk_size, overlap=overlap, separators=_LANGCHAIN_PY_LADDER
            )
        ],
        "ragstrata RecursiveSplitter (seed, python ladder, keep=start)": RecursiveSplitter(
            chunk_size, overlap, ladder, keep_type="start"
        ).split_text,
    }
    try:
        from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

        lc_py = RecursiveCharacterTextSplitter.from_language(
            Language.PYTHON, chunk_size=chunk_size, chunk_overlap=overlap
        )
        lc_default = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=overlap)
        lc_same = RecursiveCharacterTextSplitter(
            separators=list(ladder), chunk_size=chunk_size, chunk_overlap=overlap
        )
        out["langchain RecursiveCharacterTextSplitter (ragstrata's ladder)"] = lc_same.split_text
        out["langchain RecursiveCharacterTextSplitter (Language.PYTHON)"] = lc_py.split_text
        out["langchain RecursiveCharacterTextSplitter (default)"] = lc_default.split_text
    except ImportError:
        print("langchain-text-splitters not installed; skipped", file=sys.stderr)
    try:
        import semchunk

        chunker = semchunk.chunkerify(len, chunk_size, memoize=False)
        out["semchunk (len counter)"] = lambda t: chunker(t, overlap=overlap or None)
    except ImportError:
        print("semchunk not installed; skipped", file=sys.stderr)
    return out


def measure(contenders: dict[str, Splitter], texts: list[str], repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` runs over all texts; rounds interleave the contenders so that a busy
    moment of the machine does not favour one of them."""
    best = dict.fromkeys(contenders, float("inf"))
    chunks: dict[str, list[str]] = {}
    for _ in range(repeat):
        for name, split in contenders.items():
            start = time.perf_counter()
            chunks[name] = [c for t in texts for c in split(t)]
            best[name] = min(best[name], time.perf_counter() - start)
    chars = sum(len(t) for t in texts)
    return {
        name: {
            "seconds": round(best[name], 3),
            "chars_per_s": round(chars / best[name]),
            "chunks": len(chunks[name]),
            "mean_chunk_chars": round(sum(map(len, chunks[name])) / max(1, len(chunks[name])), 1),
            "max_chunk_chars": max(map(len, chunks[name]), default=0),
        }
        for name in contenders
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--mb", type=float, default=4.0)
    parser.add_argument("--chunk-size", type=int, default=1200)
    parser.add_argument("--overlap", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    texts = load_corpus(args.root, args.mb)
    chars = sum(len(t) for t in texts)
    results = measure(splitters(args.chunk_size, args.overlap), texts, args.repeat)
    base = results["ragstrata split_spans (python ladder)"]["chars_per_s"]
    for row in results.values():
        row["speed_vs_ragstrata"] = round(row["chars_per_s"] / base, 2)
    report = {
        "corpus": {"root": str(args.root), "files": len(texts), "chars": chars},
        "chunk_size": args.chunk_size,
        "overlap": args.overlap,
        "python": sys.version.split()[0],
        "results": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"corpus: {len(texts)} files, {chars / 1e6:.2f} M chars from {args.root}")
    print(f"chunk_size={args.chunk_size} overlap={args.overlap} (chars), best of {args.repeat}")
    print(
        f"{'splitter':64} {'chars/s':>11} {'x ragstrata':>11} {'chunks':>7} {'mean':>7} {'max':>6}"
    )
    for name, row in results.items():
        print(
            f"{name:64} {row['chars_per_s']:>11,} {row['speed_vs_ragstrata']:>11} "
            f"{row['chunks']:>7} {row['mean_chunk_chars']:>7} {row['max_chunk_chars']:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
