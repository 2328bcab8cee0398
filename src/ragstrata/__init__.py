"""ragstrata: answers questions about a software repository from retrieved, cited evidence.

Public API (stable): :func:`route` returns the Intent Router plan (schema 1.1) for a question.
Heavy parts (parsers, models, stores) load lazily, so importing ragstrata is cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "route"]


def route(
    user_query: str,
    conversation_state: dict[str, Any] | None = None,
    repo_context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Route a question to an intent and a retrieval plan (a JSON-ready dict, schema 1.1).

    Raises ``ValueError`` (``InvalidQueryError``) for an empty or whitespace-only question and
    ``InvalidStateError`` (a ``ValueError``) for a malformed state or context.
    """
    from ragstrata.query.router import route as _route

    return _route(user_query, conversation_state, repo_context)
