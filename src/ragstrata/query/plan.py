"""Per-intent retrieval spec and evidence policy (seed §7, §8), from ``data/router/plans.toml``.

- domains, rerank profile and evidence policy per intent exactly as seed §7.2 / §8;
- layer_queries per intent (ids of shared/design/ARCHITECTURE.md), plus layers that terms in
  the question ask for (``[[ensure_layer]]`` of signals.toml) when their domain is allowed;
- filters.path_scope: every FILE_PATH anchor's path (``:line``/``#section`` removed, ``./``
  dropped, ``\\`` written ``/``), in order, without duplicates;
- filters.test_policy: EXCLUDE by default, INCLUDE for a question about tests or naming a test
  path, ONLY when it asks for tests alone;
- filters.language: the languages named or implied by file extensions, for plans that search
  CODE (a docs-only plan gets none: docs rows are not in a programming language);
- layers and domains that ``repo_context.layers`` does not list are dropped (with a note).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ragstrata.errors import ConfigError
from ragstrata.query.models import (
    LAYER_IDS,
    Domain,
    EvidencePolicy,
    Filters,
    Intent,
    LayerQuery,
    RepoContext,
    RetrievalSpec,
    TestPolicy,
)

__all__ = ["IntentPlan", "PlanTable", "path_scope_entry"]


@dataclass(frozen=True, slots=True)
class IntentPlan:
    """The static part of a plan for one intent."""

    graph_id: str
    domains: tuple[Domain, ...]
    rerank_profile: str
    layers: tuple[tuple[str, int], ...]
    evidence: EvidencePolicy


def _domain_of(layer: str) -> Domain:
    return Domain.CODE if layer.startswith("C") else Domain.DOCS


class PlanTable:
    """The per-intent plans, validated when loaded."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._plans: dict[Intent, IntentPlan] = {}
        for intent in Intent:
            spec = data.get(intent.value)
            if not isinstance(spec, dict):
                raise ConfigError(f"plans.toml: no plan for intent {intent.value}")
            layers = tuple((str(lid), int(k)) for lid, k in spec["layers"])
            for lid, k in layers:
                if lid not in LAYER_IDS or k <= 0:
                    raise ConfigError(f"plans.toml {intent.value}: bad layer {lid!r} / top_k {k}")
            self._plans[intent] = IntentPlan(
                graph_id=str(spec["graph_id"]),
                domains=tuple(Domain(d) for d in spec["domains"]),
                rerank_profile=str(spec["rerank_profile"]),
                layers=layers,
                evidence=EvidencePolicy(**spec["evidence"]),
            )

    def __getitem__(self, intent: Intent) -> IntentPlan:
        return self._plans[intent]

    def build(
        self,
        intent: Intent,
        *,
        paths: Sequence[str],
        test_policy: TestPolicy,
        languages: Sequence[str],
        ensure: Iterable[tuple[str, int]],
        repo: RepoContext,
        notes: list[str],
    ) -> tuple[RetrievalSpec, EvidencePolicy]:
        """The retrieval spec and evidence policy for ``intent`` and the question's signals."""
        plan = self._plans[intent]
        layers = list(plan.layers)
        have = {lid for lid, _ in layers}
        for lid, k in ensure:
            if lid not in have and _domain_of(lid) in plan.domains:
                layers.append((lid, k))
                have.add(lid)
        domains = list(plan.domains)
        available = repo.available_layers()
        if available is not None:
            dropped = [lid for lid, _ in layers if lid not in available]
            if dropped:
                notes.append(f"dropped layers not in repo_context.layers: {', '.join(dropped)}")
            layers = [(lid, k) for lid, k in layers if lid in available]
            kept = {_domain_of(lid) for lid, _ in layers}
            gone = [d for d in domains if d not in kept]
            if gone:
                notes.append(f"dropped domains with no available layer: {', '.join(gone)}")
            domains = [d for d in domains if d in kept]
        spec = RetrievalSpec(
            domains=domains,
            layer_queries=[_layer_query(lid, k) for lid, k in layers],
            filters=Filters(
                test_policy=test_policy,
                path_scope=list(paths),
                # languages filter code rows: meaningless for a docs-only plan
                language=list(languages) if Domain.CODE in plan.domains else [],
            ),
            rerank_profile=plan.rerank_profile,  # type: ignore[arg-type]
        )
        return spec, plan.evidence


@lru_cache(maxsize=256)
def _layer_query(layer_id: str, top_k: int) -> LayerQuery:
    """Frozen, so one instance per (layer, top_k) is shared by every plan."""
    return LayerQuery(layer_id=layer_id, top_k=top_k)  # type: ignore[arg-type]


def path_scope_entry(path: str) -> str:
    """How a FILE_PATH value (already without ``:line``) enters ``filters.path_scope``."""
    p = path.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    if len(p) > 1:
        p = p.rstrip("/")
    return p or path
