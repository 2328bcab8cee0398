"""Index runs in background threads, one at a time per repository, with progress as data.

Each job collects the indexer's :class:`~ragstrata.indexer.IndexEvent` s into a snapshot that
``GET /v1/jobs/{id}`` returns: the current phase, files done/total, embeddings done/total, and
the :class:`~ragstrata.indexer.IndexReport` (or the error) at the end.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from ragstrata.errors import RagstrataError, one_line
from ragstrata.http.errors import ApiError

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.registry import IndexClaim, Registry
    from ragstrata.core.events import IndexEvent

__all__ = ["Job", "JobManager", "JobState"]

JobState = Literal["running", "done", "failed"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Job:
    """One index run; mutated only by its own thread under ``lock``."""

    job_id: str
    repo: str
    rebuild: bool
    state: JobState = "running"
    started_at: str = field(default_factory=_now)
    finished_at: str | None = None
    phase: str = "queued"
    message: str = ""
    phases: dict[str, dict[str, int]] = field(default_factory=dict)
    rows: int = 0
    events: int = 0
    report: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def on_event(self, event: IndexEvent) -> None:
        """The indexer's progress callback."""
        with self.lock:
            self.events += 1
            self.phase = event.phase
            if event.message:
                self.message = event.message
            if event.phase == "extract":
                self.rows += event.rows
            self.phases[event.phase] = {"done": event.done, "total": event.total}

    def snapshot(self) -> dict[str, Any]:
        """The JSON shape of ``GET /v1/jobs/{id}``."""
        with self.lock:
            files = self.phases.get("extract") or self.phases.get("scan") or {}
            embed = self.phases.get("embed", {})
            return {
                "job_id": self.job_id,
                "repo": self.repo,
                "rebuild": self.rebuild,
                "state": self.state,
                "started_at": self.started_at,
                "finished_at": self.finished_at,
                "phase": self.phase,
                "message": self.message,
                "files": {"done": files.get("done", 0), "total": files.get("total", 0)},
                "embeddings": {"done": embed.get("done", 0), "total": embed.get("total", 0)},
                "rows": self.rows,
                "events": self.events,
                "phases": {k: dict(v) for k, v in self.phases.items()},
                "report": self.report,
                "error": self.error,
            }


class JobManager:
    """Starts index jobs and keeps the last ``keep`` of them for polling. Whether a repository
    may be indexed now is the registry's decision (:meth:`Registry.claim_index`)."""

    def __init__(self, keep: int = 64) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._running: dict[str, str] = {}  # repo name -> job id
        self._lock = threading.Lock()
        self._keep = keep

    def start(self, served: Registry, repo: str | None, *, rebuild: bool = False) -> Job:
        """Start indexing the repository ``repo`` names in a thread; ``IndexBusyError`` when
        an index run of it is under way."""
        job_id = uuid.uuid4().hex
        claim = served.claim_index(repo, owner=f"job {job_id}", rebuild=rebuild)
        job = Job(job_id=job_id, repo=claim.name, rebuild=rebuild)
        with self._lock:
            self._jobs[job.job_id] = job
            self._running[job.repo] = job.job_id
            self._trim()
        thread = threading.Thread(
            target=self._run,
            args=(job, served.get(job.repo), claim),
            name=f"ragstrata-index-{job.repo}",
            daemon=True,
        )
        thread.start()
        return job

    def _run(self, job: Job, rs: Ragstrata, claim: IndexClaim) -> None:
        started = time.perf_counter()
        report: dict[str, Any] | None = None
        error: dict[str, str] | None = None
        try:
            with claim:
                report = rs.index(rebuild=job.rebuild, progress=job.on_event).to_dict()
        except RagstrataError as exc:
            error = {"code": exc.code, "message": one_line(exc)}
        except Exception as exc:  # a job thread must always finish its record
            error = {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}"}
        with job.lock:
            job.report = report
            job.error = error
            job.state = "failed" if error else "done"
            job.phase = "done" if report else "failed"
            job.finished_at = _now()
            job.message = job.message or f"finished in {time.perf_counter() - started:.2f} s"
        with self._lock:
            if self._running.get(job.repo) == job.job_id:
                del self._running[job.repo]

    def _trim(self) -> None:
        running = set(self._running.values())
        for job_id in list(self._jobs):
            if len(self._jobs) <= self._keep:
                break
            if job_id not in running:
                del self._jobs[job_id]

    def get(self, job_id: str) -> Job:
        """The job with that id; ``ApiError`` 404 when unknown (or forgotten)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise ApiError(404, "unknown_job", f"no index job {job_id!r}")
        return job

    def busy(self, name: str) -> str | None:
        """The id of the job indexing ``name`` now, if any."""
        with self._lock:
            return self._running.get(name)
