"""The indexer: catalog diff -> extract new/changed files -> resolve relations -> write in
batches -> fill vectors.

Memory. Extracted rows are parked on disk until they are written (:mod:`.spool`). A first
index (nothing stored) keeps only definition keys and the resolution context (imports, base
classes, a relation per file) and resolves each file's relations as the file is written; a
later run resolves in :mod:`ragstrata.relations.rerun` from definitions without text and
relations. Both go through one entry point (:func:`ragstrata.relations.run.relation_pass`) and
one write path, and write the same rows.

Crash safety. Every write is one store transaction of a batch of files (at most
``batch_files`` files or ``batch_rows`` rows), and the writes are ordered so that the LAST
commit of a run is always one that a later run would detect as still missing:

1. unchanged files whose relation targets moved, and touched files (new catalog entry only);
2. new and changed files, in path order — first those that leave the resolution state as it
   was, then those that change it (see :mod:`ragstrata.relations.rerun`);
3. removed files.

Until step 2/3 finishes, the catalog still differs from the disk and a file that changes the
resolution state is still pending, so the next run re-extracts what is missing and resolves
all relations again — a run killed at any moment and started
again ends with exactly the index a clean run builds. (One edge: if, between the two runs, the
user also reverts a file of step 2 to its indexed content, relations rewritten in step 1 may
point at definitions that no longer exist until the next code change.) Vectors are filled last,
one commit per round (see :mod:`ragstrata.indexer.embed_fill`).
"""

from __future__ import annotations

import ctypes
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import chain
from pathlib import Path

from ragstrata.core.events import WAITING_FOR_RUN, Estimate, IndexEvent, IndexReport
from ragstrata.core.rows import FileRows, Layer, RelationRow, Row
from ragstrata.core.texts import DEFAULT_EMBED_LAYERS, embedding_text
from ragstrata.core.values import CatalogEntry
from ragstrata.embed.base import Embedder
from ragstrata.indexer.embed_fill import fill_vectors
from ragstrata.indexer.manifest import check_manifest, expected_manifest
from ragstrata.indexer.plan import Plan, make_plan
from ragstrata.indexer.run_lock import index_run, wait_for_index_run
from ragstrata.indexer.secrets_ledger import update_ledger
from ragstrata.indexer.spool import RowSpool
from ragstrata.ingest.pipeline import extract_file
from ragstrata.relations.run import relation_pass
from ragstrata.settings import Settings
from ragstrata.store.protocols import Store
from ragstrata.store.records import embedding_hash
from ragstrata.store.scan import rows_by_path

__all__ = ["Indexer"]

Progress = Callable[[IndexEvent], None]
_Batch = list[tuple[CatalogEntry, Sequence[Row]]]

DRY_RUN_SAMPLE_FILES = 200
"""A dry run extracts at most this many files (evenly spread) and extrapolates by bytes."""


class Indexer:
    """Builds and refreshes one repository's index (see module docstring)."""

    def __init__(
        self,
        repo: Path,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        *,
        batch_files: int = 64,
        batch_rows: int = 20_000,
    ) -> None:
        if batch_files <= 0 or batch_rows <= 0:
            raise ValueError(f"batch sizes must be > 0, got {batch_files}/{batch_rows}")
        self.repo = Path(repo)
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.batch_files = batch_files
        self.batch_rows = batch_rows

    # ------------------------------------------------------------------ entry point

    def run(
        self,
        *,
        rebuild: bool = False,
        dry_run: bool = False,
        embed: bool = True,
        progress: Progress | None = None,
    ) -> IndexReport:
        """Index the repository; see :class:`IndexReport` for what comes back.

        Raises ``IndexMismatchError`` when the index was built with another schema or splitter
        settings (unless ``rebuild``); a new embedder only re-embeds. ``dry_run`` writes
        nothing. ``embed=False`` leaves vectors pending.
        """
        emit = progress or (lambda event: None)
        index_dir = self.repo / self.settings.store.index_dir_name
        # another run of this repository (another process) finishes first; this one then
        # reads the store it left and has only what changed since to do
        waiting = IndexEvent("scan", 0, 0, message=WAITING_FOR_RUN)
        if dry_run:  # writes nothing (not even the lock): it only waits for a run going on
            wait_for_index_run(index_dir, on_wait=lambda: emit(waiting))
            return self._run(rebuild=rebuild, dry_run=True, embed=embed, emit=emit)
        with index_run(index_dir, on_wait=lambda: emit(waiting)):
            return self._run(rebuild=rebuild, dry_run=False, embed=embed, emit=emit)

    def _run(self, *, rebuild: bool, dry_run: bool, embed: bool, emit: Progress) -> IndexReport:
        started = time.perf_counter()
        exists = self.store.has_index()
        expected = expected_manifest(self.store, self.embedder, self.settings)
        stored = self.store.read_manifest() if exists else None
        check = check_manifest(None if rebuild else stored, expected)
        reextract = check.reextract
        catalog = self.store.catalog() if exists and not rebuild else {}
        emit(IndexEvent("scan", 0, len(catalog), message="comparing files with the catalog"))
        plan = make_plan(self.repo, self.settings, catalog, extract_all=reextract)
        seen = len(plan.unchanged) + len(plan.added) + len(plan.changed) + len(plan.touched)
        emit(IndexEvent("scan", seen, seen, message=f"{plan.stale} files to update"))
        if dry_run:
            return self._dry_run(plan, started, exists, emit)
        if rebuild and exists:
            self.store.remove_files(list(self.store.catalog()))
            self.store.drop_vectors(None)
        notices: tuple[str, ...] = ()
        if reextract and stored is not None:
            notices = (_rules_changed(stored.extractor, expected.extractor),)
        if check.new or check.reembed or rebuild:
            # before any row: the index describes itself; the new rules are recorded once
            # every file is extracted by them (an interrupted run is redone by the next one)
            old_rules = stored.extractor if reextract and stored is not None else None
            self.store.write_manifest(
                expected if old_rules is None else replace(expected, extractor=old_rules)
            )
            if check.reembed:
                self.store.drop_vectors(keep_fingerprint=expected.embedder_fingerprint)
                if stored is not None and not rebuild:
                    notices += (
                        _model_changed(stored.embedder_fingerprint, expected.embedder_fingerprint),
                    )
        warnings: tuple[str, ...] = ()
        rewritten = 0
        redacted: dict[str, tuple[str, ...]] = {}
        if not plan.is_noop:
            warnings, rewritten = self._apply(plan, emit, redacted, first=not catalog)
            _hand_back_heap()
        if reextract:
            self.store.write_manifest(expected)
        index_dir = self.repo / self.settings.store.index_dir_name
        update_ledger(index_dir, redacted, plan.removed, reset=rebuild or check.new)
        done = fill_vectors(self.store, self.embedder, emit) if embed else 0
        stats = self.store.stats(self.embedder.fingerprint)
        report = IndexReport(
            added=len(plan.added),
            changed=len(plan.changed),
            removed=len(plan.removed),
            unchanged=len(plan.unchanged) + len(plan.touched),
            skipped=plan.skipped,
            rows=stats.rows,
            embeddings_done=done,
            embeddings_pending=stats.pending_vectors,
            seconds=time.perf_counter() - started,
            relations_rewritten=rewritten,
            warnings=warnings,
            notices=notices,
            secrets_redacted=dict(
                sorted(Counter(k for ks in redacted.values() for k in ks).items())
            ),
        )
        emit(IndexEvent("done", 1, 1))
        return report

    # ------------------------------------------------------------------ writing

    def _apply(
        self, plan: Plan, emit: Progress, redacted: dict[str, tuple[str, ...]], *, first: bool
    ) -> tuple[tuple[str, ...], int]:
        """Extract, resolve relations (:func:`~ragstrata.relations.run.relation_pass`: one
        entry point for a first index and an incremental run), write, remove."""
        warnings: list[str] = []
        with RowSpool(self.repo / self.settings.store.index_dir_name) as spool:
            relations = relation_pass(self.store, first=first)
            for file_rows in self._extract(plan, emit, redacted, warnings, spool):
                relations.add(file_rows)
            emit(IndexEvent("resolve", 0, 1, message="resolving relations"))
            outcome = relations.resolve(plan.removed)
            del relations
            emit(IndexEvent("resolve", 1, 1, message=outcome.message))
            # 1. unchanged files whose relation targets moved + touched files
            kept = sorted(set(outcome.rewrites) | set(plan.touched))
            # 2. extracted files, in the order the outcome gives
            items = chain(
                self._kept_files(kept, plan, outcome.rewrites),
                ((plan.entries[p], outcome.rows(p, spool.take(p))) for p in outcome.order),
            )
            self._write(items, len(kept) + len(outcome.order), emit)
        warnings.extend(outcome.warnings())
        # 3. removed files
        if plan.removed:
            self.store.remove_files(plan.removed)
            emit(IndexEvent("remove", len(plan.removed), len(plan.removed)))
        return tuple(warnings), len(outcome.rewrites)

    def _extract(
        self,
        plan: Plan,
        emit: Progress,
        redacted: dict[str, tuple[str, ...]],
        warnings: list[str],
        spool: RowSpool,
    ) -> Iterator[FileRows]:
        """Extract the plan's files in path order, parking each one's rows in ``spool``
        (the plan lets go of its text); yields each file's rows for the caller to keep what
        resolution reads."""
        todo = sorted(plan.files)
        for i, path in enumerate(todo, 1):
            file_rows = extract_file(plan.files.pop(path), self.settings.index)
            warnings.extend(file_rows.warnings)
            redacted[path] = file_rows.redactions
            spool.put(path, file_rows.rows)
            emit(IndexEvent("extract", i, len(todo), path=path, rows=len(file_rows.rows)))
            yield file_rows

    def _write(
        self, items: Iterable[tuple[CatalogEntry, Sequence[Row]]], total: int, emit: Progress
    ) -> None:
        written = 0
        for batch in self._batches(items):
            self.store.replace_files(batch)
            written += len(batch)
            emit(IndexEvent("write", written, total, rows=sum(len(rows) for _, rows in batch)))

    def _kept_files(
        self,
        paths: Sequence[str],
        plan: Plan,
        rewrites: Mapping[str, Mapping[str, RelationRow]],
    ) -> Iterator[tuple[CatalogEntry, Sequence[Row]]]:
        """Stored rows of unchanged files, read a batch at a time, with their moved relations
        replaced; a touched file gets its new catalog entry."""
        catalog = self.store.catalog() if rewrites else {}
        for start in range(0, len(paths), self.batch_files):
            part = paths[start : start + self.batch_files]
            stored = rows_by_path(self.store, None, part)
            for path in part:
                moved = rewrites.get(path, {})
                rows = tuple(
                    moved.get(r.id, r) if isinstance(r, RelationRow) else r
                    for r in stored.pop(path, ())
                )
                yield (plan.entries[path] if path in plan.entries else catalog[path]), rows

    def _batches(self, items: Iterable[tuple[CatalogEntry, Sequence[Row]]]) -> Iterator[_Batch]:
        batch: _Batch = []
        rows = 0
        for item in items:
            if batch and (len(batch) >= self.batch_files or rows + len(item[1]) > self.batch_rows):
                yield batch
                batch, rows = [], 0
            batch.append(item)
            rows += len(item[1])
        if batch:
            yield batch

    # ------------------------------------------------------------------ dry run

    def _dry_run(self, plan: Plan, started: float, exists: bool, emit: Progress) -> IndexReport:
        estimate = self._estimate(plan)
        stats = self.store.stats(self.embedder.fingerprint) if exists else None
        rows = stats.rows if stats else {layer.value: 0 for layer in Layer}
        report = IndexReport(
            added=len(plan.added),
            changed=len(plan.changed),
            removed=len(plan.removed),
            unchanged=len(plan.unchanged) + len(plan.touched),
            skipped=plan.skipped,
            rows=rows,
            embeddings_pending=stats.pending_vectors if stats else 0,
            seconds=time.perf_counter() - started,
            dry_run=True,
            estimate=estimate,
            paths={
                "added": plan.added,
                "changed": plan.changed,
                "removed": plan.removed,
                "touched": plan.touched,
            },
        )
        emit(IndexEvent("done", 1, 1))
        return report

    def _estimate(self, plan: Plan) -> Estimate:
        """Extract an evenly spread sample of the files to process; extrapolate by bytes; time
        the embedder on up to 16 of the sample's texts (after one warm-up call)."""
        todo = sorted(plan.files)
        step = max(1, math.ceil(len(todo) / DRY_RUN_SAMPLE_FILES))
        sample = todo[::step]
        layers = getattr(self.store, "embed_layers", DEFAULT_EMBED_LAYERS)
        counts: Counter[str] = Counter()
        texts: dict[str, str] = {}
        t0 = time.perf_counter()
        for path in sample:
            for row in extract_file(plan.files[path], self.settings.index).rows:
                counts[row.layer.value] += 1
                text = embedding_text(row, layers)
                if text is not None:
                    texts.setdefault(embedding_hash(text), text)
        extract_s = time.perf_counter() - t0
        total_bytes = sum(plan.files[p].size for p in todo)
        sample_bytes = sum(plan.files[p].size for p in sample) or 1
        scale = total_bytes / sample_bytes if sample else 0.0
        per_text = 0.0
        probe = sorted(texts.values())[:16]
        if probe:
            self.embedder.embed_documents(probe[:1])  # loads the model
            t1 = time.perf_counter()
            self.embedder.embed_documents(probe)
            per_text = (time.perf_counter() - t1) / len(probe)
        n_texts = round(len(texts) * scale)
        return Estimate(
            files=len(todo),
            rows={k: round(v * scale) for k, v in counts.items()},
            embedding_texts=n_texts,
            embedding_calls=math.ceil(n_texts / max(self.embedder.batch_size, 1)),
            seconds=extract_s * scale + n_texts * per_text,
            sampled_files=len(sample),
            seconds_per_text=round(per_text, 6),
        )


def _hand_back_heap() -> None:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``; elsewhere
    nothing): the extraction's freed rows would otherwise stay resident under the model's
    memory while vectors are filled (2,121 files: ~25 MB)."""
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return


def _rules_changed(old: str, new: str) -> str:
    """The one line an index run reports when the extraction rules changed since the last run."""
    return (
        f"the extraction rules changed ({old or 'unrecorded'} -> {new}): every file was "
        "extracted again; vectors of unchanged texts are kept"
    )


def _model_changed(old: str, new: str) -> str:
    """The one line an index run reports when the embedding model changed since the last run."""
    return (
        f"the embedding model changed ({old} -> {new}): "
        "the old vectors were dropped and every text is re-embedded; rows are kept"
    )
