"""Retrieve stage: run a router plan against the index (lexical + dense + symbol lookup,
filters, fusion, evidence policy)."""

from ragstrata.retrieve.base import Evidence, Hit, Requirement, SearchResult

__all__ = ["Evidence", "Hit", "Requirement", "SearchResult"]
