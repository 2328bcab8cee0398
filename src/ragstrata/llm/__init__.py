"""LLM runners: the protocol and its value types (providers come with the LLM issue)."""

from ragstrata.llm.base import LLMMetadata, ModelUsage, Request, Runner, RunResult, summary_hash

__all__ = ["LLMMetadata", "ModelUsage", "Request", "RunResult", "Runner", "summary_hash"]
