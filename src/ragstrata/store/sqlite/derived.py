"""Derived in-memory structures of the SQLite store and their disk cache.

Search runs on numpy arrays rebuilt lazily when a generation counter (bumped by every write, in
the same transaction) differs, and read inside one read transaction with the rows they return,
so they never disagree with SQLite. Building them at 100k rows takes one to a few seconds,
which a fresh process (``ragstrata search``) would pay on every query, so indexes of at least
``cache_min_rows`` rows also keep them as ``.npy`` files in ``index.cache/`` beside the
database, memory-mapped on load. A cache folder's name carries the index's random id and the
generations it was built at, so a stale or foreign cache is never used; a damaged one is
deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ragstrata.core.rows import Layer
from ragstrata.core.values import SearchFilters
from ragstrata.store.sqlite.lexical import Postings
from ragstrata.store.sqlite.schema import meta_value
from ragstrata.store.sqlite.vectors import build_matrix

__all__ = ["LAYERS", "Derived", "Snapshot", "load_or_build", "save_arrays"]

LAYERS: tuple[Layer, ...] = tuple(Layer)


class Snapshot:
    """Per-row metadata arrays at one rows generation, aligned with ``seq`` order, and the
    search structures built on them (postings, dense matrices, fuzzy name keys)."""

    def __init__(self, arrays: dict[str, np.ndarray], generation: int, index_id: str) -> None:
        self.generation = generation
        self.index_id = index_id  # a rebuilt file swapped in has another: nothing carries over
        self.seq = arrays["seq"]
        self.layer = arrays["layer"]
        self.language = arrays["language"]
        self.is_test = arrays["is_test"]
        self.path = arrays["path"]
        self.languages = {str(x): i for i, x in enumerate(arrays["language_names"])}
        self.paths = {str(x): i for i, x in enumerate(arrays["path_names"])}
        self.lexical: Postings | None = None
        self.dense: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
        self.names: dict[str, list[int]] | None = None  # fuzzy key of a name -> C1 seqs

    @staticmethod
    def build(rows: list[tuple[int, str, str, int, str]]) -> dict[str, np.ndarray]:
        """The arrays from ``(seq, layer, language, is_test, path)`` rows in seq order."""
        n = len(rows)
        layer_code = {layer.value: i for i, layer in enumerate(LAYERS)}
        languages: dict[str, int] = {}
        paths: dict[str, int] = {}
        return {
            "seq": np.fromiter((r[0] for r in rows), np.int64, n),
            "layer": np.fromiter((layer_code[r[1]] for r in rows), np.uint8, n),
            "language": np.fromiter(
                (languages.setdefault(r[2], len(languages)) for r in rows), np.int32, n
            ),
            "is_test": np.fromiter((bool(r[3]) for r in rows), np.bool_, n),
            "path": np.fromiter((paths.setdefault(r[4], len(paths)) for r in rows), np.int32, n),
            "language_names": np.array(list(languages), dtype=str),
            "path_names": np.array(list(paths), dtype=str),
        }

    def mask(self, filters: SearchFilters | None) -> np.ndarray | None:
        """Boolean mask of rows passing ``filters`` (None when nothing is filtered)."""
        if filters is None:
            return None
        mask: np.ndarray | None = None

        def both(m: np.ndarray) -> np.ndarray:
            return m if mask is None else mask & m

        if filters.layers:
            codes = [LAYERS.index(layer) for layer in filters.layers]
            mask = both(np.isin(self.layer, codes))
        if filters.languages:
            codes = [self.languages[x] for x in filters.languages if x in self.languages]
            mask = both(np.isin(self.language, codes))
        if filters.is_test is not None:
            mask = both(self.is_test == filters.is_test)
        if filters.path_prefixes:
            codes = [code for p, code in self.paths.items() if filters.matches_path(p)]
            mask = both(np.isin(self.path, codes))
        return mask


def save_arrays(root: Path, name: str, arrays: dict[str, np.ndarray]) -> None:
    """Write ``root/name/*.npy`` atomically (rename of a finished folder); drop older
    folders of the same kind. Best effort: a failure only costs a rebuild next time."""
    kind = name.rsplit("-", 3 if name.startswith("dense-") else 2)[0] + "-"
    tmp = root / f".tmp-{name}-{os.getpid()}-{threading.get_ident()}"
    try:
        tmp.mkdir(parents=True, exist_ok=True)
        for key, value in arrays.items():
            np.save(tmp / f"{key}.npy", np.ascontiguousarray(value), allow_pickle=False)
        os.replace(tmp, root / name)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return
    for old in root.glob(kind + "*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    for tmp_left in root.glob(".tmp-*"):  # left by a killed writer; an hour is plenty to finish
        with contextlib.suppress(OSError):
            if time.time() - tmp_left.stat().st_mtime > 3600:
                shutil.rmtree(tmp_left, ignore_errors=True)


def load_or_build(
    cache_dir: Path,
    cache_min_rows: int | None,
    name: str,
    build: Callable[[], dict[str, np.ndarray]],
    n_rows: int,
) -> dict[str, np.ndarray]:
    """Arrays ``name`` from the on-disk cache, else built (and cached when large enough;
    ``cache_min_rows=None`` disables the cache)."""
    folder = cache_dir / name
    if cache_min_rows is not None and folder.is_dir():
        try:
            return {p.stem: np.load(p, mmap_mode="r") for p in folder.glob("*.npy")}
        except (OSError, ValueError):
            shutil.rmtree(folder, ignore_errors=True)  # damaged: rebuild from SQLite
    arrays = build()
    if cache_min_rows is not None and n_rows >= cache_min_rows:
        save_arrays(cache_dir, name, arrays)
    return arrays


class Derived:
    """The derived structures of one store at the generation a read transaction sees."""

    def __init__(self, cache_dir: Path, cache_min_rows: int | None) -> None:
        self.cache_dir = cache_dir
        self.cache_min_rows = cache_min_rows
        self._snap: Snapshot | None = None

    def reset(self) -> None:
        """Forget what was built (the store was closed)."""
        self._snap = None

    def _load(
        self, name: str, build: Callable[[], dict[str, np.ndarray]], n_rows: int
    ) -> dict[str, np.ndarray]:
        return load_or_build(self.cache_dir, self.cache_min_rows, name, build, n_rows)

    def snapshot(self, conn: sqlite3.Connection) -> Snapshot:
        """The metadata arrays for the generation visible in this read transaction."""
        gen = int(meta_value(conn, "rows_gen") or 0)
        index_id = meta_value(conn, "index_id") or "0"
        snap = self._snap
        if snap is None or snap.generation != gen or snap.index_id != index_id:
            n_rows = int(conn.execute("SELECT COUNT(*) FROM rows").fetchone()[0])

            def build() -> dict[str, np.ndarray]:
                sql = "SELECT seq, layer, language, is_test, path FROM rows ORDER BY seq"
                return Snapshot.build(conn.execute(sql).fetchall())

            name = f"meta-{index_id}-{gen}"
            snap = self._snap = Snapshot(self._load(name, build, n_rows), gen, index_id)
        return snap

    def postings(self, conn: sqlite3.Connection, snap: Snapshot) -> Postings:
        """BM25 postings of ``snap``'s generation."""
        if snap.lexical is None:

            def build() -> dict[str, np.ndarray]:
                sql = "SELECT n_terms, term_ids, term_tfs FROM rows ORDER BY seq"
                return Postings.build(conn.execute(sql).fetchall())

            name = f"lex-{snap.index_id}-{snap.generation}"
            snap.lexical = Postings(self._load(name, build, len(snap.seq)))
        return snap.lexical

    def dense(
        self, conn: sqlite3.Connection, snap: Snapshot, fingerprint: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """The unit vectors of ``fingerprint`` and their positions in ``snap``."""
        gen = int(meta_value(conn, "vec_gen") or 0)
        cached = snap.dense.get(fingerprint)
        if cached is not None and cached[0] == gen:
            return cached[1], cached[2]
        digest = hashlib.blake2b(fingerprint.encode(), digest_size=6).hexdigest()
        name = f"dense-{digest}-{snap.index_id}-{snap.generation}-{gen}"
        arrays = self._load(name, lambda: build_matrix(conn, snap.seq, fingerprint), len(snap.seq))
        snap.dense[fingerprint] = (gen, arrays["matrix"], arrays["index"])
        return arrays["matrix"], arrays["index"]
