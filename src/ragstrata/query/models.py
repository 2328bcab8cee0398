"""The Router plan (spec v1.1, seed 001 §5-§9) and the router's input models, as pydantic.

Output models are frozen; ``RouterPlan.model_dump(mode="json")`` is the JSON contract and
:func:`router_plan_json_schema` its JSON Schema. Input models (``ConversationState``,
``RepoContext``) ignore unknown keys; a malformed input raises
``ragstrata.errors.InvalidStateError`` with one line naming the field (see :func:`parse_state`
and :func:`parse_repo_context`).

**Contract.** The plan's JSON is schema 1.1, read by other tools (``ragstrata route``, HTTP
``/v1/route``, MCP ``route_question``): a field removed or renamed, or a value's meaning changed,
breaks them — add fields only, and keep ``tests/golden/`` and ``tests/test_router_golden.py`` in
step.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragstrata.errors import InvalidStateError, one_line

__all__ = [
    "DOMAIN_LAYERS",
    "GRAPH_IDS",
    "LAYER_IDS",
    "SCHEMA_VERSION",
    "Anchor",
    "AnchorType",
    "ConversationMode",
    "ConversationState",
    "DecidedBy",
    "Domain",
    "EvidencePolicy",
    "Filters",
    "Intent",
    "LayerQuery",
    "QueryPlan",
    "RepoContext",
    "RetrievalSpec",
    "RouterPlan",
    "Span",
    "TestPolicy",
    "parse_repo_context",
    "parse_state",
    "router_plan_json_schema",
]

SCHEMA_VERSION = "1.1"


class Intent(StrEnum):
    """The four MVP intents (seed §2)."""

    CODE_QA = "CODE_QA"
    DOCS_QA = "DOCS_QA"
    GENERATE_DOCS_FROM_CODE = "GENERATE_DOCS_FROM_CODE"
    PROJECT_MISC = "PROJECT_MISC"


GRAPH_IDS: dict[Intent, str] = {
    Intent.CODE_QA: "CodeQAGraph",
    Intent.DOCS_QA: "DocsQAGraph",
    Intent.GENERATE_DOCS_FROM_CODE: "GenerateDocsGraph",
    Intent.PROJECT_MISC: "ProjectMiscGraph",
}


class ConversationMode(StrEnum):
    """NEW: no active intent; CONTINUE: the active intent kept; SWITCH: it was changed."""

    NEW = "NEW"
    CONTINUE = "CONTINUE"
    SWITCH = "SWITCH"


class AnchorType(StrEnum):
    """Anchor kinds of seed §4.3."""

    FILE_PATH = "FILE_PATH"
    SYMBOL = "SYMBOL"
    DOC_REF = "DOC_REF"
    KEY_TERM = "KEY_TERM"


class TestPolicy(StrEnum):
    """How retrieval treats test files."""

    __test__ = False  # not a pytest test class

    EXCLUDE = "EXCLUDE"
    INCLUDE = "INCLUDE"
    ONLY = "ONLY"


class Domain(StrEnum):
    """Retrieval domains."""

    CODE = "CODE"
    DOCS = "DOCS"


LayerId = Literal["C0", "C1", "C2", "C3", "D0", "D1", "D2"]
LAYER_IDS: tuple[str, ...] = ("C0", "C1", "C2", "C3", "D0", "D1", "D2")
DOMAIN_LAYERS: dict[Domain, tuple[str, ...]] = {
    Domain.CODE: ("C0", "C1", "C2", "C3"),
    Domain.DOCS: ("D0", "D1", "D2"),
}
DecidedBy = Literal["rules", "conversation_state", "classifier"]
QuestionLanguage = Literal["ru", "en", "unknown"]


class _Frozen(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_serialization_defaults_required=True
    )


class Span(_Frozen):
    """Code-point offsets into ``query_plan.raw``, end exclusive."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Anchor(_Frozen):
    """An explicit anchor (seed §6). ``span`` is null for anchors carried from the state."""

    type: AnchorType
    value: str
    subtype: str | None = None
    span: Span | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    source: Literal["query", "conversation_state", "repo_context"] = "query"
    lemma: str | None = Field(default=None, description="KEY_TERM: the normal form looked up.")


class QueryPlan(_Frozen):
    """The question as typed, its safe normal form and all enrichment (seed §4.1)."""

    raw: str
    normalized: str
    expansions: list[str] = Field(default_factory=list)
    keyword_hints: list[str] = Field(default_factory=list)
    anchors: list[Anchor] = Field(default_factory=list)
    sub_queries: list[str] = Field(default_factory=list)


class LayerQuery(_Frozen):
    """One layer to query and how many hits to take from it."""

    layer_id: LayerId
    top_k: int = Field(gt=0)


class Filters(_Frozen):
    """Retrieval filters (seed §7.1).

    ``path_scope`` entries are repository-relative path prefixes or file names as the user wrote
    them (``:line`` suffixes removed, ``./`` dropped, ``\\`` as ``/``): a row matches when its
    path equals an entry, lies under it, or ends with ``/`` + entry. ``language`` holds
    ingest language ids (``python``, ``go``, ...).
    """

    test_policy: TestPolicy = TestPolicy.EXCLUDE
    path_scope: list[str] = Field(default_factory=list)
    language: list[str] = Field(default_factory=list)


class RetrievalSpec(_Frozen):
    """Which domains and layers to query, with filters and a rerank profile (seed §7)."""

    domains: list[Domain]
    layer_queries: list[LayerQuery]
    filters: Filters
    rerank_profile: Literal["code", "docs", "generate", "project"]


class EvidencePolicy(_Frozen):
    """What evidence an answer needs (seed §8)."""

    require_def: bool = False
    require_flow: bool = False
    require_spec: bool = False
    allow_answer_without_evidence: bool = False


class RouterPlan(_Frozen):
    """The Router output, schema 1.1, plus optional diagnostics (``decided_by`` etc.)."""

    schema_version: Literal["1.1"] = "1.1"
    intent: Intent
    graph_id: str
    conversation_mode: ConversationMode
    query_plan: QueryPlan
    retrieval_spec: RetrievalSpec
    evidence_policy: EvidencePolicy
    decided_by: DecidedBy = "rules"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    language: QuestionLanguage = "unknown"
    notes: list[str] = Field(default_factory=list)


def router_plan_json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`RouterPlan` (as serialised, ``mode="serialization"``)."""
    schema = RouterPlan.model_json_schema(mode="serialization")
    schema["$id"] = "https://ragstrata.dev/schemas/router-plan-1.1.json"
    schema["title"] = "RouterPlan"
    return schema


# ---------------------------------------------------------------- inputs


class _Input(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class StateSpan(_Input):
    """A span in a previous turn's query (kept only to validate the shape)."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class StateAnchor(_Input):
    """An anchor of the current topic, as the caller passes it back."""

    type: AnchorType
    value: str = Field(min_length=1)
    subtype: str | None = None
    span: StateSpan | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)


class ConversationState(_Input):
    """What the caller remembers of the conversation (unknown keys are ignored)."""

    active_intent: Intent | None = None
    active_anchors: list[StateAnchor] = Field(default_factory=list)
    turn: int | None = Field(default=None, ge=0)
    last_query: str | None = None

    @field_validator("active_intent", mode="before")
    @classmethod
    def _upper_intent(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class RepoContext(_Input):
    """What the router may know of the repository without retrieval.

    ``layers``: available layer ids (``C1``) or whole domains (``CODE``); ``None`` = all.
    ``project_names``: what the repository calls itself (manifest names, module path, the
    folder); ``dependencies``: the names of its declared dependencies. In a question these are
    KEY_TERM anchors (subtype ``project`` / ``package``), never a SYMBOL that must be defined.
    """

    languages: list[str] = Field(default_factory=list)
    layers: list[str] | None = None
    top_dirs: list[str] = Field(default_factory=list)
    doc_files: list[str] = Field(default_factory=list)
    project_names: list[str] = Field(default_factory=list)
    dependencies: list[str] = Field(default_factory=list)

    @field_validator("layers")
    @classmethod
    def _known_layers(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        valid = set(LAYER_IDS) | {d.value for d in Domain}
        out = []
        for item in value:
            key = item.strip().upper()
            if key not in valid:
                raise ValueError(f"unknown layer {item!r}; valid: {', '.join(sorted(valid))}")
            out.append(key)
        return out

    def available_layers(self) -> frozenset[str] | None:
        """The set of available layer ids, or ``None`` when every layer is available."""
        if self.layers is None:
            return None
        out: set[str] = set()
        for item in self.layers:
            out.update(DOMAIN_LAYERS[Domain(item)] if item in Domain.__members__ else (item,))
        return frozenset(out)


def _one_line_error(name: str, exc: ValidationError) -> InvalidStateError:
    err = exc.errors()[0]
    where = ".".join([name, *(str(p) for p in err["loc"])])
    msg = one_line(str(err["msg"]))
    if err["type"] == "enum":
        msg += f" (got {err.get('input')!r})"
    return InvalidStateError(f"invalid {where}: {msg}")


def parse_state(value: Any) -> ConversationState:
    """Validate a ``conversation_state`` (dict, model or ``None``); raise ``InvalidStateError``."""
    if value is None:
        return ConversationState()
    if isinstance(value, ConversationState):
        return value
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if not isinstance(value, dict):
        raise InvalidStateError(
            f"invalid conversation_state: expected an object, got {type(value).__name__}"
        )
    try:
        return ConversationState.model_validate(value)
    except ValidationError as exc:
        raise _one_line_error("conversation_state", exc) from None


def parse_repo_context(value: Any) -> RepoContext:
    """Validate a ``repo_context`` (dict, model or ``None``); raise ``InvalidStateError``."""
    if value is None:
        return RepoContext()
    if isinstance(value, RepoContext):
        return value
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if not isinstance(value, dict):
        raise InvalidStateError(
            f"invalid repo_context: expected an object, got {type(value).__name__}"
        )
    try:
        return RepoContext.model_validate(value)
    except ValidationError as exc:
        raise _one_line_error("repo_context", exc) from None
