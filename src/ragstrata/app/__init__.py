"""The application layer: what the interfaces (CLI, HTTP, MCP) and library users call.

It assembles the stages — :class:`Ragstrata` (the facade over one repository), the
:class:`Registry` of served repositories, sessions, doctor, evaluation and file watchers — and
is the only door the interfaces have to them: ``cli``, ``http`` and ``mcp`` import
``ragstrata.app`` and ``ragstrata.core``, nothing else (``tests/test_layers.py``).

Names load on first use (a module ``__getattr__``), so importing this package is free.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstrata.answer.docs.drift import DriftReport
    from ragstrata.answer.docs.fsio import write_atomic
    from ragstrata.answer.docs.site import DocsGenerator
    from ragstrata.answer.docs.strings import LANGUAGES, strings
    from ragstrata.answer.docs.svg import flowchart_svg
    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.registry import Registry
    from ragstrata.indexer.summary_plan import SummaryPlan, SummaryRunReport
    from ragstrata.indexer.summary_result import NO_LLM_MESSAGE, SummarizeResult
    from ragstrata.indexer.watch import (
        DEFAULT_DEBOUNCE_MS,
        MAX_DEBOUNCE_MS,
        WatchRun,
        describe,
        watch_repository,
    )
    from ragstrata.ingest.secrets import redact_text
    from ragstrata.llm.preflight import PreflightResult, Severity
    from ragstrata.llm.pricing import PriceTable
    from ragstrata.query.models import RouterPlan, router_plan_json_schema
    from ragstrata.query.router import Router
    from ragstrata.relations.repository import IngestResult, ingest_repository
    from ragstrata.retrieve.lookups import MAX_SOURCE_LINES
    from ragstrata.retrieve.resolve import REFERENCE_KINDS

# name -> the module that defines it
_EXPORTS = {
    "DEFAULT_DEBOUNCE_MS": "ragstrata.indexer.watch",
    "MAX_DEBOUNCE_MS": "ragstrata.indexer.watch",
    "DocsGenerator": "ragstrata.answer.docs.site",
    "DriftReport": "ragstrata.answer.docs.drift",
    "IngestResult": "ragstrata.relations.repository",
    "LANGUAGES": "ragstrata.answer.docs.strings",
    "MAX_SOURCE_LINES": "ragstrata.retrieve.lookups",
    "NO_LLM_MESSAGE": "ragstrata.indexer.summary_result",
    "PreflightResult": "ragstrata.llm.preflight",
    "PriceTable": "ragstrata.llm.pricing",
    "REFERENCE_KINDS": "ragstrata.retrieve.resolve",
    "Ragstrata": "ragstrata.app.facade",
    "Registry": "ragstrata.app.registry",
    "Router": "ragstrata.query.router",
    "RouterPlan": "ragstrata.query.models",
    "Severity": "ragstrata.llm.preflight",
    "SummarizeResult": "ragstrata.indexer.summary_result",
    "SummaryPlan": "ragstrata.indexer.summary_plan",
    "SummaryRunReport": "ragstrata.indexer.summary_plan",
    "WatchRun": "ragstrata.indexer.watch",
    "describe": "ragstrata.indexer.watch",
    "flowchart_svg": "ragstrata.answer.docs.svg",
    "ingest_repository": "ragstrata.relations.repository",
    "redact_text": "ragstrata.ingest.secrets",
    "router_plan_json_schema": "ragstrata.query.models",
    "strings": "ragstrata.answer.docs.strings",
    "watch_repository": "ragstrata.indexer.watch",
    "write_atomic": "ragstrata.answer.docs.fsio",
}

__all__ = [
    "DEFAULT_DEBOUNCE_MS",
    "LANGUAGES",
    "MAX_DEBOUNCE_MS",
    "MAX_SOURCE_LINES",
    "NO_LLM_MESSAGE",
    "REFERENCE_KINDS",
    "DocsGenerator",
    "DriftReport",
    "IngestResult",
    "PreflightResult",
    "PriceTable",
    "Ragstrata",
    "Registry",
    "Router",
    "RouterPlan",
    "Severity",
    "SummarizeResult",
    "SummaryPlan",
    "SummaryRunReport",
    "WatchRun",
    "describe",
    "flowchart_svg",
    "ingest_repository",
    "redact_text",
    "router_plan_json_schema",
    "strings",
    "watch_repository",
    "write_atomic",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragstrata.app' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # load once
    return value
