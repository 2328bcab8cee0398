"""ragstrata: answers questions about a software repository from retrieved, cited evidence.

The public API is what ``__all__`` lists; everything else is internal and may change between
versions (see ``docs/architecture.md``, "Public surface")::

    from ragstrata import Ragstrata, load_settings, route

    rs = Ragstrata("path/to/repo", load_settings("path/to/repo"))
    rs.index()
    print(rs.ask("где определён класс UserService?").answer.text)

- :class:`Ragstrata`: one repository — ``index``, ``status``, ``search``, ``ask``,
  ``definition``, ``references``, ``outline``, ``gendocs``, ``summarize``, ``doctor``.
- :class:`Settings` / :func:`load_settings`: the one settings object (defaults < user config <
  the repository's ``ragstrata.toml`` < ``RAGSTRATA_*`` < overrides).
- :func:`route`: the Intent Router plan (schema 1.1) for a question, as a JSON-ready dict.
- The error tree: :class:`RagstrataError`, :class:`UserError` (bad input) and
  :class:`SystemFailure` (something outside the caller's control).

Heavy parts (parsers, models, stores) load lazily, so importing ragstrata is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragstrata.core.version import __version__
from ragstrata.errors import RagstrataError, SystemFailure, UserError

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.settings import Settings, load_settings

__all__ = [
    "Ragstrata",
    "RagstrataError",
    "Settings",
    "SystemFailure",
    "UserError",
    "__version__",
    "load_settings",
    "route",
]

_LAZY = {
    "Ragstrata": "ragstrata.app.facade",
    "Settings": "ragstrata.settings",
    "load_settings": "ragstrata.settings",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragstrata' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
