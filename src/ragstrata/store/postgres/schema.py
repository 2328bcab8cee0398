"""Schema of the PostgreSQL store: numbered, transactional migrations and per-repository
partitions.

Every table is keyed by ``repo_id`` first (the integer surrogate of a repository key, from
``rs_repos``) and LIST-partitioned on it, one partition per repository, so that

- one repository is created, reindexed, queried or dropped (``DROP TABLE`` of its partitions,
  instant) without touching the others, and each gets its own small HNSW graph;
- ``repo_id`` can be the distribution column of a sharded (Citus) cluster: every primary key
  and join includes it, so all of one repository's rows are co-located (see docs/deploy.md).

Migrations run in one transaction under an advisory lock, recorded in ``rs_migrations``;
applying them again is a no-op, and two processes starting at once apply them once.
"""

from __future__ import annotations

from typing import Any

from ragstrata.errors import IndexMismatchError

__all__ = [
    "MIGRATIONS",
    "PARTITIONED",
    "ROW_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "create_partitions",
    "drop_partitions",
    "lock_parents",
    "migrate",
    "partition_name",
]

_LOCK_KEY = 0x7261_6773  # "rags": serializes migrations and partition DDL cluster-wide

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: initial schema
        "CREATE EXTENSION IF NOT EXISTS vector",
        "CREATE SEQUENCE rs_row_seq",
        """CREATE TABLE rs_repos (
            repo_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            repo_key text NOT NULL UNIQUE, manifest text, analyzer text,
            n_docs bigint NOT NULL DEFAULT 0, sum_len bigint NOT NULL DEFAULT 0,
            updated_at text, created_at timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE rs_files (repo_id integer NOT NULL, path text NOT NULL,
            mtime_ns bigint NOT NULL, size bigint NOT NULL, sha256 text NOT NULL,
            PRIMARY KEY (repo_id, path)) PARTITION BY LIST (repo_id)""",
        """CREATE TABLE rs_rows (
            repo_id integer NOT NULL, seq bigint NOT NULL, id text NOT NULL,
            path text NOT NULL, layer text NOT NULL, language text NOT NULL,
            is_test boolean NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL,
            symbol text, name text, name_lower text, symbol_norm text, symbol_last text,
            content_hash text NOT NULL, embed_hash text, n_terms integer NOT NULL,
            term_ids bigint[] NOT NULL, embed_text text, payload text NOT NULL,
            PRIMARY KEY (repo_id, seq), UNIQUE (repo_id, id)) PARTITION BY LIST (repo_id)""",
        "CREATE INDEX rs_rows_path ON rs_rows (repo_id, path text_pattern_ops)",
        # covering: filters and the tie order of scored candidates without heap reads
        """CREATE INDEX rs_rows_meta ON rs_rows (repo_id, seq)
            INCLUDE (layer, language, is_test, path, start_line, id)""",
        "CREATE INDEX rs_rows_name ON rs_rows (repo_id, name_lower) WHERE name_lower IS NOT NULL",
        """CREATE INDEX rs_rows_symbol_norm ON rs_rows (repo_id, symbol_norm)
            WHERE symbol_norm IS NOT NULL""",
        """CREATE INDEX rs_rows_symbol_last ON rs_rows (repo_id, symbol_last)
            WHERE symbol_last IS NOT NULL""",
        "CREATE INDEX rs_rows_embed ON rs_rows (repo_id, embed_hash) WHERE embed_hash IS NOT NULL",
        """CREATE TABLE rs_relations (
            repo_id integer NOT NULL, seq bigint NOT NULL, relation text NOT NULL,
            from_symbol text NOT NULL, from_last text NOT NULL, to_name text NOT NULL,
            to_symbol text, to_last text NOT NULL, line integer NOT NULL,
            PRIMARY KEY (repo_id, seq)) PARTITION BY LIST (repo_id)""",
        "CREATE INDEX rs_relations_from ON rs_relations (repo_id, from_last)",
        "CREATE INDEX rs_relations_to ON rs_relations (repo_id, to_last)",
        # BM25 postings: one row per (term, row); dl = the row's term count, so scoring
        # needs no join. The primary key is the inverted index; it INCLUDEs tf and dl so
        # scoring and df counts are index-only scans (no random heap reads per posting).
        """CREATE TABLE rs_postings (
            repo_id integer NOT NULL, term bigint NOT NULL, seq bigint NOT NULL,
            tf smallint NOT NULL, dl integer NOT NULL,
            PRIMARY KEY (repo_id, term, seq) INCLUDE (tf, dl)) PARTITION BY LIST (repo_id)""",
        # vectors per row (content-addressed by text_hash, copied to rows sharing a text);
        # filter columns denormalized so the HNSW scan filters without a join
        """CREATE TABLE rs_vectors (
            repo_id integer NOT NULL, seq bigint NOT NULL, fingerprint text NOT NULL,
            text_hash text NOT NULL, dims integer NOT NULL, layer text NOT NULL,
            language text NOT NULL, is_test boolean NOT NULL, path text NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (repo_id, seq, fingerprint)) PARTITION BY LIST (repo_id)""",
        "CREATE INDEX rs_vectors_hash ON rs_vectors (repo_id, fingerprint, text_hash)",
        # selective filters (a folder, a language) are searched exactly through this index
        """CREATE INDEX rs_vectors_meta ON rs_vectors
            (repo_id, fingerprint, path text_pattern_ops, layer, language)""",
    ),
    (  # 2: cached LLM summaries (rows unchanged: manifests keep ROW_SCHEMA_VERSION 1)
        """CREATE TABLE rs_summaries (repo_id integer NOT NULL, kind text NOT NULL,
            key text NOT NULL, prompt_hash text NOT NULL, text text NOT NULL,
            updated_at text NOT NULL, PRIMARY KEY (repo_id, kind, key))
            PARTITION BY LIST (repo_id)""",
        # repositories created before this migration get their partition now
        """DO $$ DECLARE r record; BEGIN
            FOR r IN SELECT repo_id FROM rs_repos LOOP
                EXECUTE format('CREATE TABLE IF NOT EXISTS rs_summaries_r%s PARTITION OF '
                               'rs_summaries FOR VALUES IN (%s)', r.repo_id, r.repo_id);
            END LOOP; END $$""",
    ),
)
"""Entry ``i`` takes the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
ROW_SCHEMA_VERSION = 4  # 3: C2 ``constructs`` / ``references`` rows; 4: doc comments, JS members
"""What manifests record as ``schema_version``: bumped only by a migration that changes rows."""

PARTITIONED = (
    "rs_files", "rs_rows", "rs_relations", "rs_postings", "rs_vectors", "rs_summaries",
)  # fmt: skip


def partition_name(table: str, repo_id: int) -> str:
    """``rs_rows`` of repository 7 -> ``rs_rows_r7``."""
    return f"{table}_r{int(repo_id)}"


def migrate(conn: Any) -> int:
    """Apply missing migrations in one transaction; returns the schema version.

    ``conn`` is a psycopg connection in autocommit mode (no transaction open).
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS rs_migrations (version integer PRIMARY KEY, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM rs_migrations").fetchone()
        version = int(row[0])
        if version > SCHEMA_VERSION:
            raise IndexMismatchError(
                f"database schema is version {version}, this ragstrata knows up to "
                f"{SCHEMA_VERSION}; upgrade ragstrata"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                conn.execute(statement)
            conn.execute("INSERT INTO rs_migrations (version) VALUES (%s)", (number + 1,))
    return SCHEMA_VERSION


def lock_parents(conn: Any, mode: str) -> None:
    """Lock the partitioned parents (not their partitions) in one fixed order.

    Creating or dropping a partition takes ACCESS EXCLUSIVE on its parent; a transaction that
    took its parent locks statement by statement (rows, then files...) could hold one the DDL
    waits for while waiting for one the DDL holds: a deadlock (seen under concurrent indexing).
    Every transaction of the store therefore takes its parent locks first, in this order.
    """
    if mode not in _LOCK_MODES:
        raise ValueError(f"lock mode {mode!r} is not one of {sorted(_LOCK_MODES)}")
    conn.execute(f"LOCK TABLE ONLY {', '.join(PARTITIONED)} IN {mode} MODE")


_LOCK_MODES = {"ACCESS SHARE", "ROW EXCLUSIVE", "ACCESS EXCLUSIVE"}


def create_partitions(conn: Any, repo_id: int) -> None:
    """Create the repository's partitions (inside the caller's transaction)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
    lock_parents(conn, "ACCESS EXCLUSIVE")
    for table in PARTITIONED:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {partition_name(table, repo_id)} "
            f"PARTITION OF {table} FOR VALUES IN ({int(repo_id)})"
        )


def drop_partitions(conn: Any, repo_id: int) -> None:
    """Drop the repository's partitions (inside the caller's transaction)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
    lock_parents(conn, "ACCESS EXCLUSIVE")
    for table in PARTITIONED:
        conn.execute(f"DROP TABLE IF EXISTS {partition_name(table, repo_id)}")
