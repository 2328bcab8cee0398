"""Pre-flight checks (seed 003 ``Preflight`` / ``Finding`` / ``Severity``) and ``ragstrata doctor``.

:func:`run_checks` looks at one repository's configuration and index and returns a
:class:`~ragstrata.llm.preflight.PreflightResult` of :class:`DoctorFinding` s, each with a
severity, a category, what was observed and how to fix it. No findings means nothing is wrong.

========== ======== ===================================================================
category   severity when
========== ======== ===================================================================
settings   high     the embedder or LLM cannot be built from the settings
index      high     no index yet, or the store cannot be opened
schema     high     the index was built by another schema or splitter settings (rebuild)
stale      medium   the index's vectors come from another embedder (dense search is off
                    until ``ragstrata index`` re-embeds); low: files changed on disk
embeddings medium   no text has a vector yet; low: some texts are still pending
dimensions high     the embedder's vectors have another length than the index's
embedder   high     a remote embedding service fails or rejects the key / model
llm        high     the configured LLM fails a one-word request (key, model, network)
disk       high     free space under ``DiskLimits.high_bytes``; medium under
                    ``medium_bytes`` or under twice the index's size (a rebuild needs it)
========== ======== ===================================================================

``HasBlocking`` semantics: a ``high`` finding blocks. :func:`blocking_message` is the one-line
refusal and :func:`blocking_error` the matching ``RagstrataError`` for ``ask`` to raise.
``quick=True`` skips the checks that cost a request or a walk of the repository (LLM and
embedder probes, files changed on disk), for running before every question (~10-50 ms on a
45k-row index).

Seed 003 selects one LLM validator per entry from its type, kind and links (conformance
``preflight_check_selection``); ragstrata's checks are deterministic and all of them run, so
that table has no counterpart here. What carries over is its precedence: the most fundamental
failure wins and hides the checks that depend on it (no index or another schema -> no stale,
embeddings or dimension findings behind it).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ragstrata.errors import (
    ConfigError,
    IndexCorruptError,
    IndexMismatchError,
    IndexMissingError,
    ProviderAuthError,
    ProviderError,
    RagstrataError,
    StoreError,
    one_line,
)
from ragstrata.llm.base import Request
from ragstrata.llm.preflight import Finding, PreflightResult, Severity

if TYPE_CHECKING:
    from ragstrata.core.values import Manifest, StoreStats
    from ragstrata.embed.base import Embedder
    from ragstrata.indexer import IndexStatus
    from ragstrata.llm.base import Runner
    from ragstrata.settings import Settings
    from ragstrata.store.protocols import Store


class Checked(Protocol):
    """What the checks read of a repository: the facade (``ragstrata.app.facade.Ragstrata``)
    conforms; the doctor does not import it, so the two modules do not depend on each other."""

    repo: Path
    settings: Settings

    @property
    def index_dir(self) -> Path: ...

    @property
    def store(self) -> Store: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def runner(self) -> Runner | None: ...

    def status(self) -> IndexStatus: ...

    def has_index(self) -> bool: ...


__all__ = [
    "CATEGORIES",
    "DiskLimits",
    "DoctorFinding",
    "blocking_error",
    "blocking_message",
    "finding_to_dict",
    "run_checks",
]

CATEGORIES = (
    "settings",
    "index",
    "schema",
    "stale",
    "embeddings",
    "dimensions",
    "embedder",
    "llm",
    "disk",
)
"""Every category a finding can have, in the order the checks run."""

_ERRORS: dict[str, type[RagstrataError]] = {
    "settings": ConfigError,
    "index": IndexMissingError,
    "schema": IndexMismatchError,
    "dimensions": IndexMismatchError,
    "embedder": ProviderError,
    "llm": ProviderError,
    "disk": StoreError,
}

PING = Request(
    system_prompt="You are a health check. Reply with the single word: ok",
    user_prompt="ping",
)
"""The cheap request sent to a configured LLM (a handful of tokens each way)."""


@dataclass(frozen=True, slots=True)
class DoctorFinding(Finding):
    """A finding with the command or setting that fixes it."""

    fix: str = ""


class DiskLimits(NamedTuple):
    """Free-space thresholds of the index folder's disk."""

    high_bytes: int = 100 * 1024**2
    medium_bytes: int = 1024**3


DEFAULT_DISK_LIMITS = DiskLimits()

DiskUsage = Callable[[Path], Any]  # shutil.disk_usage: (total, used, free)


def _f(severity: Severity, category: str, observation: str, fix: str = "") -> DoctorFinding:
    return DoctorFinding(severity, category, " ".join(observation.split()), fix)


def _size(folder: Path) -> int:
    total = 0
    if folder.is_dir():
        for p in folder.rglob("*"):
            try:
                if p.is_file():
                    total += p.stat().st_size
            except OSError:
                continue
    return total


# --------------------------------------------------------------------------- the checks


def _check_settings(rs: Checked, out: list[DoctorFinding]) -> Any:
    """Build the embedder (and the runner when configured); returns the embedder or None."""
    embedder = None
    try:
        embedder = rs.embedder
    except (RagstrataError, ImportError) as exc:
        out.append(
            _f(
                Severity.HIGH,
                "settings",
                f"embedder {rs.settings.embedder.provider!r} cannot be used: {one_line(exc)}",
                "fix [embedder] in ~/.config/ragstrata/config.toml or RAGSTRATA_EMBEDDER_* "
                "(provider, model, base_url, api key)",
            )
        )
    if rs.settings.llm.provider != "none":
        try:
            _ = rs.runner
        except (RagstrataError, ImportError) as exc:
            out.append(
                _f(
                    Severity.HIGH,
                    "settings",
                    f"LLM {rs.settings.llm.provider!r} cannot be used: {one_line(exc)}",
                    "set RAGSTRATA_LLM_MODEL, RAGSTRATA_LLM_BASE_URL and RAGSTRATA_LLM_API_KEY "
                    "(or [llm] in ~/.config/ragstrata/config.toml), or RAGSTRATA_LLM_PROVIDER=none",
                )
            )
    return embedder


def _read_index(
    rs: Checked, embedder: Any, out: list[DoctorFinding]
) -> tuple[Store, Manifest | None, StoreStats] | None:
    """The store, its manifest and stats; None (with the finding) when they cannot be read."""
    where = f"`ragstrata index {rs.repo}`"
    rebuild = f"run `ragstrata index --rebuild {rs.repo}`"
    try:
        store = rs.store
        if not store.has_index():
            out.append(_f(Severity.HIGH, "index", f"no index at {rs.index_dir}", f"run {where}"))
            return None
        manifest = store.read_manifest()
        return store, manifest, store.stats(embedder.fingerprint if embedder is not None else None)
    except RagstrataError as exc:
        if isinstance(exc, IndexMismatchError):
            area, message, fix = "schema", one_line(exc), rebuild
        elif isinstance(exc, IndexMissingError):
            area, message, fix = "index", one_line(exc), f"run {where}"
        elif isinstance(exc, ConfigError):  # e.g. a store.url this version cannot open
            fixes = "fix [store] in ~/.config/ragstrata/config.toml, RAGSTRATA_STORE_URL or --store"
            area, message, fix = "settings", one_line(exc), fixes
        elif isinstance(exc, IndexCorruptError):
            area, message, fix = "index", one_line(exc), rebuild
        else:
            area, message = "index", f"the index cannot be read: {one_line(exc)}"
            fix = f"delete {rs.index_dir} and run {where}"
            if rs.settings.store.url:
                fix = "check store.url (RAGSTRATA_STORE_URL) and that the database server is reachable"
        out.append(_f(Severity.HIGH, area, message, fix))
        return None


def _check_index(rs: Checked, embedder: Any, quick: bool, out: list[DoctorFinding]) -> bool:
    """Index present, of this schema, fresh; returns True when the index can be read."""
    read = _read_index(rs, embedder, out)
    if read is None:
        return False
    store, manifest, stats = read
    where = f"`ragstrata index {rs.repo}`"
    if manifest is None:
        severity = Severity.HIGH if stats.files == 0 else Severity.MEDIUM
        out.append(
            _f(severity, "index", f"the index at {rs.index_dir} has no manifest", f"run {where}")
        )
        return severity is not Severity.HIGH
    if embedder is None:
        return True
    if not _check_vectors(rs, store, manifest, stats, embedder, out):
        return False
    if not quick:
        try:
            stale = rs.status().stale
        except RagstrataError:
            stale = 0
        if stale:
            message = f"{stale} files changed on disk since the last index run"
            out.append(_f(Severity.LOW, "stale", message, f"run {where}"))
    return True


def _check_vectors(
    rs: Checked,
    store: Store,
    manifest: Manifest,
    stats: StoreStats,
    embedder: Any,
    out: list[DoctorFinding],
) -> bool:
    """The index's vectors against the configured embedder; False when it cannot be read."""
    from ragstrata.indexer import check_manifest, expected_manifest

    where = f"`ragstrata index {rs.repo}`"
    rebuild = f"run `ragstrata index --rebuild {rs.repo}`"
    try:
        check = check_manifest(manifest, expected_manifest(store, embedder, rs.settings))
    except IndexMismatchError as exc:
        out.append(_f(Severity.HIGH, "schema", one_line(exc), rebuild))
        return False
    if check.reextract:
        message = (
            "the index was built by older extraction rules: definitions and relations the "
            "current rules find are missing"
        )
        fix = f"run {where} (extracts every file again; keeps the vectors)"
        out.append(_f(Severity.LOW, "stale", message, fix))
    if manifest.embedder_fingerprint != embedder.fingerprint:
        message = (
            f"the index's vectors come from {manifest.embedder_fingerprint!r}, the configured "
            f"embedder is {embedder.fingerprint!r}: dense search finds nothing until "
            f"{stats.pending_vectors} texts are re-embedded"
        )
        fix = f"run {where} (re-embeds only; `--rebuild` also re-extracts every file)"
        out.append(_f(Severity.MEDIUM, "stale", message, fix))
    elif check.reembed and manifest.dimensions != embedder.dimensions:
        message = (
            f"the index holds {manifest.dimensions}-dimensional vectors of "
            f"{embedder.fingerprint!r}, the embedder now makes {embedder.dimensions}"
        )
        out.append(_f(Severity.HIGH, "dimensions", message, rebuild))
    elif stats.pending_vectors:
        none_yet = stats.vectors == 0
        message = f"{stats.pending_vectors} texts have no vector yet" + (
            ": dense search is off" if none_yet else ": dense search misses them"
        )
        severity = Severity.MEDIUM if none_yet else Severity.LOW
        out.append(_f(severity, "embeddings", message, f"run {where}"))
    return True


def _check_embedder(rs: Checked, embedder: Any, out: list[DoctorFinding]) -> None:
    """A remote embedder answers one query with vectors of the promised length."""
    if embedder is None or rs.settings.embedder.provider not in ("openai", "ollama"):
        return
    name = f"{rs.settings.embedder.provider} embedder {rs.settings.embedder.model!r}"
    try:
        vector = embedder.embed_queries(["ragstrata doctor"])[0]
    except (ProviderError, OSError) as exc:
        fix = (
            "check RAGSTRATA_EMBEDDER_API_KEY and RAGSTRATA_EMBEDDER_MODEL"
            if isinstance(exc, ProviderAuthError)
            else "check RAGSTRATA_EMBEDDER_BASE_URL and that the service is running"
        )
        out.append(_f(Severity.HIGH, "embedder", f"{name} failed: {one_line(exc)}", fix))
        return
    manifest = None
    try:
        manifest = rs.store.read_manifest() if rs.has_index() else None
    except RagstrataError:
        manifest = None
    want = embedder.dimensions
    if manifest is not None and manifest.embedder_fingerprint == embedder.fingerprint:
        want = manifest.dimensions
    if want and len(vector) != want:
        out.append(
            _f(
                Severity.HIGH,
                "dimensions",
                f"{name} returned {len(vector)}-dimensional vectors, expected {want}",
                "set embedder.dimensions to the model's size, then "
                f"`ragstrata index --rebuild {rs.repo}`",
            )
        )


def _check_llm(rs: Checked, out: list[DoctorFinding]) -> None:
    """One tiny request through the configured runner."""
    llm = rs.settings.llm
    if llm.provider == "none":
        return
    try:
        runner = rs.runner
    except (RagstrataError, ImportError):
        return  # reported by the settings check
    if runner is None:
        return

    from ragstrata.core.transport import redact_url  # httpx: only when an LLM is checked

    shown = redact_url(llm.base_url) if llm.base_url else ""
    name = f"{llm.provider} model {llm.model!r}" + (f" at {shown}" if shown else "")
    try:
        reply = runner.run(PING)
    except ProviderAuthError as exc:
        out.append(
            _f(
                Severity.HIGH,
                "llm",
                f"{name} rejected the request: {one_line(exc)}",
                "check RAGSTRATA_LLM_API_KEY (or the variable llm.api_key_env names) and "
                "RAGSTRATA_LLM_MODEL",
            )
        )
        return
    except Exception as exc:  # any transport failure is a finding, not a crash of doctor
        out.append(
            _f(
                Severity.HIGH,
                "llm",
                f"{name} is not reachable: {one_line(exc)}",
                "check RAGSTRATA_LLM_BASE_URL and the network, or set RAGSTRATA_LLM_PROVIDER=none",
            )
        )
        return
    if not reply.text.strip():
        out.append(
            _f(
                Severity.MEDIUM,
                "llm",
                f"{name} answered a health check with an empty reply",
                "check the model name; answers fall back to extractive when replies are empty",
            )
        )


def _check_disk(
    rs: Checked, limits: DiskLimits, disk_usage: DiskUsage, out: list[DoctorFinding]
) -> None:
    folder = rs.index_dir if rs.index_dir.is_dir() else rs.repo
    try:
        free = int(disk_usage(folder)[2])
    except OSError as exc:
        out.append(_f(Severity.LOW, "disk", f"cannot read free space of {folder}: {exc.strerror}"))
        return
    index_size = _size(rs.index_dir)
    mb = f"{free / 1024**2:.0f} MB free on the disk of {folder}"
    fix = "free disk space, or move the index (store.index_dir_name) to another disk"
    if free < limits.high_bytes:
        out.append(_f(Severity.HIGH, "disk", mb + ": index writes may fail", fix))
    elif free < limits.medium_bytes:
        out.append(_f(Severity.MEDIUM, "disk", mb + ": a large index run may not fit", fix))
    elif index_size and free < 2 * index_size:
        out.append(
            _f(
                Severity.MEDIUM,
                "disk",
                f"{mb}, less than twice the index's {index_size / 1024**2:.0f} MB: "
                "a rebuild may not fit",
                fix,
            )
        )


def run_checks(
    rs: Checked,
    *,
    quick: bool = False,
    disk_limits: DiskLimits = DEFAULT_DISK_LIMITS,
    disk_usage: DiskUsage = shutil.disk_usage,
) -> PreflightResult:
    """Every check of the module docstring, in :data:`CATEGORIES` order."""
    out: list[DoctorFinding] = []
    embedder = _check_settings(rs, out)
    _check_index(rs, embedder, quick, out)
    if not quick:
        _check_embedder(rs, embedder, out)
        _check_llm(rs, out)
    _check_disk(rs, disk_limits, disk_usage, out)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    rank = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}
    out.sort(key=lambda f: (rank[f.severity], order.get(f.category, len(order))))
    return PreflightResult.of(out)


# --------------------------------------------------------------------------- verdicts


def finding_to_dict(finding: Finding) -> dict[str, str]:
    """JSON-ready form: severity, category, observation, fix."""
    return {
        "severity": finding.severity.value,
        "category": finding.category,
        "observation": finding.observation,
        "fix": getattr(finding, "fix", ""),
    }


def _blocking(result: PreflightResult, categories: Collection[str] | None) -> list[Finding]:
    return [
        f
        for f in result.findings
        if f.severity is Severity.HIGH and (categories is None or f.category in categories)
    ]


def blocking_message(
    result: PreflightResult, *, action: str = "answer", categories: Collection[str] | None = None
) -> str | None:
    """The one-line refusal when a ``high`` finding exists (None otherwise): the first high
    finding, its fix, and how many more there are. ``categories`` limits which findings may
    block (all by default: ``HasBlocking``); ``action`` names what is refused."""
    high = _blocking(result, categories)
    if not high:
        return None
    first = high[0]
    fix = getattr(first, "fix", "")
    text = f"cannot {action}: {first.observation}" + (f"; fix: {fix}" if fix else "")
    if len(high) > 1:
        text += f" (and {len(high) - 1} more; run `ragstrata doctor`)"
    return text


def blocking_error(
    result: PreflightResult, *, action: str = "answer", categories: Collection[str] | None = None
) -> RagstrataError | None:
    """:func:`blocking_message` as the error of its category (``IndexMissingError`` for
    ``index``, ``IndexMismatchError`` for ``schema``/``dimensions``, ``ConfigError`` for
    ``settings``, ``ProviderError`` for ``llm``/``embedder``, ``StoreError`` for ``disk``)."""
    message = blocking_message(result, action=action, categories=categories)
    if message is None:
        return None
    first = _blocking(result, categories)[0]
    return _ERRORS.get(first.category, RagstrataError)(message)
