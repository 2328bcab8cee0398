"""Retrieve stage: run a router plan against the index (lexical + dense + symbol lookup,
filters, fusion, evidence policy)."""

from ragstrata.core.evidence import Evidence, Hit, Requirement, SearchResult

__all__ = ["Evidence", "Hit", "Requirement", "SearchResult"]
