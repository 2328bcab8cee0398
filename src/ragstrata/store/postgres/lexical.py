"""BM25 in SQL from term statistics, fast at millions of rows.

PostgreSQL's ``ts_rank`` scores every matching row and has no top-k shortcut (measured over a
second at 100k rows). Here the inverted index is a table, ``rs_postings (repo_id, term, seq,
tf, dl)`` with the primary key as the lookup path, and scoring is one statement:

1. ``df`` of each query term is counted from the postings (an index-only range count);
   ``N`` and the average length come from the repository's row in ``rs_repos``.
2. Terms are taken rarest first while their postings fit :data:`EXACT_POSTINGS`; those terms
   generate the candidates and are scored in full. Terms past the budget (frequent, low idf)
   only add their contribution to the best :data:`RESCORE` candidates, probed on the primary
   key. When every term fits (always on small repositories, and for queries of rare terms)
   the result is exact BM25, the same as the SQLite store's.
3. The scores are walked best first, each row's metadata read from a covering index and the
   filters applied, until ``top_k`` (plus rows tied with the last) pass; ties are ordered by
   non-test first, path, line, id; only those rows' payloads are read.

Terms, their hashes, the constants and the idf are those of :mod:`ragstrata.store.bm25`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragstrata.core.values import ScoredRow, SearchFilters, scored_row
from ragstrata.store.bm25 import K1, B, idf
from ragstrata.store.postgres.dense import filter_sql
from ragstrata.store.records import row_from_payload

__all__ = [
    "EXACT_POSTINGS",
    "RESCORE",
    "bm25_sql",
    "int_array_literal",
    "search",
    "split_terms",
]

EXACT_POSTINGS = 20_000
"""Postings scored in full per query; past it, frequent terms only re-score candidates."""
RESCORE = 1000
"""Candidates (best by the rare terms) that the frequent terms re-score."""
_TIES = 256  # rows tied with the k-th best that are ranked by metadata (as SQLite)
_FILTERED_TIES = 32  # fewer with filters: each extra row may cost a deeper walk


def split_terms(dfs: Sequence[tuple[int, int]], budget: int = EXACT_POSTINGS) -> list[bool]:
    """For ``(term, df)`` pairs: True for terms scored in full (rarest first, within
    ``budget`` postings, at least one), False for terms that only re-score candidates."""
    order = sorted(range(len(dfs)), key=lambda i: dfs[i][1])
    cheap = [False] * len(dfs)
    spent = 0
    for rank, i in enumerate(order):
        df = dfs[i][1]
        if rank > 0 and spent + df > budget:
            break
        cheap[i] = True
        spent += df
    return cheap


def bm25_sql(filter_sql: str, all_cheap: bool) -> str:
    """The scoring statement; parameters ``r`` (repo id), ``terms``, ``idfs``, ``cheap``,
    ``avgdl``, ``k``, ``rescore``, plus those of ``filter_sql`` (a condition on ``m.``
    columns: layer, language, is_test, path)."""
    weight = f"q.idf * p.tf * {K1 + 1.0} / (p.tf + {K1} * ({1.0 - B} + {B} * p.dl / %(avgdl)s))"
    parts = [
        "WITH q AS (SELECT * FROM unnest(%(terms)s::bigint[], %(idfs)s::float8[], "
        "%(cheap)s::bool[]) AS q(term, idf, cheap)),",
        f"cs AS MATERIALIZED (SELECT p.seq, sum({weight}) AS score FROM q JOIN rs_postings p "
        "ON p.repo_id = %(r)s AND p.term = q.term WHERE q.cheap GROUP BY p.seq),",
    ]
    if all_cheap:
        parts.append("s AS (SELECT seq, score FROM cs)")
    else:
        # frequent terms (low idf) only re-score the best candidates of the rare ones
        parts += [
            "cand AS MATERIALIZED (SELECT seq FROM cs ORDER BY score DESC LIMIT %(rescore)s),",
            f"e AS (SELECT p.seq, {weight} AS w FROM q CROSS JOIN cand c JOIN rs_postings p "
            "ON p.repo_id = %(r)s AND p.term = q.term AND p.seq = c.seq WHERE NOT q.cheap),",
            "s AS (SELECT seq, sum(score) AS score FROM "
            "(SELECT seq, score FROM cs UNION ALL SELECT seq, w FROM e) x GROUP BY seq)",
        ]
    # walk the scores best first, joining each row's metadata (covering index) and applying
    # the filters, until k + ties rows pass (the Limit stops the walk); rows tied with the
    # k-th best are then ordered by (non-test, path, line, id), as the SQLite store does
    where = f"AND {filter_sql}" if filter_sql else ""
    ties = _TIES if not filter_sql else _FILTERED_TIES
    tie = 'm.is_test, m.path COLLATE "C", m.start_line, m.id COLLATE "C"'
    parts[-1] += (
        ", hits AS MATERIALIZED (SELECT s.seq, s.score, m.is_test, m.path, m.start_line, m.id "
        "FROM (SELECT seq, score FROM s ORDER BY score DESC) s CROSS JOIN LATERAL "
        "(SELECT m.is_test, m.path, m.start_line, m.id FROM rs_rows m "
        f"WHERE m.repo_id = %(r)s AND m.seq = s.seq {where}) m LIMIT %(k)s + {ties}),"
        " t AS (SELECT score FROM hits ORDER BY score DESC OFFSET %(k)s - 1 LIMIT 1),"
        " ranked AS (SELECT * FROM hits m WHERE m.score >= coalesce((SELECT score FROM t), 0) "
        f"ORDER BY m.score DESC, {tie} LIMIT %(k)s)"
    )
    parts.append(
        "SELECT m.seq, m.score, r.payload FROM ranked m JOIN rs_rows r "
        f"ON r.repo_id = %(r)s AND r.seq = m.seq ORDER BY m.score DESC, {tie}"
    )
    return "\n".join(parts)


def bm25_params(
    repo_id: int,
    dfs: Sequence[tuple[int, int]],
    n_docs: int,
    sum_len: int,
    top_k: int,
    budget: int = EXACT_POSTINGS,
) -> tuple[dict[str, Any], bool]:
    """Parameters for :func:`bm25_sql` and whether every term is scored in full."""
    present = [(t, df) for t, df in dfs if df > 0]
    cheap = split_terms(present, budget)
    avgdl = sum_len / n_docs if n_docs else 1.0
    params = {
        "r": repo_id,
        "terms": [t for t, _ in present],
        "idfs": [idf(n_docs, df) for _, df in present],
        "cheap": cheap,
        "avgdl": avgdl if avgdl > 0 else 1.0,
        "k": top_k,
        "rescore": RESCORE,
    }
    return params, all(cheap)


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
_COPY_TRAILER = b"\xff\xff"
_POSTING = np.dtype(
    [("n", ">i2"), ("l1", ">i4"), ("repo", ">i4"), ("l2", ">i4"), ("term", ">i8"),
     ("l3", ">i4"), ("seq", ">i8"), ("l4", ">i4"), ("tf", ">i2"), ("l5", ">i4"), ("dl", ">i4")]
)  # fmt: skip


class Postings:
    """Postings of rows being written, encoded as one binary ``COPY`` payload with numpy
    (a Python call per posting would dominate bulk loads: rows have ~20-80 terms)."""

    COPY_SQL = "COPY rs_postings (repo_id, term, seq, tf, dl) FROM STDIN (FORMAT BINARY)"

    def __init__(self) -> None:
        self._terms: list[int] = []
        self._tfs: list[int] = []
        self._seqs: list[int] = []
        self._dls: list[int] = []

    def add(self, seq: int, tfs: dict[int, int], n_terms: int) -> None:
        """Queue the postings of one row."""
        self._terms.extend(tfs)
        self._tfs.extend(tfs.values())
        n = len(tfs)
        self._seqs.extend([seq] * n)
        self._dls.extend([n_terms] * n)

    def __len__(self) -> int:
        return len(self._terms)

    def payload(self, repo_id: int) -> bytes:
        """The binary COPY stream (header, tuples, trailer)."""
        arr = np.zeros(len(self._terms), dtype=_POSTING)
        arr["n"] = 5
        arr["l1"], arr["l2"], arr["l3"], arr["l4"], arr["l5"] = 4, 8, 8, 2, 4
        arr["repo"] = repo_id
        arr["term"] = np.asarray(self._terms, dtype=np.int64)
        arr["seq"] = np.asarray(self._seqs, dtype=np.int64)
        arr["tf"] = np.asarray(self._tfs, dtype=np.int16)
        arr["dl"] = np.asarray(self._dls, dtype=np.int32)
        return _COPY_HEADER + arr.tobytes() + _COPY_TRAILER

    def copy_into(self, cur: Any, repo_id: int) -> None:
        """Send the queued postings through ``cur``."""
        if not self._terms:
            return
        with cur.copy(self.COPY_SQL) as copy:
            copy.write(self.payload(repo_id))


def int_array_literal(values: Any) -> str:
    """``{1,2,3}``: the text form of a bigint[] (faster than adapting a list per row)."""
    return "{" + ",".join(map(str, values)) + "}"


def search(
    conn: Any,
    repo_id: int,
    hashes: Sequence[int],
    filters: SearchFilters | None,
    top_k: int,
    budget: int = EXACT_POSTINGS,
) -> list[ScoredRow]:
    """BM25 top ``top_k`` rows for the query term hashes (see module docstring)."""
    n_docs, sum_len = conn.execute(
        "SELECT n_docs, sum_len FROM rs_repos WHERE repo_id = %s", (repo_id,)
    ).fetchone()
    dfs = conn.execute(
        "SELECT t, (SELECT count(*) FROM rs_postings p WHERE p.repo_id = %s "
        "AND p.term = t) FROM unnest(%s::bigint[]) AS t",
        (repo_id, hashes),
    ).fetchall()
    params, all_cheap = bm25_params(repo_id, dfs, int(n_docs), int(sum_len), top_k, budget)
    if not params["terms"]:
        return []
    cond, fparams = filter_sql(filters, "m")
    found = conn.execute(bm25_sql(cond, all_cheap), params | fparams).fetchall()
    return [scored_row(row_from_payload(p), float(s)) for _, s, p in found]
