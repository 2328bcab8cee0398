"""``InMemoryStore``: the reference :class:`~ragstrata.store.protocols.Store`, plain dicts and loops.

It passes the same conformance suite as the SQLite backend and is the fake other stages'
tests use. Its BM25 is :mod:`ragstrata.store.bm25` (the same terms, constants and idf as every
backend), computed with plain loops, so scores agree with the SQLite store's. Writes validate and analyze everything before
mutating anything, so a failing batch leaves the store unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

import numpy as np

from ragstrata.core.checks import (
    check_summary_items,
    check_top_k,
    parse_direction,
    parse_layers,
    parse_mode,
    parse_summary_kind,
)
from ragstrata.core.names import relation_score, symbol_score
from ragstrata.core.rows import DefinitionRow, Layer, RelationRow, Row
from ragstrata.core.texts import DEFAULT_EMBED_LAYERS, TextRules
from ragstrata.core.values import (
    CatalogEntry,
    DefinitionKey,
    Direction,
    Manifest,
    PendingVector,
    RelationKey,
    RelationScope,
    ScoredRow,
    SearchFilters,
    StoreStats,
    SummaryKind,
    SymbolMode,
    scored_row,
)
from ragstrata.store.bm25 import encode_terms, idf, query_hashes, searchable, weight
from ragstrata.store.protocols import RowTexts, Store
from ragstrata.store.records import embedding_hash, rank_hits, summary_key

__all__ = ["InMemoryStore"]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class InMemoryStore:
    """A dict-backed store; nothing persists beyond the object."""

    schema_version = 1

    def __init__(
        self,
        embed_layers: Sequence[Layer | str] = DEFAULT_EMBED_LAYERS,
        *,
        texts: RowTexts | None = None,
    ) -> None:
        self.texts: RowTexts = texts or TextRules(tuple(Layer(str(x)) for x in embed_layers))
        self.embed_layers = self.texts.embed_layers
        self._manifest: Manifest | None = None
        self._files: dict[str, CatalogEntry] = {}
        self._rows: dict[str, Row] = {}
        self._by_path: dict[str, list[str]] = {}
        self._terms: dict[str, tuple[int, dict[int, int]]] = {}  # row id -> (length, tfs)
        self._embed: dict[str, tuple[str, str]] = {}  # row id -> (text hash, text)
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self._summaries: dict[tuple[str, str], tuple[str, str]] = {}  # (kind, key) -> (hash, text)
        self._updated_at: str | None = None

    def close(self) -> None:
        """Nothing to release."""

    def beside(self) -> InMemoryStore:
        """A new, empty store with the same text policy (a rebuild is written there)."""
        return InMemoryStore(texts=self.texts)

    def replace_with(self, built: Store) -> None:
        """Take over the index of ``built`` (from :meth:`beside`) in one step."""
        if not isinstance(built, InMemoryStore):
            raise ValueError(f"{built!r} was not built beside this store")
        self.__dict__.update(dict(built.__dict__))

    # ---------------------------------------------------------------- manifest, catalog

    def read_manifest(self) -> Manifest | None:
        return self._manifest

    def write_manifest(self, manifest: Manifest) -> Manifest:
        created = self._manifest.created_at if self._manifest else ""
        self._manifest = manifest.stamped(created, _now())
        return self._manifest

    def catalog(self) -> dict[str, CatalogEntry]:
        return dict(self._files)

    # ---------------------------------------------------------------- writes

    def replace_files(self, batch: Sequence[tuple[CatalogEntry, Sequence[Row]]]) -> None:
        prepared = []
        for entry, rows in batch:
            unique: dict[str, Row] = {}
            for row in rows:
                if row.path != entry.path:
                    raise ValueError(f"row {row.id} has path {row.path!r}, file is {entry.path!r}")
                unique.setdefault(row.id, row)
            terms = {i: self._row_terms(r) for i, r in unique.items()}
            embeds = {}
            for i, r in unique.items():
                text = self.texts.embedding(r)
                if text is not None:
                    embeds[i] = (embedding_hash(text), text)
            prepared.append((entry, unique, terms, embeds))
        if not batch:
            return
        old_hashes: set[str] = set()
        for entry, unique, terms, embeds in prepared:
            old_hashes |= self._drop_path(entry.path)
            self._files[entry.path] = entry
            self._by_path[entry.path] = list(unique)
            self._rows.update(unique)
            self._terms.update(terms)
            self._embed.update(embeds)
        self._collect(old_hashes)
        self._updated_at = _now()

    def remove_files(self, paths: Sequence[str]) -> int:
        paths = list(dict.fromkeys(paths))
        removed = sum(1 for p in paths if p in self._files)
        hashes: set[str] = set()
        for path in paths:
            hashes |= self._drop_path(path)
        self._collect(hashes)
        if paths:
            self._updated_at = _now()
        return removed

    def _drop_path(self, path: str) -> set[str]:
        hashes = set()
        for row_id in self._by_path.pop(path, []):
            self._rows.pop(row_id, None)
            self._terms.pop(row_id, None)
            embed = self._embed.pop(row_id, None)
            if embed:
                hashes.add(embed[0])
        self._files.pop(path, None)
        return hashes

    def _collect(self, hashes: set[str]) -> None:
        live = {h for h, _ in self._embed.values()}
        for key in [k for k in self._vectors if k[1] in hashes and k[1] not in live]:
            del self._vectors[key]

    def _row_terms(self, row: Row) -> tuple[int, dict[int, int]]:
        """Term count and frequencies of the row's searchable text (lexical + summary)."""

        def summary_of(kind: SummaryKind, key: str) -> str | None:
            found = self._summaries.get((kind.value, key))
            return found[1] if found else None

        return encode_terms(searchable(row, self.texts, summary_of))

    # ---------------------------------------------------------------- summaries

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        kind = parse_summary_kind(kind)
        return {key: value for (k, key), value in self._summaries.items() if k == kind.value}

    def put_summaries(self, kind: SummaryKind | str, items: Sequence[tuple[str, str, str]]) -> int:
        kind = parse_summary_kind(kind)
        clean = check_summary_items(items)
        for key, prompt_hash, text in clean:
            self._summaries[(kind.value, key)] = (prompt_hash, text)
        keys = {key for key, _, _ in clean}
        for row_id, row in self._rows.items():
            found = summary_key(row)
            if found is not None and found[0] is kind and found[1] in keys:
                self._terms[row_id] = self._row_terms(row)
        if clean:
            self._updated_at = _now()
        return len(clean)

    # ---------------------------------------------------------------- vectors

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        check_top_k(limit)
        out: dict[str, PendingVector] = {}
        for row_id, (text_hash, text) in self._embed.items():
            if (fingerprint, text_hash) not in self._vectors and text_hash not in out:
                out[text_hash] = PendingVector(row_id, text_hash, text)
                if len(out) >= limit:
                    break
        return list(out.values())

    def put_vectors(self, fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]) -> int:
        arrays = []
        for text_hash, vector in items:
            arr = np.asarray(vector, dtype=np.float32)
            if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
                raise ValueError(f"vector for {text_hash} must be a finite 1-D sequence")
            arrays.append((text_hash, arr))
        dims = {a.size for _, a in arrays}
        existing = {v.size for (fp, _), v in self._vectors.items() if fp == fingerprint}
        if len(dims) > 1:
            raise ValueError(f"vectors for {fingerprint!r} have mixed dimensions {sorted(dims)}")
        if existing and dims and existing != dims:
            raise ValueError(
                f"vectors for {fingerprint!r} have {existing.pop()} dimensions, got {dims.pop()}"
            )
        live = {h for h, _ in self._embed.values()}
        stored = 0
        for text_hash, arr in arrays:
            if text_hash in live:
                self._vectors[(fingerprint, text_hash)] = arr
                stored += 1
        if arrays:
            self._updated_at = _now()
        return stored

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        doomed = [k for k in self._vectors if k[0] != keep_fingerprint]
        for key in doomed:
            del self._vectors[key]
        return len(doomed)

    # ---------------------------------------------------------------- reads

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        return [self._rows[i] for i in ids if i in self._rows]

    def scan_rows(
        self, layers: Sequence[Layer | str] | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[Row]:
        wanted = parse_layers(layers)
        chosen = sorted(self._by_path if paths is None else set(paths) & set(self._by_path))
        rows = [self._rows[i] for path in chosen for i in self._by_path[path]]
        return iter([r for r in rows if wanted is None or r.layer in wanted])

    def scan_relation_keys(
        self, paths: Sequence[str] | None = None, scope: RelationScope | None = None
    ) -> Iterator[RelationKey]:
        keys: list[RelationKey] = []
        last = None
        for r in self.scan_rows((Layer.C2,), paths):
            if not isinstance(r, RelationRow):
                continue
            key = RelationKey(
                r.path, r.id, r.relation, r.from_symbol, r.to_name, r.receiver_type,
                r.language, r.to_symbol,
            )  # fmt: skip
            first, last = r.path != last, r.path
            if scope is None or scope.matches(key, first):
                keys.append(key)
        return iter(keys)

    def scan_definition_keys(self) -> Iterator[DefinitionKey]:
        return iter(
            [
                DefinitionKey(r.path, r.symbol, r.name, r.parent, r.kind, r.language, r.signature)
                for r in self.scan_rows((Layer.C1,))
                if isinstance(r, DefinitionRow)
            ]
        )

    def has_index(self) -> bool:
        return self._manifest is not None or bool(self._files)

    def stats(self, fingerprint: str | None = None) -> StoreStats:
        fp = fingerprint or (self._manifest.embedder_fingerprint if self._manifest else None)
        counts = Counter(r.layer.value for r in self._rows.values())
        hashes = {h for h, _ in self._embed.values()}
        return StoreStats(
            rows={layer.value: counts.get(layer.value, 0) for layer in Layer},
            files=len(self._files),
            vectors=sum(1 for k in self._vectors if k[0] == fp) if fp else 0,
            pending_vectors=sum(1 for h in hashes if (fp or "", h) not in self._vectors),
            fingerprint=fp,
            updated_at=self._updated_at or (self._manifest.updated_at if self._manifest else None),
            schema_version=self.schema_version,
        )

    def _passes(self, row: Row, filters: SearchFilters | None) -> bool:
        if filters is None:
            return True
        return filters.matches(row.layer.value, row.path, row.language, row.is_test)

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        wanted = query_hashes(query)
        if not wanted or not self._rows:
            return []
        n = len(self._rows)
        avg = sum(length for length, _ in self._terms.values()) / n or 1.0
        df = {t: sum(1 for _, tfs in self._terms.values() if t in tfs) for t in wanted}
        hits = []
        for row_id, (length, tfs) in self._terms.items():
            row = self._rows[row_id]
            if not self._passes(row, filters):
                continue
            score = 0.0
            for term in wanted:
                tf = tfs.get(term, 0)
                if tf:
                    score += idf(n, df[term]) * weight(tf, length, avg)
            if score > 0:
                hits.append(scored_row(row, score))
        return rank_hits(hits)[:top_k]

    def search_dense(
        self,
        vector: Sequence[float],
        fingerprint: str,
        filters: SearchFilters | None = None,
        top_k: int = 10,
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32)
        qnorm = float(np.linalg.norm(query)) or 1.0
        hits = []
        for row_id, (text_hash, _) in self._embed.items():
            stored = self._vectors.get((fingerprint, text_hash))
            if stored is None:
                continue
            if stored.shape != query.shape:
                raise ValueError(
                    f"query vector has shape {query.shape}, vectors of {fingerprint!r} "
                    f"have {stored.size} dimensions"
                )
            row = self._rows[row_id]
            if self._passes(row, filters):
                norm = float(np.linalg.norm(stored)) or 1.0
                hits.append(scored_row(row, float(stored @ query) / (norm * qnorm)))
        return rank_hits(hits)[:top_k]

    def lookup_symbol(
        self,
        name: str,
        mode: SymbolMode | str = SymbolMode.EXACT,
        filters: SearchFilters | None = None,
        limit: int = 10,
    ) -> list[ScoredRow]:
        mode = parse_mode(mode)
        check_top_k(limit)
        if not name.strip():
            return []
        hits = []
        for row in self._rows.values():
            if isinstance(row, DefinitionRow) and self._passes(row, filters):
                score = symbol_score(mode, name, row.name, row.symbol)
                if score > 0:
                    hits.append(scored_row(row, score))
        return rank_hits(hits)[:limit]

    def relations(
        self,
        symbol: str,
        direction: Direction | str = Direction.CALLERS,
        kinds: Sequence[str] | None = ("calls",),
        filters: SearchFilters | None = None,
        limit: int = 50,
    ) -> list[ScoredRow]:
        direction = parse_direction(direction)
        check_top_k(limit)
        if not symbol.strip():
            return []
        hits = []
        for row in self._rows.values():
            if not isinstance(row, RelationRow) or not self._passes(row, filters):
                continue
            if kinds is not None and row.relation not in kinds:
                continue
            score = relation_score(row.from_symbol, row.to_name, row.to_symbol, symbol, direction)
            if score > 0:
                hits.append(scored_row(row, score))
        return rank_hits(hits)[:limit]
