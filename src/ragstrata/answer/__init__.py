"""Answer stage: one graph per intent (CodeQA, DocsQA, GenerateDocs, ProjectMisc)."""

from ragstrata.core.answer import Answer, AskResult, Citation

__all__ = ["Answer", "AskResult", "Citation"]
