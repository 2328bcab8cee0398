"""The one BM25 of every backend: constants, term hashing, term encoding, searchable text.

Rows are indexed by the hashes of their :func:`~ragstrata.store.analyzer.analyze` terms
(8 bytes of BLAKE2b, signed), with term frequencies capped at :data:`TF_MAX` — the largest
value every backend stores (PostgreSQL keeps it in a ``smallint``, SQLite in a 16-bit blob).
Scores are Okapi BM25 with the Lucene idf (always positive); SQLite computes them with numpy,
PostgreSQL in SQL, the in-memory reference in Python, from the same numbers.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from ragstrata.core.rows import Row
from ragstrata.core.values import SummaryKind
from ragstrata.store.analyzer import analyze
from ragstrata.store.protocols import RowTexts
from ragstrata.store.records import summary_key

__all__ = [
    "K1",
    "TF_MAX",
    "B",
    "SummaryOf",
    "encode_terms",
    "idf",
    "query_hashes",
    "searchable",
    "term_hash",
    "weight",
]

K1, B = 1.2, 0.75
TF_MAX = 32767
"""Term frequencies are capped here (the range of a signed 16-bit integer)."""

SummaryOf = Callable[[SummaryKind, str], str | None]
"""The stored summary text of ``(kind, key)``, or None."""


@lru_cache(maxsize=32_768)
def term_hash(term: str) -> int:
    """Signed 64-bit hash of an analyzed term."""
    digest = hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def encode_terms(text: str) -> tuple[int, dict[int, int]]:
    """(number of terms, term hash -> term frequency capped at :data:`TF_MAX`) of ``text``."""
    counts = Counter(analyze(text))
    tfs: dict[int, int] = {}
    for term, count in counts.items():
        h = term_hash(term)
        tfs[h] = min(tfs.get(h, 0) + count, TF_MAX)
    return sum(counts.values()), tfs


def query_hashes(query: str | Sequence[str]) -> set[int]:
    """Term hashes of a query string, or of a list of terms analyzed one by one."""
    terms = analyze(query) if isinstance(query, str) else [t for q in query for t in analyze(q)]
    return {term_hash(t) for t in terms}


def idf(n_docs: int, df: int) -> float:
    """BM25 inverse document frequency (Lucene's: always positive)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def weight(tf: float, doc_len: float, avg_len: float) -> float:
    """The saturated, length-normalized term frequency (times idf it is a term's score)."""
    return tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * doc_len / avg_len))


def searchable(row: Row, texts: RowTexts, summary_of: SummaryOf | None) -> str:
    """The text a row is found by: its lexical text, plus its cached summary if one is stored."""
    text = texts.lexical(row)
    key = summary_key(row) if summary_of is not None else None
    if key is not None and summary_of is not None:
        summary = summary_of(*key)
        if summary:
            text = f"{text}\n{summary}"
    return text
