"""The repositories one MCP server serves: the shared :class:`~ragstrata.app.registry.Registry`.

Names, the default repository, "is there an index" and the locking between ``reindex`` and the
reading tools are the registry's (the HTTP server asks the same one); only the hint for a
repository without an index names the MCP tool to call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ragstrata.app.registry import Registry

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata

__all__ = ["INDEX_HINT", "RepoSet"]

INDEX_HINT = "call the reindex tool (or run `ragstrata index`) first"


class RepoSet(Registry):
    """The registry, with the MCP hint for a repository that has no index yet."""

    def __init__(self, repos: Mapping[str, Ragstrata] | Iterable[Ragstrata]) -> None:
        super().__init__(repos, index_hint=INDEX_HINT)
