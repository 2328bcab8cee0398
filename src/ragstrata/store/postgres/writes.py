"""Row writes of the PostgreSQL store: rows, postings, relations and BM25 statistics.

Every function runs inside the caller's write transaction (which holds the repository's
writer lock). Rows go in with ``COPY``; postings with one binary ``COPY`` built by numpy.
A row's searchable text is its lexical text plus its cached LLM summary, if any.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragstrata.core.names import last_segment, normalize_symbol
from ragstrata.core.rows import DefinitionRow, RelationRow, Row
from ragstrata.core.values import CatalogEntry, row_symbol
from ragstrata.store.analyzer import ANALYZER_VERSION
from ragstrata.store.bm25 import encode_terms, searchable
from ragstrata.store.postgres import lexical
from ragstrata.store.protocols import RowTexts
from ragstrata.store.records import embedding_hash, row_from_payload, row_to_payload, summary_key

__all__ = [
    "delete_rows",
    "insert_rows",
    "reanalyze",
    "replace_files",
    "reterm",
    "row_record",
    "summaries_for",
]

_ROW_COLS = (
    "repo_id", "seq", "id", "path", "layer", "language", "is_test", "start_line", "end_line",
    "symbol", "name", "name_lower", "symbol_norm", "symbol_last", "content_hash", "embed_hash",
    "n_terms", "term_ids", "embed_text", "payload",
)  # fmt: skip
_ROW_TYPES = (
    "int4", "int8", "text", "text", "text", "text", "bool", "int4", "int4", "text", "text",
    "text", "text", "text", "text", "text", "int4", "text", "text", "text",
)  # fmt: skip
_REL_COLS = "repo_id, seq, relation, from_symbol, from_last, to_name, to_symbol, to_last, line"


def _terms(
    row: Row, texts: RowTexts, summaries: dict[tuple[str, str], str]
) -> tuple[int, dict[int, int]]:
    """Term count and frequencies of the row's searchable text (lexical text + summary)."""
    return encode_terms(searchable(row, texts, lambda kind, key: summaries.get((kind.value, key))))


def row_record(
    repo_id: int,
    seq: int,
    row: Row,
    summaries: dict[tuple[str, str], str],
    texts: RowTexts,
) -> tuple[tuple[Any, ...], dict[int, int], int]:
    """The ``rs_rows`` record of ``row``, its term frequencies and its term count."""
    n_terms, tfs = _terms(row, texts, summaries)
    embed = texts.embedding(row)
    name = name_lower = symbol_norm = symbol_last = None
    if isinstance(row, DefinitionRow):
        name, name_lower = row.name, row.name.lower()
        symbol_norm, symbol_last = normalize_symbol(row.symbol), last_segment(row.symbol)
    record = (
        repo_id, seq, row.id, row.path, row.layer.value, row.language, bool(row.is_test),
        row.start_line, row.end_line, row_symbol(row), name, name_lower, symbol_norm,
        symbol_last, row.content_hash, None if embed is None else embedding_hash(embed),
        n_terms, lexical.int_array_literal(tfs), embed, row_to_payload(row),
    )  # fmt: skip
    return record, tfs, n_terms


def insert_rows(conn: Any, repo_id: int, rows: Sequence[Row], texts: RowTexts) -> list[int]:
    """Insert rows (seqs from the shared sequence), their postings and relations, and
    update the BM25 statistics; returns the new seqs in order."""
    if not rows:
        return []
    seqs = [
        int(s)
        for (s,) in conn.execute(
            "SELECT nextval('rs_row_seq') FROM generate_series(1, %s)", (len(rows),)
        )
    ]
    n_docs = sum_len = 0
    summaries = summaries_for(conn, repo_id, rows)
    with conn.cursor() as cur:
        postings = lexical.Postings()
        with cur.copy(f"COPY rs_rows ({', '.join(_ROW_COLS)}) FROM STDIN") as copy:
            copy.set_types(list(_ROW_TYPES))
            for seq, row in zip(seqs, rows, strict=True):
                record, tfs, n_terms = row_record(repo_id, seq, row, summaries, texts)
                copy.write_row(record)
                postings.add(seq, tfs, n_terms)
                n_docs += 1
                sum_len += n_terms
        postings.copy_into(cur, repo_id)
        relations = [
            (repo_id, seq, r.relation, r.from_symbol, last_segment(r.from_symbol), r.to_name,
             r.to_symbol, last_segment(r.to_symbol or r.to_name), r.line)
            for seq, r in zip(seqs, rows, strict=True)
            if isinstance(r, RelationRow)
        ]  # fmt: skip
        if relations:
            with cur.copy(f"COPY rs_relations ({_REL_COLS}) FROM STDIN") as copy:
                for rel in relations:
                    copy.write_row(rel)
    conn.execute(
        "UPDATE rs_repos SET n_docs = n_docs + %s, sum_len = sum_len + %s WHERE repo_id = %s",
        (n_docs, sum_len, repo_id),
    )
    return seqs


def delete_rows(conn: Any, repo_id: int, paths: Sequence[str]) -> list[int]:
    """Delete the files' rows, postings, relations and catalog entries (not vectors:
    the caller carries them over first); returns the deleted rows' seqs."""
    found = conn.execute(
        "SELECT seq, n_terms FROM rs_rows WHERE repo_id = %s AND path = ANY(%s)",
        (repo_id, list(paths)),
    ).fetchall()
    seqs = [int(s) for s, _ in found]
    if seqs:
        conn.execute(
            "DELETE FROM rs_postings p USING (SELECT unnest(term_ids) AS term, seq "
            "FROM rs_rows WHERE repo_id = %(r)s AND seq = ANY(%(s)s)) d "
            "WHERE p.repo_id = %(r)s AND p.term = d.term AND p.seq = d.seq",
            {"r": repo_id, "s": seqs},
        )
        conn.execute(
            "DELETE FROM rs_relations WHERE repo_id = %s AND seq = ANY(%s)", (repo_id, seqs)
        )
        conn.execute("DELETE FROM rs_rows WHERE repo_id = %s AND seq = ANY(%s)", (repo_id, seqs))
        conn.execute(
            "UPDATE rs_repos SET n_docs = n_docs - %s, sum_len = sum_len - %s WHERE repo_id = %s",
            (len(seqs), sum(int(n) for _, n in found), repo_id),
        )
    conn.execute(
        "DELETE FROM rs_files WHERE repo_id = %s AND path = ANY(%s)", (repo_id, list(paths))
    )
    return seqs


def reanalyze(conn: Any, repo_id: int, texts: RowTexts) -> None:
    """Recompute terms and postings of every row (the analyzer changed)."""
    conn.execute("DELETE FROM rs_postings WHERE repo_id = %s", (repo_id,))
    found = conn.execute(
        "SELECT seq, payload FROM rs_rows WHERE repo_id = %s", (repo_id,)
    ).fetchall()
    rows = [row_from_payload(p) for _, p in found]
    summaries = summaries_for(conn, repo_id, rows)
    seq_rows = [(seq, row) for (seq, _), row in zip(found, rows, strict=True)]
    sum_len = _write_terms(conn, repo_id, seq_rows, texts, summaries)
    conn.execute(
        "UPDATE rs_repos SET analyzer = %s, sum_len = %s, n_docs = %s WHERE repo_id = %s",
        (ANALYZER_VERSION, sum_len, len(found), repo_id),
    )


def _write_terms(
    conn: Any,
    repo_id: int,
    rows: Sequence[tuple[int, Row]],
    texts: RowTexts,
    summaries: dict[tuple[str, str], str],
) -> int:
    """Write the postings and term ids of ``rows`` (by seq); returns their summed length."""
    updates = []
    total = 0
    with conn.cursor() as cur:
        postings = lexical.Postings()
        for seq, row in rows:
            n_terms, tfs = _terms(row, texts, summaries)
            total += n_terms
            updates.append((n_terms, list(tfs), repo_id, seq))
            postings.add(seq, tfs, n_terms)
        postings.copy_into(cur, repo_id)
        cur.executemany(
            "UPDATE rs_rows SET n_terms = %s, term_ids = %s WHERE repo_id = %s AND seq = %s",
            updates,
        )
    return total


def summaries_for(conn: Any, repo_id: int, rows: Sequence[Row]) -> dict[tuple[str, str], str]:
    """Stored summary texts of the rows that can carry one, by ``(kind, key)``."""
    keys = [k for row in rows if (k := summary_key(row)) is not None]
    if not keys:
        return {}
    found = conn.execute(
        "SELECT kind, key, text FROM rs_summaries WHERE repo_id = %s AND "
        "(kind, key) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
        (repo_id, [k[0].value for k in keys], [k[1] for k in keys]),
    ).fetchall()
    return {(kind, key): text for kind, key, text in found}


def reterm(conn: Any, repo_id: int, rows: Sequence[tuple[int, Row]], texts: RowTexts) -> None:
    """Replace the postings of existing rows (their searchable text changed)."""
    if not rows:
        return
    seqs = [seq for seq, _ in rows]
    old_len = conn.execute(
        "SELECT coalesce(sum(n_terms), 0) FROM rs_rows WHERE repo_id = %s AND seq = ANY(%s)",
        (repo_id, seqs),
    ).fetchone()[0]
    conn.execute(
        "DELETE FROM rs_postings p USING (SELECT unnest(term_ids) AS term, seq "
        "FROM rs_rows WHERE repo_id = %(r)s AND seq = ANY(%(s)s)) d "
        "WHERE p.repo_id = %(r)s AND p.term = d.term AND p.seq = d.seq",
        {"r": repo_id, "s": seqs},
    )
    summaries = summaries_for(conn, repo_id, [row for _, row in rows])
    new_len = _write_terms(conn, repo_id, rows, texts, summaries)
    conn.execute(
        "UPDATE rs_repos SET sum_len = sum_len + %s WHERE repo_id = %s",
        (new_len - int(old_len), repo_id),
    )


def replace_files(
    conn: Any, repo_id: int, entries: Sequence[CatalogEntry], rows: Sequence[Row], texts: RowTexts
) -> None:
    """Replace the files of ``entries`` by ``rows`` (deduplicated, paths checked); vectors of
    texts that did not change are carried over to the new rows."""
    old_seqs = delete_rows(conn, repo_id, [e.path for e in entries])
    conn.cursor().executemany(
        "INSERT INTO rs_files VALUES (%s, %s, %s, %s, %s)",
        [(repo_id, e.path, e.mtime_ns, e.size, e.sha256) for e in entries],
    )
    new_seqs = insert_rows(conn, repo_id, rows, texts)
    if new_seqs:
        # carry vectors over by text hash (from any row of the repository, old rows
        # of these files included: their vectors are deleted only after this)
        conn.execute(
            "INSERT INTO rs_vectors SELECT r.repo_id, r.seq, v.fingerprint, "
            "r.embed_hash, v.dims, r.layer, r.language, r.is_test, r.path, v.embedding "
            "FROM rs_rows r CROSS JOIN LATERAL (SELECT DISTINCT ON (x.fingerprint) "
            "x.fingerprint, x.dims, x.embedding FROM rs_vectors x WHERE x.repo_id = %(r)s "
            "AND x.text_hash = r.embed_hash ORDER BY x.fingerprint) v "
            "WHERE r.repo_id = %(r)s AND r.seq = ANY(%(s)s) AND r.embed_hash IS NOT NULL",
            {"r": repo_id, "s": new_seqs},
        )
    if old_seqs:
        conn.execute(
            "DELETE FROM rs_vectors WHERE repo_id = %s AND seq = ANY(%s)",
            (repo_id, old_seqs),
        )
