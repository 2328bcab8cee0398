"""Answer stage: one graph per intent (CodeQA, DocsQA, GenerateDocs, ProjectMisc)."""

from ragstrata.answer.base import Answer, AskResult, Citation

__all__ = ["Answer", "AskResult", "Citation"]
