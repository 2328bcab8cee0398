"""Answer graphs, one per intent, chosen by the plan's ``graph_id``.

=====================  ======================================================
graph id               answers
=====================  ======================================================
``CodeQAGraph``        CODE_QA: definitions, call sites, quoted lines
``DocsQAGraph``        DOCS_QA: documentation sections and docstrings
``GenerateDocsGraph``  GENERATE_DOCS_FROM_CODE: Markdown docs of a target
``ProjectMiscGraph``   PROJECT_MISC: README, manifests, layout, entry points
=====================  ======================================================
"""

from __future__ import annotations

from ragstrata.answer.graphs.base import Graph
from ragstrata.answer.graphs.code_qa import CodeQAGraph
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.docs_qa import DocsQAGraph
from ragstrata.answer.graphs.generate_docs import GenerateDocsGraph
from ragstrata.answer.graphs.project_misc import ProjectMiscGraph
from ragstrata.errors import ConfigError
from ragstrata.llm.base import Runner
from ragstrata.retrieve.reader import IndexReader

__all__ = [
    "GRAPHS",
    "CodeQAGraph",
    "DocsQAGraph",
    "GenerateDocsGraph",
    "Graph",
    "ProjectMiscGraph",
    "build_graph",
]

GRAPHS: dict[str, type[EvidenceGraph]] = {
    cls.graph_id: cls for cls in (CodeQAGraph, DocsQAGraph, GenerateDocsGraph, ProjectMiscGraph)
}
"""Graph id -> graph class."""


def build_graph(graph_id: str, *, reader: IndexReader, runner: Runner | None = None) -> Graph:
    """The graph for ``graph_id``; an unknown id raises ``ConfigError`` naming the valid ids."""
    cls = GRAPHS.get(graph_id)
    if cls is None:
        raise ConfigError(f"unknown graph id {graph_id!r}; valid: {', '.join(sorted(GRAPHS))}")
    return cls(reader=reader, runner=runner)
