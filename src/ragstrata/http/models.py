"""Request and response bodies of the HTTP API (pydantic; they make the OpenAPI document).

Request bodies mirror the CLI flags and refuse unknown fields. Responses are the facade's own
``to_dict()`` shapes (``search --json``, ``ask --json``, ``status --json``, ``index --json``);
with ``"render": true`` each hit also carries ``html`` (Pygments-highlighted, line-numbered) and
the answer carries ``html`` (its Markdown rendered, raw HTML escaped).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from ragstrata.app.registry import REPO_NAME

__all__ = [
    "AskRequest",
    "ErrorResponse",
    "HealthResponse",
    "IndexRequest",
    "JobResponse",
    "JobStarted",
    "RepoStatus",
    "RouteRequest",
    "SearchRequest",
    "SearchResponse",
    "SourceResponse",
    "StatusResponse",
]

LayerId = Literal["C0", "C1", "C2", "C3", "D0", "D1", "D2"]
SESSION_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
MAX_QUERY_CHARS = 4000
MAX_TOP_K = 100

Query = Field(
    min_length=1,
    max_length=MAX_QUERY_CHARS,
    description="The question, in Russian or English.",
    examples=["где определён класс Gateway?"],
)
RepoField = Field(
    default=None,
    pattern=REPO_NAME,
    description="Repository name (see GET /v1/status); may be omitted when one is served.",
)
TopK = Field(default=10, ge=1, le=MAX_TOP_K, description="How many hits to retrieve.")
Render = Field(
    default=False,
    description="Add `html` to hits (highlighted code, line numbers) and to the answer.",
)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RouteRequest(_Body):
    """``POST /v1/route``: the router plan of a question (``ragstrata route``)."""

    query: str = Query
    conversation_state: dict[str, Any] | None = Field(
        default=None, description="The previous turn's state (active_intent, active_anchors...)."
    )
    repo_context: dict[str, Any] | None = Field(
        default=None, description="Facts about the repository (languages, top-level folders...)."
    )
    repo: str | None = RepoField


class SearchRequest(_Body):
    """``POST /v1/search``: route and retrieve (``ragstrata search --json``)."""

    query: str = Query
    repo: str | None = RepoField
    top_k: int = TopK
    layers: list[LayerId] | None = Field(
        default=None, max_length=7, description="Only these layers (C0-C3, D0-D2)."
    )
    render: StrictBool = Render

    @field_validator("layers", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [v.strip().upper() if isinstance(v, str) else v for v in value]
        return value


class AskRequest(_Body):
    """``POST /v1/ask``: a cited answer (``ragstrata ask --json``)."""

    query: str = Query
    repo: str | None = RepoField
    session: str | None = Field(
        default=None,
        pattern=SESSION_NAME,
        description="Conversation name; follow-up questions with it continue its topic.",
    )
    top_k: int = TopK
    render: StrictBool = Render


class IndexRequest(_Body):
    """``POST /v1/index``: start an index run in the background."""

    repo: str | None = RepoField
    rebuild: StrictBool = Field(
        default=False, description="Delete the index and build it again (true or false)."
    )


class ErrorInfo(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. `index_missing`.")
    message: str = Field(description="One line naming the bad value.")


class ErrorResponse(BaseModel):
    """Every error: ``{"error": {"code", "message"}}``."""

    error: ErrorInfo


class HitOut(BaseModel):
    layer: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    score: float
    reasons: list[str]
    text: str
    html: str | None = Field(default=None, description="Only with `render`.")


class SearchResponse(BaseModel):
    """``{"plan", "hits"}`` as ``ragstrata search --json`` prints it."""

    plan: dict[str, Any]
    hits: list[HitOut]


class JobStarted(BaseModel):
    job_id: str
    repo: str
    state: str


class Progress(BaseModel):
    done: int
    total: int


class JobResponse(BaseModel):
    """Progress of an index job; ``report`` (``index --json``) or ``error`` when finished."""

    job_id: str
    repo: str
    rebuild: bool
    state: Literal["running", "done", "failed"]
    started_at: str
    finished_at: str | None
    phase: str
    message: str
    files: Progress
    embeddings: Progress
    rows: int
    events: int
    phases: dict[str, Progress]
    report: dict[str, Any] | None
    error: ErrorInfo | None


class RepoStatus(BaseModel):
    """One repository: ``status`` is ``ragstrata status --json``, or ``error`` when there is
    no usable index; ``job_id`` names a running index job."""

    name: str
    path: str
    indexed: bool
    job_id: str | None
    status: dict[str, Any] | None
    error: ErrorInfo | None
    watcher: WatcherInfo | None = None


class StatusResponse(BaseModel):
    repos: list[RepoStatus]


class WatcherInfo(BaseModel):
    """A background watcher (``serve --watch``): ``running``, ``restarting`` after a failure,
    ``dead`` (the index no longer follows file changes; restart the server) or ``stopped``."""

    state: Literal["running", "restarting", "dead", "stopped"]
    error: str | None = None
    restarts: int = 0
    note: str | None = Field(
        default=None, description="E.g. the repository's settings changed: restart to apply."
    )


class HealthResponse(BaseModel):
    """``degraded`` while a watcher is dead: the server answers, from an index that no longer
    follows the files."""

    status: Literal["ok", "degraded"]
    version: str
    repos: list[str]
    watchers: dict[str, WatcherInfo] = Field(default_factory=dict)


class SourceResponse(BaseModel):
    """``GET /v1/source``: lines of an indexed file, highlighted."""

    repo: str
    path: str
    start_line: int
    end_line: int
    language: str
    text: str
    html: str
